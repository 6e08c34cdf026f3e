// GET /datastore/dump/:resource_id: the query string parsed, the DataStore's dump pipeline
// (src/datastore/dump.ts) called, and its stream sent as a csv, tsv, json, xml, JSON Lines or
// Parquet file.
import type { Hono } from 'hono'
import { zValidator } from '@hono/zod-validator'
import { z } from 'zod'
import type { DepsResolver } from './deps-source'
import {
  DUMP_FORMATS,
  DumpRefused,
  openDump,
  resourceNotFound,
  type Dump,
  type DumpFormat,
} from '../datastore/dump'
import { FieldFail, toBool, toInt } from '../validation/fields'
import { requestContext } from './request-context'
import { checkRouteLimit } from './rate-limit'
import { clientAddress } from './client-address'
import { countUse } from './usage'
import { answerTag, CALLER_VARY, cacheControl, callerTag, ifNoneMatch } from './http-cache'
import { parseBoundedJson } from '../lib/bounded-json'
import { canReadTable } from '../auth/datastore'

const int = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, c) => {
      if (v === undefined || v === '') return undefined
      const n = /^\s*\d+\s*$/.test(v) ? toInt(v) : new FieldFail('Invalid integer')
      if (n instanceof FieldFail) {
        for (const message of n.msgs) c.addIssue({ code: 'custom', message, path: [] })
        return z.NEVER
      }
      return n
    })
    .describe(name)

const query = z.object({
  format: z
    .string()
    .optional()
    .transform((v, c) => {
      const f = (v || 'csv').toLowerCase()
      if (!(DUMP_FORMATS as readonly string[]).includes(f)) {
        // ckan: CKAN's message, which names its own four formats (jsonl and parquet are ours)
        c.addIssue({ code: 'custom', message: "Value must be one of ('csv', 'tsv', 'json', 'xml')" })
        return z.NEVER
      }
      return f as DumpFormat
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
        const o = parseBoundedJson(v) as unknown
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
        const f = parseBoundedJson(v) as unknown
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
  // beyond CKAN: a version number or an ISO timestamp of a versioned table
  as_of: z.string().optional(),
})

const text = (body: string, status: number) =>
  new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })

const refused = (e: DumpRefused) => text(e.message, e.status)

export function mountDumpRoute(app: Hono, source: DepsResolver) {
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
      const deps = await source.of(c.req.raw)
      // the read location when one is set (service.datastore.read_url): a dump only reads
      const db = deps.datastore?.reader ?? deps.datastore
      if (!db) return refused(resourceNotFound())
      const ctx = await requestContext(deps, c.req.raw.headers)
      const { refusal, verdict } = await checkRouteLimit(deps, c, ctx.user)
      if (refusal) return refusal
      const limitHeaders = verdict?.headers ?? {}
      // validators as for the read actions: the parameters, the caller, the catalogue's log
      // position (the resource's visibility) and the table's version (its rows)
      let validators: Record<string, string> = {}
      const unchanged = (version: string) => {
        const etag = answerTag('/datastore/dump', { ...p, resource_id: name }, callerTag(ctx.user), `${deps.changes.lastSeq}.${version}`)
        validators = {
          etag,
          'cache-control': cacheControl(deps.config, !ctx.user, false),
          vary: CALLER_VARY,
        }
        return ifNoneMatch(c.req.header('if-none-match') ?? null, etag)
      }
      let dump: Dump | null
      try {
        let used: { id: string; packageId: string } | undefined
        dump = await openDump(ctx, db, name, p, async (res) => {
          const may = await canReadTable(ctx, res)
          if (may) used = { id: res.id, packageId: res.package_id }
          return may
        }, unchanged)
        // a download of the resource's data (usage figures), not when answered 304
        if (dump && used) countUse(deps, c.req.raw.headers, clientAddress(c, deps.config), 'download', { ...used, resource: true })
      } catch (e) {
        if (e instanceof DumpRefused) return refused(e)
        throw e
      }
      if (!dump) return new Response(null, { status: 304, headers: { ...validators, ...limitHeaders } })
      return new Response(dump.body, {
        headers: {
          'content-type': `${dump.contentType}`,
          'content-disposition': `attachment; filename="${name}.${dump.extension}"`,
          ...validators,
          ...limitHeaders,
        },
      })
    },
  )
}
