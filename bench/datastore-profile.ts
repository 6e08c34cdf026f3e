// BENCH_ONLY=profile: the column profile job (src/datastore/profile.ts) on the DataStore bench's
// table (BENCH_DS_ROWS rows, default 1,000,000, 10 mixed columns): its time and the process's peak
// memory, exact (every distinct count and frequent value over all rows) and estimated from the
// ~100,000-row sample (service.datastore.profile.exact_rows below the table's size).
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { mkdtempSync } from 'node:fs'
import { computeProfile } from '../src/datastore/profile'
import { openDatastore } from '../src/runtime/node-datastore'
import { benchTable, rawTable } from './lib/ds-raw'
import { dsBatch } from './lib/ds-rows'
import { watchPeak } from './lib/rss'

type Log = (line: string) => void

export interface ProfileFigures {
  rows: number
  exact: { seconds: number; peakMb: number; beforeMb: number }
  sampled: { seconds: number; peakMb: number; beforeMb: number }
}

export async function profileBench(log: Log = console.log): Promise<ProfileFigures> {
  const rows = Number(process.env.BENCH_DS_ROWS ?? 1_000_000)
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-profile-'))
  const path = join(dir, 'datastore.db')
  try {
    const table = benchTable('0b1f3c55-0000-4000-8000-00000000b0f1')
    const raw = await rawTable(path, table)
    for (let from = 0; from < rows; from += 10_000) await raw.insert(dsBatch(from, Math.min(10_000, rows - from)))
    raw.close()
    const db = await openDatastore(`file:${path}`)
    const run = async (exactRows: number) => {
      global.gc?.()
      const peak = watchPeak(process.pid)
      const started = performance.now()
      const p = await computeProfile(db, table, { exactRows })
      const seconds = (performance.now() - started) / 1000
      const { peak: bytes } = peak.stop()
      if (p.rows !== rows) throw new Error(`profile counted ${p.rows} rows, not ${rows}`)
      // the process also built the table: its RSS before the profile is printed beside the peak
      return { seconds, peakMb: bytes / 2 ** 20, beforeMb: peak.before / 2 ** 20 }
    }
    const exact = await run(rows)
    const sampled = await run(Math.min(100_000, rows - 1))
    db.close()
    log(`profile of ${rows.toLocaleString('en-US')} rows × ${table.columns.length} columns, exact:    ${exact.seconds.toFixed(2)} s, RSS ${exact.beforeMb.toFixed(0)} → peak ${exact.peakMb.toFixed(0)} MB`)
    log(`profile of ${rows.toLocaleString('en-US')} rows × ${table.columns.length} columns, sampled:  ${sampled.seconds.toFixed(2)} s, RSS ${sampled.beforeMb.toFixed(0)} → peak ${sampled.peakMb.toFixed(0)} MB`)
    return { rows, exact, sampled }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
