// Replaces a table's rows atomically for the loader: rows go into a shadow table with its own
// full-text index, then one batch drops the old table and renames the shadow into its place.
import type { RawStatement } from '../db/executor'
import type { ColumnType } from './column-types'
import {
  aliasStatements,
  createTableStatements,
  dropFtsTriggerStatements,
  dropTableStatements,
  ftsTriggerStatements,
  indexStatements,
  uniqueKeyStatements,
} from './ddl'
import { tableTransform } from './functions'
import { internalNames, quoteIdent } from './ident'
import { insertRecords, type Row } from './records'
import {
  aliasesOf,
  findTable,
  saveTableStmt,
  writeGuard,
  writeGuarded,
  type DsColumn,
  type DsTable,
  type TableMeta,
} from './registry'
import type { DatastoreDb } from './store'
import { closeAllStatements, historyTableStatements, historyTriggerStatements, recordVersionStmt } from './versions'

/**
 * The shadow's name: `_` keeps it out of reach of every action (no resource id starts with one)
 * and out of `_table_metadata`, which lists only catalogued tables.
 */
export const shadowName = (id: string) => `_load_${id}`

export interface Replacement {
  /** The shadow as the DataStore's write path sees it (column types, trigger functions). */
  readonly table: DsTable
  /** Appends rows (values checked and stored as datastore_upsert's insert does) in one transaction. */
  insert(rows: Row[]): Promise<void>
  /** Swaps the shadow in: readers see the old rows until this commits, then only the new ones. */
  commit(): Promise<void>
  /** Drops the shadow (a failed load): the old table stays as it was. */
  abandon(): Promise<void>
}

/**
 * Starts replacing table `id` with `columns`: the key, indexes, aliases and triggers of the
 * present table carry over when their columns still exist. A shadow left by a load that died is
 * dropped first.
 */
export async function startReplacement(
  db: DatastoreDb,
  id: string,
  columns: DsColumn[],
  types: ColumnType[],
  now: () => string,
): Promise<Replacement> {
  const shadow = shadowName(id)
  const existing = await findTable(db, id)
  const names = new Set(columns.map((c) => c.id))
  const keep = (cols: string[]) => cols.every((c) => names.has(c))
  const meta: TableMeta = {
    columns,
    primary_key: existing && keep(existing.primary_key) ? existing.primary_key : [],
    indexes: existing ? existing.indexes.filter(keep) : [],
    triggers: existing?.triggers ?? [],
    versioned: existing?.versioned,
  }
  const defs = columns.map((c, i) => ({ id: c.id, type: types[i]! }))
  const table: DsTable = {
    ...meta,
    id: shadow,
    version: 0,
    types,
    position: new Map(columns.map((c, i) => [c.id, i])),
  }
  await db.write([
    ...dropTableStatements(shadow, []),
    ...createTableStatements(shadow, defs),
    // a versioned table's _ids keep growing across the swap: "existed at version V" reads them
    ...(meta.versioned
      ? [{
          sql: 'INSERT INTO sqlite_sequence (name, seq) SELECT ?, seq FROM sqlite_sequence WHERE name = ?',
          args: [shadow, id],
        }]
      : []),
  ])
  const transform = await tableTransform(db, table, now)

  return {
    table,
    async insert(rows) {
      if (rows.length) await db.write(insertRecords(table, rows, 'insert', transform))
    },
    async commit() {
      await writeGuarded(db, async () => {
        const current = await findTable(db, id)
        const aliases = current ? await aliasesOf(db, id) : []
        const versioned = !!current?.versioned
        const n = internalNames(id)
        const stmts: RawStatement[] = [
          writeGuard(id, current?.version ?? 0),
          // the swap supersedes every row: their images are kept first
          ...(versioned ? closeAllStatements(id, current!.columns) : []),
          // the alias views name the table: they go first and come back over the new one
          ...dropTableStatements(id, aliases),
          ...dropFtsTriggerStatements(shadow),
          plain(`ALTER TABLE ${quoteIdent(shadow)} RENAME TO ${quoteIdent(id)}`),
          plain(
            `ALTER TABLE ${quoteIdent(internalNames(shadow).fts)} RENAME TO ${quoteIdent(n.fts)}`,
          ),
          ...ftsTriggerStatements(id, defs),
          ...(meta.primary_key.length ? uniqueKeyStatements(id, meta.primary_key) : []),
          ...indexStatements(id, 0, meta.indexes),
          ...aliasStatements(id, [], aliases),
          ...(versioned
            ? [...(await historyTableStatements(db, id, meta)), ...historyTriggerStatements(id, columns)]
            : []),
          saveTableStmt(id, { ...meta, versioned }, now(), current),
          ...(versioned ? [recordVersionStmt(id, 'load', now())] : []),
        ]
        await db.write(stmts)
      })
    },
    async abandon() {
      await db.write(dropTableStatements(shadow, []))
    },
  }
}

const plain = (sql: string): RawStatement => ({ sql, args: [] })
