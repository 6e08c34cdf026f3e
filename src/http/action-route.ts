// GET|POST /api/3/action/:name and /api/action/:name: data dict in, CKAN envelope out.
import type { Hono } from 'hono'
import { registry } from '../actions'
import { invoke } from '../actions/invoke'
import { apiKeyFrom, userForKey } from '../auth/api-key'
import type { ActionContext, Deps } from '../context'
import { BadRequest } from '../errors'
import { fail, helpUrl, ok } from './envelope'
import { readDataDict } from './params'
import { bodyLimits } from './body-limits'
import type { DepsResolver } from './deps-source'
import { stageInto } from './stage-upload'
import { answerTag, cacheControl, CACHEABLE_ACTIONS, ifNoneMatch } from './http-cache'
import { discardUnclaimed, type StagedUpload } from '../storage/staged-upload'

/** A per-request context for `deps`, with the caller resolved from the request headers. */
export async function requestContext(deps: Deps, headers: Headers | null): Promise<ActionContext> {
  const ctx: ActionContext = { ...deps, user: null, memo: new Map() }
  const key = headers ? apiKeyFrom(headers, deps.config.str('apikey_header_name')) : null
  // Every request sees every write committed before it began (caches follow the change log).
  await deps.changes.catchUp({ shareTurn: true })
  if (key) ctx.user = await userForKey(deps, key)
  // the budget covers the call's own work, not the catching up it found waiting
  ctx.deadline = Date.now() + deps.config.int('service.action.timeout_ms')
  return ctx
}

export function mountActionRoutes(app: Hono, source: DepsResolver) {
  const handler = async (req: Request, name: string): Promise<Response> => {
    const help = helpUrl(source.config(req).str('service.site_url'), name)
    const staged: StagedUpload[] = []
    let deps: Deps | undefined
    try {
      const action = registry.get(name)
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
      const ctx = await requestContext(deps, hasCallback ? null : req.headers)
      ctx.requestUrl = req.url
      // GET of a read action the change log covers: validators, and 304 without running it
      let validators: Record<string, string> | undefined
      if (req.method === 'GET' && CACHEABLE_ACTIONS.has(name)) {
        const caller = ctx.user ? `${ctx.user.id}:${ctx.user.sysadmin ? 1 : 0}` : ''
        // the help URL carries the site URL, which answers hold (and on Workers follows the host)
        const etag = await answerTag(help, data, caller, deps.changes.lastSeq, callback)
        validators = { etag, 'cache-control': cacheControl(deps.config, !ctx.user, hasCallback), vary: 'Authorization, X-CKAN-API-Key, X-SERVICE-API-Key, Cookie' }
        if (ifNoneMatch(req.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers: validators })
        // an anonymous answer may come from the runtime's shared cache: its key is the ETag, so
        // a write anywhere (a new log position) leaves every older entry unused
        if (!ctx.user && !hasCallback && deps.answers) {
          const kept = await deps.answers.get(etag).catch(() => undefined)
          if (kept) {
            const res = new Response(kept.body, kept)
            for (const [k, v] of Object.entries(validators)) res.headers.set(k, v)
            res.headers.set('x-answer-cache', 'hit')
            return res
          }
        }
      }
      let result: unknown
      try {
        result = await invoke(ctx, action, data)
      } finally {
        // A write action may have committed: later requests of this turn must look again.
        if (!action.readOnly) deps.changes.touched()
      }
      const res = ok(help, result, req.method === 'GET' ? callback : undefined)
      if (validators) for (const [k, v] of Object.entries(validators)) res.headers.set(k, v)
      const shared = deps.config.int('service.http.s_maxage')
      if (validators && !ctx.user && !hasCallback && deps.answers && shared > 0)
        await deps.answers.put(validators.etag!, res.clone(), shared).catch(() => undefined)
      return res
    } catch (err) {
      return fail(help, err)
    } finally {
      // an upload no action claimed (refused, invalid, failed call) leaves nothing stored
      if (deps && staged.length) await discardUnclaimed(deps.blobs, staged)
    }
  }
  for (const path of ['/api/3/action/:name', '/api/action/:name']) {
    app.on(['GET', 'POST'], path, (c) => handler(c.req.raw, c.req.param('name') ?? ''))
    app.on(['PUT', 'DELETE', 'PATCH'], path, (c) => c.text('Method Not Allowed', 405))
  }
}
