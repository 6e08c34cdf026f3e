// The /datastore/dump pipeline: resource lookup and read check, the search plan of the dump's
// parameters, and the table streamed chunk by chunk from a cursor through a format writer, so
// memory stays flat for any table size (datastore.md §10). Text formats are written chunk by
// chunk, Parquet a row group at a time (dump-parquet.ts).
import { apiAtLeast } from '../config/api-compat'
import type { ActionContext } from '../context'
import { NotAuthorized, NotFound, ValidationError } from '../errors'
import { byteSink } from '../lib/byte-sink'
import type { ResourceRow } from '../model/resource'
import { findResourceToRead } from './access'
import { parquetDump, PARQUET_CONTENT_TYPE } from './dump-parquet'
import { BOM, dumpWriter, type OutField } from './formats'
import { toList } from './params'
import { planSearch, type OutColumn } from './query'
import { findTableByName, type DsTable } from './registry'
import { columnDecoders } from './search'
import { asOfSource, resolveVersion, tableAt } from './versions'
import { outFields } from './search-output'
import { pgMessage } from './sql-guard'
import { sqliteMessage, type DatastoreReader, type DsResult } from './store'

export const DUMP_FORMATS = ['csv', 'tsv', 'json', 'xml', 'jsonl', 'parquet'] as const
export type DumpFormat = (typeof DUMP_FORMATS)[number]

// Small chunks, each line encoded as soon as it is made: a chunk's rows and text die young instead
// of being promoted to V8's old space, which is what held the server's memory up during big dumps.
const CHUNK_ROWS = 500

/** The dump's parameters, parsed from the query string. */
export interface DumpParams {
  format: DumpFormat
  bom: boolean
  offset?: number
  limit?: number
  /** ckan: a q that parses as a JSON object searches per column */
  q?: string | Record<string, string>
  plain: boolean
  language?: string
  filters?: Record<string, unknown>
  distinct: boolean
  fields?: string
  sort?: string
  /** Beyond CKAN: the table at a version or time of a versioned table (datastore_search's as_of). */
  as_of?: string
}

/** A dump ready to send: its body reads the table as it is consumed. */
export interface Dump {
  contentType: string
  extension: string
  body: ReadableStream<Uint8Array>
}

/**
 * A dump refused before its first byte, with CKAN's plain-text reason: no such table (404), the
 * caller may not read the resource (403), invalid parameters or a failing query (400).
 */
export class DumpRefused extends Error {
  constructor(
    readonly status: 400 | 403 | 404,
    message: string,
  ) {
    super(message)
  }
}

/** Rows in, bytes out: what the stream asks of a format. */
interface RowEncoder {
  contentType: string
  extension: string
  start(): void
  /** One row of the cursor, values as the table stores them. */
  row(values: unknown[]): void
  /** After each chunk of rows. */
  flush(): void
  end(): void
}

interface EncoderInput {
  p: DumpParams
  table: DsTable
  columns: OutColumn[]
  fields: OutField[]
  /** datastore_search's value decoders, for the text formats. */
  decode: ((v: unknown) => unknown)[]
}

/**
 * The encoder of `p.format`. The text formats print datastore_search's values; Parquet types the
 * stored values itself (its timestamps keep their microseconds) and has no BOM.
 */
function rowEncoder(x: EncoderInput, emit: (chunk: Uint8Array) => void): RowEncoder {
  const { p, decode } = x
  if (p.format === 'parquet') {
    const pq = parquetDump(x.table, x.columns, x.fields, emit)
    return { contentType: PARQUET_CONTENT_TYPE, extension: 'parquet', ...pq, flush: () => {} }
  }
  const writer = dumpWriter(p.format, x.fields)
  const out = byteSink(emit)
  return {
    contentType: writer.contentType,
    extension: writer.extension,
    start: () => out.put((p.bom ? BOM : '') + writer.header()),
    row(r) {
      for (let i = 0; i < r.length; i++) r[i] = decode[i]!(r[i])
      out.put(writer.row(r))
    },
    flush: () => out.flush(),
    end() {
      out.put(writer.footer())
      out.flush()
    },
  }
}

export const resourceNotFound = () => new DumpRefused(404, 'DataStore resource not found')

