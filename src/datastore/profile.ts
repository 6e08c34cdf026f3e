// Column profiles of a DataStore table (datastore_info include_profile): per column the non-null
// and null counts, the distinct count, min/max, the mean of numbers, the most frequent values and
// a histogram of numbers and dates. Computed by a background job (jobs/datastore-profile.ts) once
// per table version, stored in `_ds_profile` beside the table, served as stored: a profile of an
// older version is answered as stale while the job computes the new one; a write never waits.
//
// Every figure comes from SQLite in aggregate queries over the table (nothing is read into the
// process but the answers): one pass for the counts, min, max and means of every column, then per
// column one GROUP BY for its most frequent values (skipped for a column whose values are nearly
// all different) and one for its histogram. Distinct counts are
// exact up to `service.datastore.profile.exact_rows` rows (one COUNT(DISTINCT …) pass); above it
// they are estimated from a systematic sample (every k-th row by _id, about SAMPLE_ROWS rows) with
// the GEE estimator (Charikar et al. 2000: D = sqrt(n/r)·f1 + Σ_{j≥2} f_j, where f_j is how many
// values occur j times in the sample; its error ratio is at most sqrt(n/r)), or the non-null count
// when every sampled value was distinct; the most frequent values come from the same sample with
// their counts scaled by k.
import type { ColumnType } from './column-types'
import { quoteIdent } from './ident'
import type { DsTable } from './registry'
import type { DatastoreDb, DatastoreReader } from './store'
import { makeDecoder } from './values'

export const PROFILE_DDL = [
  `CREATE TABLE IF NOT EXISTS _ds_profile (
     table_id TEXT PRIMARY KEY, version INTEGER NOT NULL, computed TEXT NOT NULL,
     seconds REAL NOT NULL, profile TEXT NOT NULL)`,
  // a table dropped, or made anew under the same id (its version starts again at 1), has no profile
  `CREATE TRIGGER IF NOT EXISTS _ds_profile_drop AFTER DELETE ON _ds_table
     BEGIN DELETE FROM _ds_profile WHERE table_id = old.id; END`,
  `CREATE TRIGGER IF NOT EXISTS _ds_profile_new AFTER INSERT ON _ds_table
     BEGIN DELETE FROM _ds_profile WHERE table_id = new.id; END`,
]

/** Values listed as the most frequent, and bins of a histogram. */
export const TOP_VALUES = 10
export const HISTOGRAM_BINS = 20
/** A column with more distinct values than this share of its values lists no most frequent ones. */
export const NEARLY_UNIQUE = 0.9
/** Rows of the sample that distinct counts and frequent values are estimated from above the bound. */
export const SAMPLE_ROWS = 100_000

export interface ColumnProfile {
  id: string
  type: string
  /** Non-null values. */
  count: number
  null_count: number
  distinct: number
  /** True when `distinct` is the sample's GEE estimate (the table has more than exact_rows rows). */
  distinct_estimated?: true
  min?: unknown
  max?: unknown
  /** Numbers only. */
  mean?: number
  /** The most frequent values, most frequent first (ties by value); counts scaled from the sample when estimated. */
  top: { value: unknown; count: number }[]
  top_estimated?: true
  /** Numbers, dates and timestamps: equal-width bins from min to max (`to` of the last bin included). */
  histogram?: { from: unknown; to: unknown; count: number }[]
}

export interface TableProfile {
  rows: number
  columns: ColumnProfile[]
}

export interface StoredProfile {
  /** The table version it describes. */
  version: number
  computed: string
  seconds: number
  profile: TableProfile
}

type Kind = 'number' | 'date' | 'other'

/** How a column is profiled: numbers (mean, histogram), dates and times (histogram), other. */
function kindOf(t: ColumnType): Kind {
  if (t.array) return 'other'
  if (t.kind === 'int' || t.kind === 'float' || t.kind === 'numeric') return 'number'
  if (t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'timestamptz') return 'date'
  return 'other'
}

/** Whether min and max mean something for values of this type (not lists, JSON or booleans). */
const ordered = (t: ColumnType) => !t.array && t.kind !== 'json' && t.kind !== 'bool' && t.kind !== 'other'

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v))

/** A Julian day number as the ISO text of a date (`date`) or a timestamp. */
function fromJulian(jd: number, date: boolean): string {
  const ms = Math.round((jd - 2440587.5) * 86_400_000)
  const iso = new Date(ms).toISOString()
  return date ? iso.slice(0, 10) : iso.slice(0, 19)
}

