// datastore_info's CKAN 2.10 answer: the table's meta (row count, sizes, aliases) and its fields
// with their native schema. CKAN 2.9's answer (schema, meta.count) is built by the action.
import { pgTypeName } from './column-types'
import { internalNames, quoteIdent } from './ident'
import { fieldDict, type DsTable } from './registry'
import type { DatastoreReader } from './store'

/** PostgreSQL's schema details of a column, as CKAN 2.10's datastore_info reports them. */
export interface ColumnSchema {
  native_type: string
  notnull: boolean
  index_name: string | null
  is_index: boolean
  uniquekey: boolean
}

/** The FTS5 shadow tables of a table's full-text index (contentless: no _content). */
const ftsShadows = (id: string) =>
  ['data', 'idx', 'docsize', 'config'].map((s) => `${internalNames(id).fts}_${s}`)

/** Bytes of each named b-tree (SQLite's dbstat walks their pages); null where dbstat is missing. */
async function btreeBytes(db: DatastoreReader, names: string[]): Promise<Map<string, number> | null> {
  try {
    const { rows } = await db.query(
      `SELECT name, sum(pgsize) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')}) GROUP BY name`,
      names,
    )
    return new Map(rows.map((r) => [String(r[0]), Number(r[1])]))
  } catch {
    return null
  }
}

async function databaseBytes(db: DatastoreReader): Promise<number | null> {
  try {
    const { rows } = await db.query('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()')
    return Number(rows[0]?.[0] ?? 0)
  } catch {
    return null
  }
}

/**
 * CKAN 2.10's datastore_info: `meta` (id, count, table_type, size, db_size, idx_size, aliases,
 * newest first as PostgreSQL's `_table_metadata` lists them) and the user columns (no `_id`), each
 * with `schema`. The key and indexes are unique and plain indexes here as in CKAN (no
 * constraint, so `uniquekey` is false); a column in several indexes names the last. Sizes come
 * from SQLite's dbstat: idx_size counts the key, the indexes and the full-text index.
 */
export async function tableInfo(db: DatastoreReader, t: DsTable) {
  const names = internalNames(t.id)
  const indexOf = new Map<string, string>()
  const indexes: string[] = []
  if (t.primary_key.length) {
    indexes.push(names.pk)
    for (const c of t.primary_key) indexOf.set(c, names.pk)
  }
  t.indexes.forEach((cols, i) => {
    indexes.push(names.index(i))
    for (const c of cols) indexOf.set(c, names.index(i))
  })
  const [count, aliases, bytes, dbSize] = await Promise.all([
    db.query(`SELECT count(*) FROM ${quoteIdent(t.id)}`),
    db.query('SELECT name FROM _ds_alias WHERE table_id = ? ORDER BY rowid DESC', [t.id]),
    btreeBytes(db, [t.id, ...indexes, ...ftsShadows(t.id)]),
    databaseBytes(db),
  ])
  const sum = (ns: string[]) => (bytes ? ns.reduce((n, x) => n + (bytes.get(x) ?? 0), 0) : null)
  return {
    meta: {
      id: t.id,
      count: Number(count.rows[0]?.[0] ?? 0),
      table_type: 'BASE TABLE',
      size: sum([t.id]),
      db_size: dbSize,
      idx_size: sum([...indexes, ...ftsShadows(t.id)]),
      aliases: aliases.rows.map((r) => String(r[0])),
    },
    fields: t.columns.map((c, i) => {
      const index = indexOf.get(c.id) ?? null
      const schema: ColumnSchema = {
        native_type: pgTypeName(t.types[i]!),
        notnull: false,
        index_name: index,
        is_index: index !== null,
        uniquekey: false,
      }
      return { ...fieldDict(c), schema }
    }),
  }
}
