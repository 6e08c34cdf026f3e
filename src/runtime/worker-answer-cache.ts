// The Worker's AnswerCache: anonymous answers in the Cache API (`caches.default`, shared by the
// isolates of a location), keyed by their ETag. Each get/put is this request's own I/O.
import type { AnswerCache } from '../context'

const keyOf = (etag: string) => `https://answers.invalid/${encodeURIComponent(etag.replace(/"/g, ''))}`

export function cacheApiAnswers(cache: Cache): AnswerCache {
  return {
    async get(etag) {
      return (await cache.match(keyOf(etag))) ?? undefined
    },
    async put(etag, res, seconds) {
      const kept = new Response(res.body, res)
      kept.headers.set('cache-control', `public, max-age=${seconds}`)
      await cache.put(keyOf(etag), kept)
    },
  }
}

/** The Cache API's default cache, where the runtime has one. */
export function defaultAnswerCache(): AnswerCache | undefined {
  const c = (globalThis as { caches?: { default?: Cache } }).caches?.default
  return c ? cacheApiAnswers(c) : undefined
}