/**
 * Computes the profile of table `t` from `db`. `exactRows`: up to this many rows, distinct
 * counts and frequent values are exact. `deadline` (ms since the epoch): stop between columns past it.
 */
export async function computeProfile(
  reader: DatastoreReader,
  t: DsTable,
  opts: { exactRows: number; deadline?: number; sampleRows?: number },
): Promise<TableProfile> {
  const table = quoteIdent(t.id)
  // through the SQL runner where there is one (Node: off the event loop and interruptible; a
  // remote database: an aborting request), so a profile of a big table holds up no request
  const db = readerOf(reader, opts.deadline)
  const cols = t.columns.map((c, i) => ({ id: c.id, q: quoteIdent(c.id), type: t.types[i]!, kind: kindOf(t.types[i]!) }))
  // one pass: rows, and per column non-nulls, min, max (ordered types) and mean (numbers)
  const parts = ['count(*)']
  for (const c of cols) {
    parts.push(`count(${c.q})`)
    if (ordered(c.type)) parts.push(`min(${c.q})`, `max(${c.q})`)
    if (c.kind === 'number') parts.push(`avg(${c.q})`)
    if (c.kind === 'date') parts.push(`min(julianday(${c.q}))`, `max(julianday(${c.q}))`)
  }
  const first = (await db.query(`SELECT ${parts.join(', ')} FROM ${table}`)).rows[0] ?? []
  const rows = num(first[0])
  const exact = rows <= opts.exactRows
  const step = exact ? 1 : Math.ceil(rows / (opts.sampleRows ?? SAMPLE_ROWS))
  const sampled = exact ? '' : ` AND _id % ${step} = 0`

  let at = 1
  const base = cols.map((c) => {
    const count = num(first[at++])
    const out: { count: number; min?: unknown; max?: unknown; mean?: number; jmin?: number; jmax?: number } = { count }
    if (ordered(c.type)) {
      out.min = first[at++]
      out.max = first[at++]
    }
    if (c.kind === 'number') {
      if (first[at] !== null) out.mean = Number(first[at])
      at++
    }
    if (c.kind === 'date') {
      out.jmin = first[at] === null ? undefined : Number(first[at])
      at++
      out.jmax = first[at] === null ? undefined : Number(first[at])
      at++
    }
    return out
  })

  // exact distinct counts in one more pass, where the table is small enough
  let distinct: number[] = []
  if (exact && cols.length) {
    const d = (await db.query(`SELECT ${cols.map((c) => `count(DISTINCT ${c.q})`).join(', ')} FROM ${table}`)).rows[0] ?? []
    distinct = cols.map((_, i) => num(d[i]))
  }

  const out: ColumnProfile[] = []
  for (const [i, c] of cols.entries()) {
    if (opts.deadline !== undefined && Date.now() > opts.deadline)
      throw new Error(`the profile of ${t.id} took longer than its time budget (at column ${c.id})`)
    const dec = makeDecoder(c.type)
    const decode = (v: unknown) => (v === null || v === undefined ? null : dec(v))
    const b = base[i]!
    const p: ColumnProfile = { id: c.id, type: c.type.name, count: b.count, null_count: rows - b.count, distinct: 0, top: [] }
    if (exact) p.distinct = distinct[i]!
    else {
      // GEE over the sample: how many values occur once, twice, … among the sampled non-nulls
      const freq = await db.query(
        `SELECT cnt, count(*) FROM (SELECT count(*) AS cnt FROM ${table} WHERE ${c.q} IS NOT NULL${sampled} GROUP BY ${c.q}) GROUP BY cnt`,
      )
      let r = 0
      let seen = 0
      let once = 0
      for (const [cnt, n] of freq.rows) {
        r += num(cnt) * num(n)
        seen += num(n)
        if (num(cnt) === 1) once = num(n)
      }
      // every sampled value seen once: a column of distinct values (GEE would say sqrt(n/r)·r,
      // its lowest guess); else GEE
      const estimate = !r ? 0 : once === r ? b.count : Math.sqrt(b.count / r) * once + (seen - once)
      p.distinct = Math.round(Math.min(b.count, Math.max(seen, estimate)))
      p.distinct_estimated = true
    }
    if (ordered(c.type)) {
      p.min = decode(b.min)
      p.max = decode(b.max)
    }
    if (b.mean !== undefined) p.mean = b.mean
    // the most frequent values: none listed for a column of (nearly) all-different values, where
    // they would be a few values seen twice (and the grouping costs the most)
    if (b.count && p.distinct < NEARLY_UNIQUE * b.count) {
      const top = await db.query(
        `SELECT ${c.q}, count(*) AS n FROM ${table} WHERE ${c.q} IS NOT NULL${sampled} GROUP BY ${c.q} ORDER BY n DESC, ${c.q} LIMIT ${TOP_VALUES}`,
      )
      p.top = top.rows.map(([v, n]) => ({ value: decode(v), count: num(n) * step }))
      if (!exact) p.top_estimated = true
    }
    const histogram = await histogramOf(db, table, c, b)
    if (histogram) p.histogram = histogram
    out.push(p)
  }
  return { rows, columns: out }
}

