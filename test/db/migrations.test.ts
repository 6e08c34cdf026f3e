// Issue 33, upgrades: a catalogue at every earlier migration level (test/fixtures/migrations/, made
// by generate.ts from data the app wrote through its actions) migrates to the current level with
// every dataset, user, API token, membership, collaborator, activity, DataStore table and search
// answer intact; a migration that fails leaves the database at the level it had.
import { copyFileSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'libsql'
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps } from '../../src/runtime/deps'
import { openDatastore } from '../../src/runtime/node-datastore'
import { openCatalogDb } from '../../src/runtime/node-db'
import { nodeBlobStore } from '../../src/runtime/node-blob-store'
import { journal, migrateWith, migrationsUpTo } from '../fixtures/migrations/levels'
import { TEST_PROFILE } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'migrations')
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8'))
const LEVELS = journal().entries.length

/** The fixture's rows per table. */
const inserts = (sql: string) => {
  const counts: Record<string, number> = {}
  for (const m of sql.matchAll(/^INSERT INTO "([^"]+)"/gm)) counts[m[1]!] = (counts[m[1]!] ?? 0) + 1
  return counts
}

/** A catalogue at `level` holding that level's fixture, beside the fixture DataStore. */
async function atLevel(level: number) {
  const dir = tempDir('ckan-edge-migrate-')
  const file = join(dir, 'catalogue.db')
  await migrateWith(file, migrationsUpTo(level))
  const sql = readFileSync(join(FIXTURES, `level-${level}.sql`), 'utf8')
  const db = new Database(file)
  db.exec(`BEGIN; ${sql} COMMIT;`)
  db.close()
  copyFileSync(join(FIXTURES, 'datastore.db'), join(dir, 'datastore.db'))
  return { dir, file, sql }
}

const levels = Array.from({ length: LEVELS - 1 }, (_, i) => i + 1)

describe.each(levels)('a catalogue at migration level %i of the earlier ones', (level) => {
  it('migrates to the current level and keeps every object', async () => {
    const { dir, file, sql } = await atLevel(level)
    const opened = await openCatalogDb(`file:${file}`)
    const deps = buildDeps(loadConfig({ ...TEST_PROFILE, 'service.auth.allow_dataset_collaborators': 'true' }), opened.db, {
      writeExecutor: opened.writeExecutor,
      readExecutor: opened.readExecutor,
      headProbe: opened.headProbe,
      datastore: await openDatastore(`file:${join(dir, 'datastore.db')}`),
      blobs: nodeBlobStore(join(dir, 'uploads')),
    })
    try {
      const app = createApp(deps)
      const call = async (name: string, body: object, key: string | null = expected.admin.apikey) => {
        const res = await app.request(`/api/3/action/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: key } : {}) },
          body: JSON.stringify(body),
        })
        return (await res.json()) as { success: boolean; result: any; error?: unknown }
      }
      const ok = async (name: string, body: object, key?: string | null) => {
        const r = await call(name, body, key)
        expect(r.success, `${name} ${JSON.stringify(body)}: ${JSON.stringify(r.error)}`).toBe(true)
        return r.result
      }
      // at the current level, every row of the fixture still there
      const [applied] = await deps.read('SELECT COUNT(*) AS n FROM __drizzle_migrations')
      expect(Number(applied!.n)).toBe(LEVELS)
      for (const [table, n] of Object.entries(inserts(sql))) {
        const [row] = await deps.read(`SELECT COUNT(*) AS n FROM "${table}"`)
        expect(Number(row!.n), table).toBeGreaterThanOrEqual(n)
      }
      for (const d of expected.datasets) {
        const shown = await ok('package_show', { id: d.name })
        expect({
          name: shown.name,
          title: shown.title,
          state: shown.state,
          private: shown.private,
          organization: shown.organization?.name ?? null,
          tags: shown.tags.map((t: { name: string }) => t.name).sort(),
          extras: shown.extras,
          resources: shown.resources.map((r: { name: string; url: string }) => ({ name: r.name, url: r.url })),
          groups: shown.groups.map((g: { name: string }) => g.name),
          activities: (await ok('package_activity_list', { id: d.name, limit: 100 })).length,
        }).toEqual(d)
      }
      for (const [id, roles] of Object.entries(expected.members))
        expect(((await ok('member_list', { id, object_type: 'user' })) as [string, string, string][]).map(([, , r]) => r).sort(), id).toEqual(roles)
      expect((await ok('user_show', { id: 'alice' })).fullname).toBe('Alice Archivist')
      // collaborators and API tokens, where the level had them
      if (inserts(sql).package_member)
        expect((await ok('package_collaborator_list', { id: 'dataset-4' })).map((c: { capacity: string }) => c.capacity)).toEqual(expected.collaborators)
      if (inserts(sql).api_token) {
        // alice's token still signs her in: she edits org-a, so sees its private dataset
        expect((await ok('package_show', { id: 'dataset-4' }, expected.token.value)).name).toBe('dataset-4')
        expect((await call('package_show', { id: 'dataset-4' }, null)).success).toBe(false)
      }
      // the search index, built from the migrated datasets, answers as before
      expect((await ok('package_search', { q: '*:*', rows: 0, include_private: true })).count).toBe(expected.search.all)
      expect((await ok('package_search', { q: 'rivers', rows: 0 })).count).toBe(expected.search.rivers)
      expect((await ok('package_search', { fq: 'organization:org-a', rows: 0, include_private: true })).count).toBe(expected.search.orgA)
      const rows = await ok('datastore_search', { resource_id: expected.datastore.resource_id })
      expect(rows.records.length).toBe(expected.datastore.rows)
    } finally {
      deps.search.stop()
      opened.close()
    }
  }, 30_000)
})

describe('a migration that fails', () => {
  it('leaves the database at the level it had, none of the pending migrations applied', async () => {
    const from = 5
    const { file, sql } = await atLevel(from)
    const broken = migrationsUpTo(LEVELS, {
      '9999_broken': 'CREATE TABLE `half_done` (`id` text PRIMARY KEY);\n--> statement-breakpoint\nINSERT INTO `no_such_table` VALUES (1);',
    })
    await expect(migrateWith(file, broken)).rejects.toThrow(/no_such_table/)
    const db = new Database(file, { readonly: true })
    try {
      expect(Number((db.prepare('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n)).toBe(from)
      expect(db.prepare(`SELECT name FROM sqlite_master WHERE name IN ('half_done', 'harvest_job')`).all()).toEqual([])
      expect(Number((db.prepare('SELECT COUNT(*) AS n FROM package').get() as { n: number }).n)).toBe(inserts(sql).package)
    } finally {
      db.close()
    }
    // the code's own migrations then bring it up to date
    await migrateWith(file, migrationsUpTo(LEVELS))
    const after = new Database(file, { readonly: true })
    expect(Number((after.prepare('SELECT COUNT(*) AS n FROM __drizzle_migrations').get() as { n: number }).n)).toBe(LEVELS)
    after.close()
  })
})
