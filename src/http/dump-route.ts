// GET /datastore/dump/:resource_id — a DataStore table as a csv, tsv, json or xml file, streamed
// chunk by chunk from a cursor so memory stays flat for any table size (datastore.md §10).
import type { Hono } from 'hono'
import { zValidator } from '@hono/zod-validator'
import { z } from 'zod'
import type { Deps } from '../context'
import { NotAuthorized, NotFound, ValidationError } from '../errors'
import { findResource } from '../datastore/access'
import { canReadTable } from '../auth/datastore'
import { BOM, dumpWriter } from '../datastore/formats'
import { planSearch } from '../datastore/query'
import { findTable, resolveName } from '../datastore/registry'
import { columnDecoders } from '../datastore/search'
import { outFields } from '../datastore/search-output'
import { toList } from '../datastore/params'
import { toBool } from '../validation/fields'
import { sqliteMessage, type DsResult } from '../datastore/store'
import { pgMessage } from '../datastore/sql-guard'
import { requestContext } from './action-route'

const FORMATS = ['csv', 'tsv', 'json', 'xml'] as const
// Small chunks, each line encoded as soon as it is made: a chunk's rows and text die young instead
// of being promoted to V8's old space, which is what held the server's memory up during big dumps.
const CHUNK_ROWS = 500
const OUT_BYTES = 64 * 1024

/** Text encoded straight into byte blocks of about OUT_BYTES, each handed to `emit` when full. */
export function byteSink(emit: (chunk: Uint8Array) => void) {
  const enc = new TextEncoder()
  let buf = new Uint8Array(OUT_BYTES)
  let pos = 0
  const flush = () => {
    if (!pos) return
    emit(buf.subarray(0, pos))
    buf = new Uint8Array(OUT_BYTES)
    pos = 0
  }
  return {
    put(s: string) {
      // UTF-8 needs at most 3 bytes per UTF-16 unit
      const need = s.length * 3
      if (pos + need > buf.length) {
        flush()
        if (need > buf.length) buf = new Uint8Array(need)
      }
      pos += enc.encodeInto(s, buf.subarray(pos)).written
      if (pos > OUT_BYTES - 1024) flush()
    },
    flush,
  }
}

const int = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, c) => {
      if (v === undefined || v === '') return undefined
      if (!/^\s*\d+\s*$/.test(v)) {
        c.addIssue({ code: 'custom', message: 'Invalid integer', path: [] })
        return z.NEVER
      }
      return Number(v)
    })
    .describe(name)

const query = z.object({
  format: z
    .string()
    .optional()
    .transform((v, c) => {
      const f = (v || 'csv').toLowerCase()
      if (!(FORMATS as readonly string[]).includes(f)) {
        c.addIssue({ code: 'custom', message: "Value must be one of ('csv', 'tsv', 'json', 'xml')" })
        return z.NEVER
      }
      return f as (typeof FORMATS)[number]
    }),
  bom: z.string().optional().transform((v) => (v === undefined ? false : toBool(v))),
  offset: int('offset'),
  limit: int('limit'),
  // ckan: a q that parses as a JSON object searches per column
  q: z
    .string()
    .optional()
    .transform((v): string | Record<string, string> | undefined => {
      if (v === undefined || !v.trim().startsWith('{')) return v
      try {
        const o = JSON.parse(v) as unknown
        if (o && typeof o === 'object' && !Array.isArray(o)) return o as Record<string, string>
      } catch {
        /* plain text */
      }
      return v
    }),
  plain: z.string().optional().transform((v) => (v === undefined ? true : toBool(v))),
  language: z.string().optional(),
  filters: z
    .string()
    .optional()
    .transform((v, c) => {
      if (v === undefined || v === '') return undefined
      try {
        const f = JSON.parse(v) as unknown
        if (f && typeof f === 'object' && !Array.isArray(f)) return f as Record<string, unknown>
      } catch {
        /* below */
      }
      c.addIssue({ code: 'custom', message: 'Cannot parse JSON' })
      return z.NEVER
    }),
  distinct: z.string().optional().transform((v) => (v === undefined ? false : toBool(v))),
  fields: z.string().optional(),
  sort: z.string().optional(),
})

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

const text = (body: string, status: number) =>
  new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })

export function mountDumpRoute(app: Hono, deps: Deps) {
  app.get(
    '/datastore/dump/:resource_id',
    zValidator('query', query, (r) => {
      if (!r.success)
        return text(
          r.error.issues.map((i) => `${String(i.path[0] ?? 'query')}: ${i.message}`).join('\n'),
          400,
        )
    }),
    async (c) => {
      const name = c.req.param('resource_id')
      const p = c.req.valid('query')
      const db = deps.datastore
      if (!db) return text('DataStore resource not found', 404)
      const ctx = await requestContext(deps, c.req.raw.headers)
      const id = await resolveName(db, name)
      const res = id ? await findResource(ctx, id) : undefined
      const table = id && res ? await findTable(db, id) : undefined
      if (!table || !res) return text('DataStore resource not found', 404)
      if (!(await canReadTable(ctx, res))) return text('Not authorized to read DataStore resource', 403)
      let plan
      try {
        plan = planSearch(table, {
          q: p.q,
          plain: p.plain,
          language: p.language || deps.config.str('service.datastore.default_fts_lang') || 'english',
          filters: p.filters,
          distinct: p.distinct,
          fields: p.fields ? toList(p.fields) : undefined,
          sort: p.sort || (p.distinct ? undefined : '_id'),
          limit: 0,
          offset: 0,
        })
      } catch (e) {
        if (e instanceof ValidationError) return text(errorLines(e), 400)
        if (e instanceof NotFound || e instanceof NotAuthorized) return text(e.message, e.status)
        throw e
      }
      const fields = outFields(plan.columns)
      const writer = dumpWriter(p.format, fields)
      const decode = columnDecoders(table, plan.columns)
      const sql = `${plan.allSql} LIMIT ? OFFSET ?`
      const args = [...plan.countArgs, p.limit ?? -1, p.offset ?? 0]
      const rows = db.stream(sql, args, CHUNK_ROWS)[Symbol.asyncIterator]()
      // the first chunk is read before answering, so a failing query still gets an error status
      let pending: IteratorResult<DsResult> | undefined
      try {
        pending = await rows.next()
      } catch (e) {
        return text(`query: ${pgMessage(sqliteMessage(e))}`, 400)
      }
      let out: ReturnType<typeof byteSink>
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
      return new Response(body, {
        headers: {
          'content-type': `${writer.contentType}`,
          'content-disposition': `attachment; filename="${name}.${writer.extension}"`,
        },
      })
    },
  )
}