/** Queries of a profile: through the reader's SQL runner when it has one, else the reader itself. */
function readerOf(reader: DatastoreReader, deadline?: number): Pick<DatastoreReader, 'query'> {
  const runner = reader.sql
  if (!runner) return reader
  return {
    async query(sql, args) {
      const timeoutMs = deadline === undefined ? 3_600_000 : Math.max(1, deadline - Date.now())
      const r = await runner.run(sql, { timeoutMs, maxRows: SAMPLE_ROWS + 1, args })
      return { columns: r.columns.map((c) => c.name), rows: r.rows }
    },
  }
}

async function histogramOf(
  db: Pick<DatastoreReader, 'query'>,
  table: string,
  c: { q: string; kind: Kind; type: ColumnType },
  b: { count: number; min?: unknown; max?: unknown; jmin?: number; jmax?: number },
): Promise<ColumnProfile['histogram']> {
  if (!b.count || c.kind === 'other') return undefined
  const date = c.kind === 'date'
  const lo = date ? b.jmin : Number(b.min)
  const hi = date ? b.jmax : Number(b.max)
  if (lo === undefined || hi === undefined || !Number.isFinite(lo) || !Number.isFinite(hi)) return undefined
  const edge = (x: number) => (date ? fromJulian(x, c.type.kind === 'date') : x)
  if (lo === hi) return [{ from: edge(lo), to: edge(hi), count: b.count }]
  const bins = HISTOGRAM_BINS
  const width = (hi - lo) / bins
  const value = date ? `julianday(${c.q})` : c.q
  const res = await db.query(
    `SELECT min(CAST((${value} - ?) / ? AS INTEGER), ${bins - 1}) AS b, count(*) FROM ${table} WHERE ${value} IS NOT NULL GROUP BY b`,
    [lo, width],
  )
  const counts = new Array<number>(bins).fill(0)
  for (const [bin, n] of res.rows) counts[Math.max(0, Math.min(bins - 1, num(bin)))]! += num(n)
  return counts.map((count, i) => ({ from: edge(lo + i * width), to: edge(i === bins - 1 ? hi : lo + (i + 1) * width), count }))
}

/** The stored profile of a table, if any (of whatever version). */
export async function readProfile(db: DatastoreReader, tableId: string): Promise<StoredProfile | undefined> {
  const { rows } = await db.query('SELECT version, computed, seconds, profile FROM _ds_profile WHERE table_id = ?', [tableId])
  const r = rows[0]
  if (!r) return undefined
  return { version: num(r[0]), computed: String(r[1]), seconds: num(r[2]), profile: JSON.parse(String(r[3])) as TableProfile }
}

/** What a cached answer with the profile depends on: the stored profile's version and time ('-': none). */
export async function profileStamp(db: DatastoreReader, tableId: string): Promise<string> {
  const { rows } = await db.query('SELECT version, computed FROM _ds_profile WHERE table_id = ?', [tableId])
  return rows[0] ? `${rows[0][0]}@${rows[0][1]}` : '-'
}

/** Stores a profile for its version, unless the table is gone (no profile of a dropped table is kept). */
export async function saveProfile(db: DatastoreDb, tableId: string, stored: StoredProfile) {
  await db.write([
    {
      sql: `INSERT INTO _ds_profile (table_id, version, computed, seconds, profile)
              SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM _ds_table WHERE id = ?)
            ON CONFLICT (table_id) DO UPDATE SET version = excluded.version, computed = excluded.computed,
              seconds = excluded.seconds, profile = excluded.profile`,
      args: [tableId, stored.version, stored.computed, stored.seconds, JSON.stringify(stored.profile), tableId],
    },
  ])
}
