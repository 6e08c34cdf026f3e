// GET|POST /api/3/action/:name and /api/action/:name: data dict in, CKAN envelope out.
import type { Hono } from 'hono'
import { actionOffered, callAction } from '../actions/call'
import { apiCaller, contextFor, mayNameCaller } from './request-context'
import type { ActionContext, Deps } from '../context'
import type { DataDict } from '../data-dict'
import { BadRequest, CsrfRefused } from '../errors'
import { fail, helpUrl, ok } from './envelope'
import { queryDataDict, readDataDict } from './params'
import { bodyLimits } from './body-limits'
import type { DepsResolver } from './deps-source'
import { stageInto } from './stage-upload'
import { answerTag, CALLER_VARY, cacheControl, callerTag, ifNoneMatch, isCacheable, holdsUsageFigures, TABLE_READS } from './http-cache'
import { findTableByName } from '../datastore/registry'
import { discardUnclaimed, type StagedUpload } from '../storage/staged-upload'
import { CSRF_FIELD, csrfProblem } from '../web/session'
import { profileStamp } from '../datastore/profile'
import { toBool } from '../validation/fields'
import { apiKeyFrom } from '../auth/api-key'
import { actionClass, checkRateLimit, withLimitHeaders, type LimitVerdict } from './rate-limit'
import { clientAddress, type AddressSource } from './client-address'
import { countUse } from './usage'
import type { UsageTarget } from '../model/usage'

/**
 * The validators of a GET answer: the ETag (the help URL carries the site URL, which answers hold,
 * and on Workers follows the host), Cache-Control and Vary. `data` is without its callback.
 */
async function answerValidators(deps: Deps, name: string, help: string, data: DataDict, user: ActionContext['user'], callback: string | undefined) {
  let version: number | string = deps.changes.lastSeq
  const tableParams = TABLE_READS[name]
  if (tableParams) {
    const named = tableParams.map((k) => data[k]).find((v) => v !== undefined && v !== null && v !== '')
    version = `${version}.${await tableVersion(deps, named, name === 'datastore_info' && toBool(data.include_profile))}`
  }
  return {
    etag: answerTag(help, data, callerTag(user), version, callback),
    'cache-control': cacheControl(deps.config, !user, callback !== undefined),
    vary: CALLER_VARY,
  }
}

/**
 * A DataStore table's id and version (every write to its rows or columns moves it); '-': none.
 * `withProfile`: also its stored column profile's version and time, which its job stores without
 * moving the log or the table's version.
 */
export async function tableVersion(deps: Deps, name: unknown, withProfile = false): Promise<string> {
  const db = deps.datastore?.reader ?? deps.datastore
  if (!db || typeof name !== 'string' || !name) return '-'
  const table = await findTableByName(db, name)
  if (!table) return '-'
  const version = `${table.id}:${table.version}`
  return withProfile ? `${version}.${await profileStamp(db, table.id)}` : version
}

/**
 * The validators of anonymous answers by request URL, for one log position (any write empties
 * it): a conditional GET repeated by many clients is then decided by one map lookup.
 */
export class AnonymousValidators {
  private seq = -1
  private readonly byUrl = new Map<string, Record<string, string>>()
  constructor(private readonly max = 10_000) {}

  get(url: string, seq: number) {
    return seq === this.seq ? this.byUrl.get(url) : undefined
  }

  set(url: string, seq: number, validators: Record<string, string>) {
    if (seq !== this.seq || this.byUrl.size >= this.max) {
      this.byUrl.clear()
      this.seq = seq
    }
    this.byUrl.set(url, validators)
  }
}

const ACTION_PATH = /^\/api\/(?:3\/)?action\/([^/]+)$/

/**
 * For a runtime that can answer before the app (the Node adapter): a GET of a cacheable action
 * whose `If-None-Match` names the answer's current ETag gets the headers of the 304 the action
 * route would send, decided exactly as it decides it; null for everything else (the app answers,
 * errors included). Saves the web Request and Response objects and the routing: most of what a
 * 304 costs besides the HTTP exchange.
 */
