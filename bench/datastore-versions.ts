// BENCH_ONLY=versions: table versions (issue 34) on the DataStore bench's table (BENCH_DS_ROWS rows,
// default 1,000,000, 10 mixed columns, keyed by id): BENCH_VERSIONS versions (5) each updating 1 %
// of the rows; the history's bytes per version beside the table's, a versioned upsert's time beside
// the same upsert on an unversioned copy, and the p50 of datastore_search as_of the oldest version
// beside the current one (same filter and page), through the action's own code path.
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createOrAlter } from '../src/datastore/create'
import { requireTable } from '../src/datastore/registry'
import { searchTable } from '../src/datastore/search'
import type { SearchSpec } from '../src/datastore/query'
import { asOfSearch, resolveVersion, tableAt } from '../src/datastore/versions'
import { upsertRecords } from '../src/datastore/writes'
import { openDatastore } from '../src/runtime/node-datastore'
import { DS_FIELDS, dsBatch } from './lib/ds-rows'
import { nowIso } from '../src/context'
import type { DatastoreDb } from '../src/datastore/store'

type Log = (line: string) => void

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1) + ' MB'

async function bytesOf(db: DatastoreDb, names: string[]): Promise<number> {
  const { rows } = await db.query(
    `SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`,
    names,
  )
  return Number(rows[0]![0])
}

export async function versionsBench(log: Log = console.log) {
  const rows = Number(process.env.BENCH_DS_ROWS ?? 1_000_000)
  const versions = Number(process.env.BENCH_VERSIONS ?? 5)
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-versions-'))
  const now = nowIso
  const db = await openDatastore(`file:${join(dir, 'datastore.db')}`)
  const ids = { versioned: '0b1f3c55-0000-4000-8000-0000000000a1', plain: '0b1f3c55-0000-4000-8000-0000000000b1' }
  try {
    const fields = DS_FIELDS.map((f) => ({ id: f.id, type: f.type }))
    let started = performance.now()
    for (const id of Object.values(ids)) {
      await createOrAlter(db, { id, fields, primary_key: ['id'], indexes: [['category']] }, now)
      for (let from = 0; from < rows; from += 10_000)
        await upsertRecords(db, id, dsBatch(from, Math.min(10_000, rows - from)), 'insert', { now })
    }
    log(`loaded 2 × ${rows.toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    // versioning turned on for one of the two: its history starts empty
    await createOrAlter(db, { id: ids.versioned, versioned: true }, now)
    const tableNames = (id: string) => [id, `_fts_${id}`, `_fts_${id}_data`, `_fts_${id}_idx`, `_fts_${id}_docsize`, `_fts_${id}_config`, `_pk_${id}`, `_idx_${id}_0`]
    const histNames = (id: string) => [`_hist_${id}`, `_hidx_${id}`, ...[0, 1, 2, 3].map((n) => `_hidx_${id}_${n}`)]
    const tableBytes = await bytesOf(db, tableNames(ids.versioned))
    const plainBytes = await bytesOf(db, tableNames(ids.plain))
    log(`table: ${mb(tableBytes)} with its indexes and full-text index (the unversioned copy: ${mb(plainBytes)})`)

    const changed = Math.max(1, Math.floor(rows / 100))
    const times = { versioned: [] as number[], plain: [] as number[] }
    let previous = 0
    const perVersion: { version: number; historyBytes: number; added: number }[] = []
    for (let v = 0; v < versions; v++) {
      // 1 % of the rows, spread over the table, get a new amount and note
      const batch: Record<string, unknown>[] = []
      const step = Math.floor(rows / changed)
      for (let k = 0; k < changed; k++) {
        const id = ((k * step + v * 7919) % rows) + 1
        batch.push({ id, amount: v * 1000 + k / 1000, note: `changed in round ${v}` })
      }
      for (const which of ['versioned', 'plain'] as const) {
        started = performance.now()
        for (let i = 0; i < batch.length; i += 5_000)
          await upsertRecords(db, ids[which], batch.slice(i, i + 5_000), 'update', { now })
        times[which].push(performance.now() - started)
      }
      const h = await bytesOf(db, histNames(ids.versioned))
      perVersion.push({ version: v + 1, historyBytes: h - previous, added: h })
      log(`version round ${v + 1}: ${changed.toLocaleString('en-US')} rows changed, history +${mb(h - previous)} (${Math.round((h - previous) / changed)} bytes a row) (total ${mb(h)}, ${((h / tableBytes) * 100).toFixed(2)} % of the table); update ${times.versioned.at(-1)!.toFixed(0)} ms versioned, ${times.plain.at(-1)!.toFixed(0)} ms unversioned`)
      previous = h
    }
    const sumV = times.versioned.reduce((a, b) => a + b, 0)
    const sumP = times.plain.reduce((a, b) => a + b, 0)
    log(`update of 1 % of the rows: ${(sumV / versions).toFixed(0)} ms versioned vs ${(sumP / versions).toFixed(0)} ms unversioned (${(sumV / sumP).toFixed(2)}×)`)

    const t = await requireTable(db, ids.versioned)
    const { rows: vr } = await db.query('SELECT min(version) FROM _ds_version WHERE table_id = ?', [t.id])
    const oldest = await resolveVersion(db, t, Number(vr[0]![0]), 'as_of', now())
    const base: SearchSpec = { plain: true, language: 'english', distinct: false, limit: 100, offset: 0 }
    const cases: [string, SearchSpec, boolean][] = [
      ['first page, with total', base, true],
      ['category = 7, with total', { ...base, filters: { category: 7 } }, true],
      ['category = 7, page only', { ...base, filters: { category: 7 } }, false],
      ['page at offset 5000 by _id', { ...base, offset: 5000 }, false],
      ['page after _id 5000 (keyset), by _id', { ...base, filters: { _id: { gt: 5000 } } }, false],
      ['amount > 5000 sorted by amount, page', { ...base, filters: { amount: { gt: 5000 } }, sort: 'amount' }, false],
    ]
    const runs = Number(process.env.BENCH_VERSIONS_RUNS ?? 21)
    for (const [label, spec, total] of cases) {
      const time = async (asOf: boolean) => {
        const ms: number[] = []
        for (let i = 0; i < runs; i++) {
          const s = performance.now()
          if (asOf) {
            // as the action: the version's total when nothing is filtered
            const unfiltered = !spec.filters
            await searchTable(db, tableAt(t, oldest), { ...spec, ...asOfSearch(t, oldest, spec.filters) }, total && !unfiltered)
          } else await searchTable(db, t, spec, total)
          ms.push(performance.now() - s)
        }
        return p50(ms)
      }
      const cur = await time(false)
      const old = await time(true)
      log(`datastore_search ${label}: current p50 ${cur.toFixed(2)} ms, as_of version ${oldest.version} p50 ${old.toFixed(2)} ms (${(old / cur).toFixed(2)}×)`)
    }
    return { rows, tableBytes, perVersion, times }
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
