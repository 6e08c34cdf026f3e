// Baseline: the rows of package_create written straight through @libsql/client, one batch per dataset.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { InStatement } from '@libsql/client'
import { openCatalogDb } from '../../src/runtime/node-db'
import type { GeneratedDataset } from './generate'

export async function rawInsertDatasets(datasets: GeneratedDataset[]) {
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-raw-'))
  const { client } = await openCatalogDb(`file:${join(dir, 'raw.db')}`)
  const now = new Date().toISOString().slice(0, 23) + '000'
  const started = performance.now()
  for (const d of datasets) {
    const id = crypto.randomUUID()
    const stmts: InStatement[] = [
      {
        sql: `INSERT INTO package (id, name, title, type, owner_org, private, state, license_id, notes, metadata_created, metadata_modified)
              VALUES (?, ?, ?, 'dataset', ?, 0, 'active', ?, ?, ?, ?)`,
        args: [id, d.name, d.title, d.owner_org ?? null, d.license_id, d.notes, now, now],
      },
    ]
    d.resources.forEach((r, i) =>
      stmts.push({
        sql: `INSERT INTO resource (id, package_id, url, format, description, name, created, metadata_modified, position)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [crypto.randomUUID(), id, r.url, r.format, r.description, r.name, now, now, i],
      }),
    )
    for (const t of d.tags) {
      stmts.push({ sql: `INSERT OR IGNORE INTO tag (id, name, vocabulary_id) VALUES (?, ?, '')`, args: [crypto.randomUUID(), t.name] })
      stmts.push({
        sql: `INSERT INTO package_tag (id, package_id, tag_id, state) SELECT ?, ?, id, 'active' FROM tag WHERE name = ? AND vocabulary_id = ''`,
        args: [crypto.randomUUID(), id, t.name],
      })
    }
    for (const e of d.extras)
      stmts.push({ sql: `INSERT INTO package_extra (id, package_id, key, value) VALUES (?, ?, ?, ?)`, args: [crypto.randomUUID(), id, e.key, e.value] })
    await client.batch(stmts, 'write')
  }
  const seconds = (performance.now() - started) / 1000
  client.close()
  return { rate: datasets.length / seconds, seconds }
}
