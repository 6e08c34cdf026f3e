// The legacy /api[/1|/2]/util/*/autocomplete routes the CKAN 2.9 web front end calls.
//
// As in CKAN 2.9 (ckan/views/api.py, util_rules), GET only, query parameter (default limit):
//   /util/dataset/autocomplete             incomplete, limit (10)
//       → {"ResultSet": {"Result": [package_autocomplete items]}}
//   /util/tag/autocomplete                 incomplete, limit (10), vocabulary_id
//       → {"ResultSet": {"Result": [{"Name": tag}]}}
//   /util/resource/format_autocomplete     incomplete, limit (5)
//       → {"ResultSet": {"Result": [{"Format": format}]}}
//   /util/user/autocomplete                q, limit (20), ignore_self → [user_autocomplete items]
//   /util/group/autocomplete               q, limit (20) → [group_autocomplete items]
//   /util/organization/autocomplete        q, limit (20) → [organization_autocomplete items]
// An empty or absent search text answers the empty result without calling the action. The
// first value of a repeated parameter counts. `callback=` wraps a 200 answer as JSONP.
import type { Hono } from 'hono'
import { callAction } from '../actions/call'
import type { DataDict } from '../actions/action'
import type { DepsResolver } from './deps-source'
import { asciiJson } from '../lib/json'
import { escapeHtml, fail, helpUrl } from './envelope'
import { apiRequestContext } from './request-context'

interface UtilRoute {
  path: string
  action: string
  /** The query parameter that carries the typed text. */
  param: 'incomplete' | 'q'
  /** The data dict for the action, from the typed text and the query string. */
  data: (q: string, args: URLSearchParams) => DataDict
  /** The response body, from the action's result. */
  wrap: (result: unknown[]) => unknown
}

const resultSet = (items: unknown[]) => ({ ResultSet: { Result: items } })
const limit = (args: URLSearchParams, def: number) => args.get('limit') ?? def

const ROUTES: UtilRoute[] = [
  {
    path: '/util/dataset/autocomplete',
    action: 'package_autocomplete',
    param: 'incomplete',
    data: (q, args) => ({ q, limit: limit(args, 10) }),
    wrap: resultSet,
  },
  {
    path: '/util/tag/autocomplete',
    action: 'tag_autocomplete',
    param: 'incomplete',
    data: (q, args) => {
      const vocab = args.get('vocabulary_id') ?? ''
      return { q, limit: limit(args, 10), ...(vocab !== '' ? { vocabulary_id: vocab } : {}) }
    },
    wrap: (tags) => resultSet(tags.map((tag) => ({ Name: tag }))),
  },
  {
    path: '/util/resource/format_autocomplete',
    action: 'format_autocomplete',
    param: 'incomplete',
    data: (q, args) => ({ q, limit: limit(args, 5) }),
    wrap: (formats) => resultSet(formats.map((format) => ({ Format: format }))),
  },
  {
    path: '/util/user/autocomplete',
    action: 'user_autocomplete',
    param: 'q',
    data: (q, args) => ({
      q,
      limit: limit(args, 20),
      ignore_self: args.get('ignore_self') ?? false,
    }),
    wrap: (users) => users,
  },
  {
    path: '/util/group/autocomplete',
    action: 'group_autocomplete',
    param: 'q',
    data: (q, args) => ({ q, limit: limit(args, 20) }),
    wrap: (groups) => groups,
  },
  {
    path: '/util/organization/autocomplete',
    action: 'organization_autocomplete',
    param: 'q',
    data: (q, args) => ({ q, limit: limit(args, 20) }),
    wrap: (orgs) => orgs,
  },
]

function finishOk(body: unknown, callback: string | null): Response {
  const json = asciiJson(body)
  if (callback !== null) {
    return new Response(`${escapeHtml(callback)}(${json});`, {
      headers: { 'content-type': 'application/javascript;charset=utf-8' },
    })
  }
  return new Response(json, { headers: { 'content-type': 'application/json;charset=utf-8' } })
}

export function mountUtilRoutes(app: Hono, source: DepsResolver) {
  const handler = async (req: Request, route: UtilRoute) => {
    const help = helpUrl(source.config(req).str('service.site_url'), route.action)
    try {
      const args = new URL(req.url).searchParams
      const callback = args.get('callback')
      const q = args.get(route.param) ?? ''
      let result: unknown[] = []
      if (q) {
        // As on the action route, a JSONP request runs anonymously.
        const ctx = await apiRequestContext(await source.of(req), callback === null ? req.headers : null)
        result = await callAction<unknown[]>(ctx, route.action, route.data(q, args))
      }
      return finishOk(route.wrap(result), callback)
    } catch (err) {
      // ckan 2.9 lets action errors escape these views; the action API's error body is clearer.
      return fail(help, err)
    }
  }
  for (const prefix of ['/api', '/api/1', '/api/2']) {
    for (const route of ROUTES) {
      const path = prefix + route.path
      app.get(path, (c) => handler(c.req.raw, route))
      app.on(['POST', 'PUT', 'DELETE', 'PATCH'], path, (c) => c.text('Method Not Allowed', 405))
    }
  }
}