/**
 * notModifiedBeforeApp without waiting, for the common case of a conditional GET an anonymous
 * client repeats: the change feed already probed in this turn and the URL's validators are
 * remembered for its position. The validators (304), null (the app answers), or undefined (not
 * decidable now: ask notModifiedBeforeApp).
 */
export function notModifiedNow(
  deps: Deps,
  url: string,
  headers: Pick<Headers, 'get'>,
  memo: AnonymousValidators,
): Record<string, string> | null | undefined {
  if (!deps.changes.caughtUpThisTurn?.()) return undefined
  const kept = memo.get(url, deps.changes.lastSeq)
  if (!kept || mayNameCaller(headers, deps.config)) return undefined
  return ifNoneMatch(headers.get('if-none-match'), kept.etag!, false) ? kept : null
}

export async function notModifiedBeforeApp(
  deps: Deps,
  url: string,
  headers: Pick<Headers, 'get'>,
  memo?: AnonymousValidators,
): Promise<Record<string, string> | null> {
  const tags = headers.get('if-none-match')
  if (!tags) return null
  try {
    if (memo && !mayNameCaller(headers, deps.config)) {
      await deps.changes.catchUp({ shareTurn: true })
      const kept = memo.get(url, deps.changes.lastSeq)
      if (kept) return ifNoneMatch(tags, kept.etag!, false) ? kept : null
    }
    const parsed = new URL(url)
    const m = ACTION_PATH.exec(parsed.pathname)
    const name = m && decodeURIComponent(m[1]!)
    const action = name ? actionOffered(name, deps.config) : undefined
    if (!name || !action || !isCacheable(name, action.readOnly)) return null
    const data = queryDataDict(parsed, bodyLimits(deps.config))
    if (holdsUsageFigures(name, data)) return null
    const callback = 'callback' in data ? String(data.callback) : undefined
    delete data.callback
    const { user } = await apiCaller(deps, callback !== undefined ? null : headers)
    const seq = deps.changes.lastSeq
    const validators = await answerValidators(deps, name, helpUrl(deps.config.str('service.site_url'), name), data, user, callback)
    // what a log position alone decides: not a table's version, not the clock (NOW)
    if (memo && !user && !TABLE_READS[name] && !url.includes('NOW')) memo.set(url, seq, validators)
    return ifNoneMatch(tags, validators.etag, false) ? validators : null
  } catch {
    return null // a bad key, too many parameters, ...: the app answers with the right error
  }
}

/**
 * CKAN 2.10 (flask-wtf's CSRFProtect): a post whose caller only the session cookie names carries
 * the pages' CSRF token in X-CSRFToken or X-CSRF-Token, or (a form post) the _csrf_token field,
 * which is not passed on to the action. Checked before the action runs: a refusal writes nothing.
 */
function checkCsrf(req: Request, data: DataDict, siteUrl: string) {
  const form = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(req.headers.get('content-type') ?? '')
  const field = form ? data[CSRF_FIELD] : undefined
  if (form) delete data[CSRF_FIELD]
  const token = req.headers.get('x-csrftoken') ?? req.headers.get('x-csrf-token') ?? field
  const problem = csrfProblem(req, token, siteUrl)
  if (problem) throw new CsrfRefused(problem)
}

/** What an answer of package_show or resource_show was a read of (usage figures); none for other actions. */
function usageTarget(name: string, result: unknown): UsageTarget | undefined {
  if (name !== 'package_show' && name !== 'resource_show') return undefined
  const r = result as { id?: unknown; package_id?: unknown }
  if (typeof r?.id !== 'string') return undefined
  return name === 'package_show'
    ? { id: r.id, packageId: r.id, resource: false }
    : { id: r.id, packageId: String(r.package_id ?? ''), resource: true }
}

/** The header a shared-cache entry keeps its usage target in, so a hit counts too (never sent). */
const USAGE_HEADER = 'x-usage-target'