/** `<param>: <messages>` lines; an Invalid query names the database's reason. */
function errorLines(e: ValidationError): string {
  const info = e.errors.info as { orig?: unknown[] } | undefined
  return Object.entries(e.errors)
    .filter(([, v]) => Array.isArray(v))
    .map(([k, v]) => {
      const msg = (v as unknown[]).join(' ')
      const reason = k === 'query' && info?.orig?.[0] ? `: ${String(info.orig[0])}` : ''
      return `${k}: ${msg}${reason}`
    })
    .join('\n')
}

/**
 * The dump of the table `name` (resource id or alias) as the caller may read it. Throws
 * DumpRefused; errors of the lookups themselves propagate unchanged. The first chunk of rows is
 * read before returning, so a failing query is refused rather than cut short. `unchanged`: asked
 * with the table's version once the caller may read it; true answers null (not modified).
 */
export async function openDump(
  ctx: ActionContext,
  db: DatastoreReader,
  name: string,
  p: DumpParams,
  /** The read rule of the table's resource (auth/datastore.ts `canReadTable`). */
  mayRead: (res: ResourceRow) => Promise<boolean>,
  unchanged?: (version: string) => boolean,
): Promise<Dump | null> {
  const table = await findTableByName(db, name)
  const res = table ? await findResourceToRead(ctx, table.id) : undefined
  if (!table || !res) throw resourceNotFound()
  if (!(await mayRead(res)))
    throw new DumpRefused(403, 'Not authorized to read DataStore resource')
  // the caller's copy is current (its ETag names this version of the table): no rows are read
  if (unchanged?.(`${table.id}:${table.version}`)) return null
  let plan
  let shown = table
  try {
    let source: string | undefined
    if (p.as_of) {
      const v = await resolveVersion(db, table, p.as_of, 'as_of', ctx.now())
      if (p.q) throw ValidationError.field('as_of', 'q is not available with as_of (the full-text index holds the current rows only)')
      source = asOfSource(table, v)
      shown = tableAt(table, v)
    }
    plan = planSearch(shown, {
      source,
      q: p.q,
      plain: p.plain,
      language: p.language || ctx.config.str('service.datastore.default_fts_lang') || 'english',
      filters: p.filters,
      distinct: p.distinct,
      fields: p.fields ? toList(p.fields) : undefined,
      sort: p.sort || (p.distinct ? undefined : '_id'),
      limit: 0,
      offset: 0,
      textFiltersAsText: apiAtLeast(ctx.config, '2.11'),
    })
  } catch (e) {
    if (e instanceof ValidationError) throw new DumpRefused(400, errorLines(e))
    if (e instanceof NotFound || e instanceof NotAuthorized)
      throw new DumpRefused(e.status, e.message)
    throw e
  }
  const decode = columnDecoders(shown, plan.columns, {
    msInTimestamp: ctx.config.bool('service.datastore.ms_in_timestamp'),
  })
  const input = { p, table: shown, columns: plan.columns, fields: outFields(plan.columns), decode }
  const sql = `${plan.allSql} LIMIT ? OFFSET ?`
  const args = [...plan.countArgs, p.limit ?? -1, p.offset ?? 0]
  const rows = db.stream(sql, args, CHUNK_ROWS)[Symbol.asyncIterator]()
  // the first chunk is read before answering, so a failing query still gets an error status
  let pending: IteratorResult<DsResult> | undefined
  try {
    pending = await rows.next()
  } catch (e) {
    throw new DumpRefused(400, `query: ${pgMessage(sqliteMessage(e))}`)
  }
  let enqueue = (_chunk: Uint8Array) => {}
  let sent = 0
  const enc = rowEncoder(input, (chunk) => {
    sent++
    enqueue(chunk)
  })
  let done = false
  const body = new ReadableStream<Uint8Array>({
    start(ctrl) {
      enqueue = (chunk) => ctrl.enqueue(chunk)
      enc.start()
    },
    // A pull that enqueues nothing is not called again (WHATWG streams), so it reads chunks until
    // one gives bytes: Parquet's do once a row group is complete.
    async pull(ctrl) {
      const before = sent
      while (!done && sent === before) {
        const next = pending ?? (await rows.next())
        pending = undefined
        if (next.done) {
          done = true
          enc.end()
          ctrl.close()
          return
        }
        for (const r of next.value.rows) enc.row(r)
        enc.flush()
      }
    },
    async cancel() {
      done = true
      await rows.return?.()
    },
  })
  return { contentType: enc.contentType, extension: enc.extension, body }
}
