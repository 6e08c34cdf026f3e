// The /datastore/dump pipeline: resource lookup and read check, the search plan of the dump's
// parameters, and the table streamed chunk by chunk from a cursor through a format writer, so
// memory stays flat for any table size (datastore.md §10).
import { apiAtLeast } from '../config/api-compat'
import type { ActionContext } from '../context'
import { NotAuthorized, NotFound, ValidationError } from '../errors'
import { byteSink, type ByteSink } from '../lib/byte-sink'
import type { ResourceRow } from '../model/resource'
import { findResourceToRead } from './access'
import { BOM, dumpWriter } from './formats'
import { toList } from './params'
import { planSearch } from './query'
import { findTableByName } from './registry'
import { columnDecoders } from './search'
import { outFields } from './search-output'
import { pgMessage } from './sql-guard'
import { sqliteMessage, type DatastoreReader, type DsResult } from './store'

export const DUMP_FORMATS = ['csv', 'tsv', 'json', 'xml'] as const
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
  try {
    plan = planSearch(table, {
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
  const fields = outFields(plan.columns)
  const writer = dumpWriter(p.format, fields)
  const decode = columnDecoders(table, plan.columns, {
    msInTimestamp: ctx.config.bool('service.datastore.ms_in_timestamp'),
  })
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
  let out: ByteSink
  let done = false
  const body = new ReadableStream<Uint8Array>({
    start(ctrl) {
      out = byteSink((chunk) => ctrl.enqueue(chunk))
      out.put((p.bom ? BOM : '') + writer.header())
    },
    async pull(ctrl) {
      if (done) return
      const next = pending ?? (await rows.next())
      pending = undefined
      if (next.done) {
        done = true
        out.put(writer.footer())
        out.flush()
        ctrl.close()
        return
      }
      for (const r of next.value.rows) {
        for (let i = 0; i < r.length; i++) r[i] = decode[i]!(r[i])
        out.put(writer.row(r))
      }
      out.flush()
    },
    async cancel() {
      done = true
      await rows.return?.()
    },
  })
  return { contentType: writer.contentType, extension: writer.extension, body }
}
