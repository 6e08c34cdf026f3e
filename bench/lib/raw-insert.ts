// Baseline for package_create: the rows it stores for a dataset, written the fastest honest way
// in one thread: libsql's synchronous API, prepared statements, one transaction per dataset (each
// dataset committed before the next, as each create is acknowledged). The same rows: the package,
// its resources and their default views, tags and their links, extras, the activity (the dict
// deflated, as packedText stores it), the change-log row (its trigger runs) and the stored dict.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'
import Database from 'libsql'
import { openCatalogDb } from '../../src/runtime/node-db'
import type { GeneratedDataset } from './generate'

/** The formats CKAN's default recline_view is made for (src/model/view-types.ts). */
const RECLINE = new Set(['csv', 'xls', 'xlsx', 'ods', 'tsv'])

export async function rawInsertDatasets(datasets: GeneratedDataset[]) {
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-raw-'))
  const file = join(dir, 'raw.db')
  // migrated as the server's database is, then written through the synchronous driver
  const opened = await openCatalogDb(`file:${file}`)
  opened.client.close()
  const db = new Database(file)
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000')
  const now = new Date().toISOString().slice(0, 23) + '000'
  const put = {
    pkg: db.prepare(
      `INSERT INTO package (id, name, title, type, owner_org, private, state, license_id, notes, creator_user_id, metadata_created, metadata_modified)
       VALUES (?, ?, ?, 'dataset', ?, 0, 'active', ?, ?, ?, ?, ?)`,
    ),
    res: db.prepare(
      `INSERT INTO resource (id, package_id, url, format, description, name, created, metadata_modified, position)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    view: db.prepare(`INSERT INTO resource_view (id, resource_id, title, description, view_type, "order", config) VALUES (?, ?, 'Data Explorer', '', 'recline_view', 0, '{}')`),
    tag: db.prepare(`INSERT OR IGNORE INTO tag (id, name, vocabulary_id) VALUES (?, ?, '')`),
    link: db.prepare(`INSERT INTO package_tag (id, package_id, tag_id, state) SELECT ?, ?, id, 'active' FROM tag WHERE name = ? AND vocabulary_id = ''`),
    extra: db.prepare(`INSERT INTO package_extra (id, package_id, key, value) VALUES (?, ?, ?, ?)`),
    activity: db.prepare(`INSERT INTO activity (id, timestamp, user_id, object_id, activity_type, data) VALUES (?, ?, ?, ?, 'new package', ?)`),
    log: db.prepare(`INSERT INTO change_log (entity_type, entity_id, op, detail) VALUES ('package', ?, 'upsert', 'created:public')`),
    dict: db.prepare(`INSERT OR REPLACE INTO package_json (package_id, fp, dict) VALUES (?, '1.raw', ?)`),
  }
  const userId = crypto.randomUUID()
  const started = performance.now()
  for (const d of datasets) {
    const id = crypto.randomUUID()
    const resources = d.resources.map((r, i) => ({ ...r, id: crypto.randomUUID(), package_id: id, position: i, created: now }))
    // the bytes of the two deflated rows are part of the work: a dict of the same fields and size
    const text = JSON.stringify({
      ...d,
      id,
      type: 'dataset',
      state: 'active',
      private: false,
      metadata_created: now,
      metadata_modified: now,
      resources,
      tags: d.tags.map((t) => ({ ...t, display_name: t.name, state: 'active', vocabulary_id: null })),
    })
    const dictBytes = deflateRawSync(Buffer.from(text))
    const activityBytes = deflateRawSync(Buffer.from(`{"package":${text},"actor":"admin"}`))
    db.exec('BEGIN IMMEDIATE')
    try {
      put.pkg.run(id, d.name, d.title, d.owner_org ?? null, d.license_id, d.notes, userId, now, now)
      for (const r of resources) {
        put.res.run(r.id, id, r.url, r.format, r.description, r.name, now, now, r.position)
        if (RECLINE.has(r.format.toLowerCase())) put.view.run(crypto.randomUUID(), r.id)
      }
      for (const t of d.tags) {
        put.tag.run(crypto.randomUUID(), t.name)
        put.link.run(crypto.randomUUID(), id, t.name)
      }
      for (const e of d.extras) put.extra.run(crypto.randomUUID(), id, e.key, e.value)
      put.activity.run(crypto.randomUUID(), now, userId, id, activityBytes)
      put.log.run(id)
      put.dict.run(id, dictBytes)
      db.exec('COMMIT')
    } catch (e) {
      db.exec('ROLLBACK')
      throw e
    }
  }
  const seconds = (performance.now() - started) / 1000
  db.close()
  return { rate: datasets.length / seconds, seconds }
}
