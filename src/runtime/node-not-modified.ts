// Node only: answers a conditional GET of a read action before the app when its ETag still holds.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Deps } from '../context'
import { AnonymousValidators, notModifiedBeforeApp, notModifiedNow } from '../http/action-route'

/** A node request's headers behind the one method the shared check reads. */
const headersOf = (req: IncomingMessage): Pick<Headers, 'get'> => ({
  get(name) {
    const v = req.headers[name.toLowerCase()]
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v
  },
})

/**
 * Wraps the app's request listener: a GET carrying `If-None-Match` is first checked by the action
 * route's own rule (`notModifiedBeforeApp`: same ETag, same headers) and, when the tag still
 * holds, answered 304 here, without the web Request/Response objects and routing the app would
 * build around it (about half of what a 304 cost, `bench/validators.ts`). Everything else, and
 * every case the check declines, goes to the app (all of them under rate limits, which count 304s).
 */
export function withNotModified(deps: Deps, listener: RequestListener): RequestListener {
  const memo = new AnonymousValidators()
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' || req.headers['if-none-match'] === undefined) return listener(req, res)
    // under rate limits every call is counted, a 304 too: the app answers
    if (deps.config.bool('service.ratelimit.enabled')) return listener(req, res)
    const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`
    const headers = headersOf(req)
    // decided without a promise when this turn's probe is made and the URL's validators known
    const now = notModifiedNow(deps, url, headers, memo)
    if (now === null) return listener(req, res)
    if (now) {
      res.writeHead(304, now)
      res.end()
      return
    }
    notModifiedBeforeApp(deps, url, headers, memo).then(
      (headers) => {
        if (!headers) return listener(req, res)
        res.writeHead(304, headers)
        res.end()
      },
      () => listener(req, res),
    )
  }
}