export function mountActionRoutes(app: Hono, source: DepsResolver) {
  const handler = async (c: AddressSource, name: string): Promise<Response> => {
    const req = c.req.raw
    const help = helpUrl(source.config(req).str('service.site_url'), name)
    const staged: StagedUpload[] = []
    let deps: Deps | undefined
    // the rate limit's headers go on every answer once the call is counted, refusals included
    let limit: LimitVerdict | null = null
    try {
      const action = actionOffered(name, source.config(req))
      if (!action) throw new BadRequest(`Action name not known: ${name}`)
      if (req.method === 'GET' && !action.readOnly) {
        throw new BadRequest('JSON Error: Invalid request. Please use POST method for your request')
      }
      deps = await source.of(req)
      const data = await readDataDict(
        req,
        action.readOnly,
        bodyLimits(deps.config),
        stageInto(deps, staged),
      )
      // ckan: a `callback` parameter runs the call anonymously (JSONP safety)
      const hasCallback = 'callback' in data
      const callback = hasCallback ? String(data.callback) : undefined
      delete data.callback
      const { user, byCookie } = await apiCaller(deps, hasCallback ? null : req.headers)
      if (byCookie && req.method === 'POST') checkCsrf(req, data, deps.config.str('service.site_url'))
      const credential = hasCallback ? null : apiKeyFrom(req.headers, deps.config)
      const address = clientAddress(c, deps.config)
      limit = await checkRateLimit(deps, { user, credential, address }, actionClass(name, action.readOnly, staged.length > 0))
      if (limit?.refused) throw limit.refused
      // GET of a read action the change log covers: validators, and 304 without running it (or
      // building its context)
      let validators: Awaited<ReturnType<typeof answerValidators>> | undefined
      if (req.method === 'GET' && isCacheable(name, action.readOnly) && !holdsUsageFigures(name, data)) {
        validators = await answerValidators(deps, name, help, data, user, callback)
        const { etag } = validators
        if (ifNoneMatch(req.headers.get('if-none-match'), etag, false))
          return withLimitHeaders(new Response(null, { status: 304, headers: validators }), limit)
        // an anonymous answer may come from the runtime's shared cache: its key is the ETag, so
        // a write anywhere (a new log position) leaves every older entry unused
        if (!user && !hasCallback && deps.answers) {
          const kept = await deps.answers.get(etag).catch(() => undefined)
          if (kept) {
            const res = new Response(kept.body, kept)
            for (const [k, v] of Object.entries(validators)) res.headers.set(k, v)
            res.headers.set('x-answer-cache', 'hit')
            const used = res.headers.get(USAGE_HEADER)
            if (used) {
              res.headers.delete(USAGE_HEADER)
              countUse(deps, req.headers, address, 'api', JSON.parse(used) as UsageTarget)
            }
            return withLimitHeaders(res, limit)
          }
        }
      }
      const ctx = contextFor(deps, user)
      if (deps.config.bool('service.api.changed_entities')) ctx.changed = new Map()
      ctx.requestUrl = req.url
      const result = await callAction(ctx, name, data)
      // an API read of a dataset or resource (usage figures; in memory, nothing waits). A
      // conditional GET answered 304 above is not counted: the client has the answer already
      const used = usageTarget(name, result)
      if (used) countUse(deps, req.headers, address, 'api', used)
      const res = ok(help, result, req.method === 'GET' ? callback : undefined, ctx.changed)
      if (validators) for (const [k, v] of Object.entries(validators)) res.headers.set(k, v)
      const shared = deps.config.int('service.http.s_maxage')
      if (validators && !ctx.user && !hasCallback && deps.answers && shared > 0) {
        const kept = res.clone()
        if (used) kept.headers.set(USAGE_HEADER, JSON.stringify(used))
        await deps.answers.put(validators.etag, kept, shared).catch(() => undefined)
      }
      return withLimitHeaders(res, limit)
    } catch (err) {
      return withLimitHeaders(fail(help, err), limit)
    } finally {
      // an upload no action claimed (refused, invalid, failed call) leaves nothing stored
      if (deps && staged.length) await discardUnclaimed(deps.blobs, staged)
    }
  }
  for (const path of ['/api/3/action/:name', '/api/action/:name']) {
    app.on(['GET', 'POST'], path, (c) => handler(c, c.req.param('name') ?? ''))
    app.on(['PUT', 'DELETE', 'PATCH'], path, (c) => c.text('Method Not Allowed', 405))
  }
}
