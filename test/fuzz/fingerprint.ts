// A fingerprint of a SQLite database: the change log's length and newest seq, and a checksum of
// every table's rows, to show that a refused write left the database byte-for-byte unchanged.
import { createHash } from 'node:crypto'

/** Runs one read and answers its column names and rows (arrays of column values). */
export type Query = (sql: string) => Promise<{ columns: string[]; rows: unknown[][] }>

/** Tables left out (`'*'`) or columns of a table left out, each with its reason at the caller. */
export type Exclusions = Record<string, '*' | string[]>

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Column values as text for the hash: blobs as hex, bigints and numbers exactly. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return 'N'
  if (typeof v === 'string') return `s${v.length}:${v}`
  if (typeof v === 'number' || typeof v === 'bigint') return `n${v}`
  if (v instanceof ArrayBuffer) return `b${Buffer.from(v).toString('hex')}`
  if (ArrayBuffer.isView(v)) return `b${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`
  return `?${JSON.stringify(v)}`
}

/**
 * The tables of the database (sqlite_schema), each hashed over its rows in rowid order (all rows
 * sorted for a WITHOUT ROWID table), except `exclude`. Virtual tables are read through their
 * shadow tables, which are ordinary tables of the schema.
 */
export async function fingerprint(
  query: Query,
  exclude: Exclusions = {},
): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const tables = (
    await query("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name")
  ).rows as [string, string | null][]
  for (const [name, sql] of tables) {
    const ex = Object.hasOwn(exclude, name) ? exclude[name]! : []
    if (ex === '*' || /^\s*CREATE\s+VIRTUAL\b/i.test(sql ?? '')) continue
    let res: { columns: string[]; rows: unknown[][] } | undefined
    if (!/\bWITHOUT\s+ROWID\b/i.test(sql ?? '')) {
      // a table without a rowid refuses this: its rows are sorted instead, below
      res = await query(`SELECT _rowid_, * FROM ${quote(name)} ORDER BY _rowid_`).catch(
        () => undefined,
      )
    }
    const ordered = res !== undefined
    res ??= await query(`SELECT * FROM ${quote(name)}`)
    const keep = res.columns.map((c) => !ex.includes(c))
    const rows = res.rows
    const lines = rows.map((r) => r.filter((_, i) => keep[i]).map(cell).join('\u0001'))
    if (!ordered) lines.sort()
    const hash = createHash('sha256')
    for (const line of lines) hash.update(line).update('\u0000')
    out[name] = `${rows.length} rows ${hash.digest('hex').slice(0, 16)}`
  }
  if (tables.some(([name]) => name === 'change_log')) {
    const [[count, max]] = (await query('SELECT count(*), max(seq) FROM change_log')).rows as [
      [number, number | null],
    ]
    out['change_log (count, max seq)'] = `${count}, ${max}`
  }
  return out
}

/** The tables whose fingerprints differ. */
export function changed(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k])
}
