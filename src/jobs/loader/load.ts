// Loads a file's rows into a resource's DataStore table: header check, type guess from a sample,
// multi-row batches into a shadow table, then the atomic swap (src/datastore/replace.ts).
import type { Deps } from '../../context'
import { parseType, type ColumnType } from '../../datastore/column-types'
import { coercers, type Row } from '../../datastore/records'
import { findTable } from '../../datastore/registry'
import { startReplacement } from '../../datastore/replace'
import { ValueError } from '../../datastore/values'
import { checkHeaders, columnsOf, guessTypes, overrides, SAMPLE_ROWS } from './columns'
import { LoadError } from './errors'
import { fileRows, type Cells, type FileKind } from './rows'
import { pruneVersions } from '../../datastore/versions'

/** Rows per write transaction: big enough to amortise a commit, small enough to keep memory flat. */
export const BATCH_ROWS = 5000

export interface LoadOptions {
  /** Opens the file's bytes; called again when the load restarts. */
  open: () => Promise<ReadableStream<Uint8Array>>
  kind: FileKind
  /** Called after each batch is written, with the rows loaded so far. */
  progress?: (rows: number) => Promise<void> | void
  /** Called once every row is in the shadow table, before the swap; a throw abandons the load. */
  beforeCommit?: () => Promise<void>
}

/** A guessed type that a value past the sample does not fit: the load restarts with it as text. */
class Retype extends Error {
  constructor(readonly column: number) {
    super('retype')
  }
}

/**
 * Loads and swaps in the rows; returns how many. Types are guessed from the first SAMPLE_ROWS
 * rows in one pass; when a later value does not fit its column's guess, the load starts again
 * from the top with that column as text (rare, and cheaper than reading every file twice).
 * A type_override is never relaxed: a value that does not fit it fails the load.
 */
export async function loadTable(deps: Deps, id: string, opts: LoadOptions): Promise<number> {
  const db = deps.datastore
  if (!db) throw new LoadError('The DataStore is not configured (set DATASTORE_URL).')
  const retyped = new Map<number, string>()
  for (;;) {
    try {
      return await loadOnce(deps, id, opts, retyped)
    } catch (e) {
      if (!(e instanceof Retype)) throw e
      retyped.set(e.column, 'text')
    }
  }
}

async function loadOnce(deps: Deps, id: string, opts: LoadOptions, retyped: Map<number, string>) {
  const db = deps.datastore!
  const rows = fileRows(deps, await opts.open(), opts.kind)[Symbol.asyncIterator]()
  try {
    const head = await rows.next()
    if (head.done) throw new LoadError('The file is empty: it has no header row')
    const ids = checkHeaders(head.value)
    const sample: Cells[] = []
    let next = await rows.next()
    while (!next.done && sample.length < SAMPLE_ROWS) {
      sample.push(next.value)
      if (sample.length < SAMPLE_ROWS) next = await rows.next()
    }
    const existing = await findTable(db, id)
    const fixed = overrides(ids, existing?.columns)
    const names = guessTypes(ids, sample, new Map([...retyped, ...fixed]))
    const types = names.map((n, i): ColumnType => {
      const t = parseType(n)
      if (!t) throw new LoadError(`Invalid type_override "${n}" of column "${ids[i]}"`)
      return t
    })
    const columns = columnsOf(ids, types.map((t) => t.name), existing?.columns)
    const rep = await startReplacement(db, id, columns, types, deps.now)
    try {
      const coerce = coercers(rep.table)
      const typed = types.map((t) => t.kind !== 'text')
      let batch: Row[] = []
      let loaded = 0
      let line = 1
      const add = async (cells: Cells) => {
        line++
        if (cells.length > ids.length && cells.slice(ids.length).some((c) => c !== null && c !== ''))
          throw new LoadError(`Row ${line} has ${cells.length} values but there are ${ids.length} columns`)
        const rec: Row = {}
        for (let i = 0; i < ids.length; i++) {
          const v = cells[i]
          if (v === null || v === undefined || v === '') continue
          if (!typed[i]) {
            rec[ids[i]!] = v
            continue
          }
          try {
            rec[ids[i]!] = coerce[i]!(v)
          } catch (e) {
            if (!(e instanceof ValueError)) throw e
            if (fixed.has(i))
              throw new LoadError(`${e.message} (column "${ids[i]}", row ${line}; its type_override is ${names[i]})`)
            throw new Retype(i)
          }
        }
        batch.push(rec)
        if (batch.length >= BATCH_ROWS) await flush()
      }
      const flush = async () => {
        if (!batch.length) return
        await rep.insert(batch)
        loaded += batch.length
        batch = []
        await opts.progress?.(loaded)
      }
      for (const cells of sample) await add(cells)
      if (!next.done && sample.length === SAMPLE_ROWS)
        for (let r = await rows.next(); !r.done; r = await rows.next()) await add(r.value)
      await flush()
      await opts.beforeCommit?.()
      await rep.commit()
      await pruneVersions(db, id, deps.config.str('service.datastore.versions.retention'), deps.now())
      return loaded
    } catch (e) {
      await rep.abandon().catch(() => {})
      throw e
    }
  } finally {
    await rows.return?.(undefined)
  }
}
