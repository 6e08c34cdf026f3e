// Benchmark: backup and restore (issue 33) of a catalogue of BENCH_BACKUP_DATASETS (100,000)
// bulk-filled datasets and a DataStore table of BENCH_BACKUP_ROWS (1,000,000) rows, on files.
// Reference: copying the same database files with copyFile after a checkpoint (the fastest way
// to move those bytes, though not a consistent backup of a running server); the ratio is ours
// over it. Restore includes checking every checksum and SQLite's integrity check of both files.
import { mkdtempSync, statSync } from 'node:fs'
import { copyFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import { bulkFill } from './lib/bulk-fill'
import { callAction } from '../src/actions/call'
import { loadConfig } from '../src/config/load'
import { systemContext } from '../src/context'
import { clientExecutor } from '../src/db/executor'
import { addSysadmin } from '../src/model/sysadmin'
import { backup, restore } from '../src/runtime/node-backup'
import { openDatastore } from '../src/runtime/node-datastore'
import { openCatalogDb } from '../src/runtime/node-db'
import { nodeBlobStore } from '../src/runtime/node-blob-store'
import { buildDeps } from '../src/runtime/deps'
import { TEST_PROFILE } from '../test/helpers/setup'

const DATASETS = Number(process.env.BENCH_BACKUP_DATASETS ?? 100_000)
const ROWS = Number(process.env.BENCH_BACKUP_ROWS ?? 1_000_000)

export async function backupBench() {
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-bench-backup-'))
  const paths = { catalogue: join(dir, 'data', 'catalogue.db'), datastore: join(dir, 'data', 'datastore.db'), storage: join(dir, 'data', 'uploads') }
  const opened = await openCatalogDb(`file:${paths.catalogue}`)
  const datastore = await openDatastore(`file:${paths.datastore}`)
  const deps = buildDeps(loadConfig(TEST_PROFILE), opened.db, { writeExecutor: opened.writeExecutor, readExecutor: opened.readExecutor, datastore, blobs: nodeBlobStore(paths.storage) })
  const admin = await addSysadmin(deps, 'admin')
  let t = performance.now()
  await bulkFill(opened.writeExecutor ?? clientExecutor(opened.client), DATASETS, { adminId: admin.id, seed: 7 })
  const ctx = { ...systemContext(deps), ignoreAuth: true }
  const pkg = await callAction<{ id: string }>(ctx, 'package_create', { name: 'backup-bench-table' })
  const created = await callAction<{ resource_id: string }>(ctx, 'datastore_create', {
    resource: { package_id: pkg.id, name: 'rows' },
    fields: [{ id: 'n', type: 'int' }, { id: 'word', type: 'text' }, { id: 'value', type: 'float' }],
  })
  for (let from = 0; from < ROWS; from += 100_000) {
    const records = Array.from({ length: Math.min(100_000, ROWS - from) }, (_, k) => ({ n: from + k, word: `word ${(from + k) % 997}`, value: (from + k) / 7 }))
    await callAction(ctx, 'datastore_upsert', { resource_id: created.resource_id, method: 'insert', records })
  }
  console.log(`  filled ${DATASETS} datasets and ${ROWS} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`)
  deps.search.stop()
  datastore.close()
  opened.close()
  for (const f of [paths.catalogue, paths.datastore]) {
    const db = new Database(f)
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    db.close()
  }
  const bytes = statSync(paths.catalogue).size + statSync(paths.datastore).size

  t = performance.now()
  await copyFile(paths.catalogue, join(dir, 'copy-catalogue.db'))
  await copyFile(paths.datastore, join(dir, 'copy-datastore.db'))
  const copySeconds = (performance.now() - t) / 1000

  t = performance.now()
  const made = await backup(paths, join(dir, 'backups'))
  const backupSeconds = (performance.now() - t) / 1000
  const backupBytes = made.manifest.catalogue.bytes + (made.manifest.datastore?.bytes ?? 0)

  const to = { catalogue: join(dir, 'restored', 'catalogue.db'), datastore: join(dir, 'restored', 'datastore.db'), storage: join(dir, 'restored', 'uploads') }
  t = performance.now()
  await restore(made.path, to)
  const restoreSeconds = (performance.now() - t) / 1000

  const mb = (n: number) => (n / 1e6).toFixed(0)
  console.log(`  databases: ${mb(bytes)} MB on disk; the backup's copies ${mb(backupBytes)} MB (compacted by VACUUM INTO)`)
  console.log(`  reference, copyFile of both files: ${copySeconds.toFixed(1)} s`)
  console.log(`  backup:  ${backupSeconds.toFixed(1)} s (${(backupSeconds / copySeconds).toFixed(1)}x the copy; VACUUM INTO + SHA-256 of each file)`)
  console.log(`  restore: ${restoreSeconds.toFixed(1)} s (${(restoreSeconds / copySeconds).toFixed(1)}x the copy; checksums, integrity checks, copy into place)`)
  return { datasets: DATASETS, rows: ROWS, bytes, backupBytes, copySeconds, backupSeconds, restoreSeconds }
}
