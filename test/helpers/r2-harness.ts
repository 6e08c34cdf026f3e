// Test worker: runs r2BlobStore inside workerd (Miniflare) over a real R2 binding, one call per request.
import { r2BlobStore, type R2Bucket } from '../../src/runtime/worker-blob-store'
import type { ByteRange, PutMeta } from '../../src/storage/blob-store'

/** Deterministic pseudo-random bytes (the same in the worker and in the test). */
export function bytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

/** `data` as a stream of unknown length in `chunk`-byte pieces; errors after `failAfter` bytes. */
function generated(
  data: Uint8Array,
  chunk: number,
  failAfter?: number,
): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream({
    pull(c) {
      if (failAfter !== undefined && at >= failAfter) return c.error(new Error('client went away'))
      if (at >= data.length) return c.close()
      c.enqueue(data.slice(at, at + chunk))
      at += chunk
    },
  })
}

const num = (q: URLSearchParams, k: string) => (q.has(k) ? Number(q.get(k)) : undefined)

interface Env {
  BUCKET: R2Bucket & { list(): Promise<{ objects: { key: string }[] }> }
}

export default {
  async fetch(req: Request, env: Env): Promise<Response> {
    const url = new URL(req.url)
    const q = url.searchParams
    const key = q.get('key') ?? ''
    try {
      const store = r2BlobStore(env.BUCKET, { partSize: num(q, 'partSize') })
      switch (url.pathname) {
        case '/put': {
          const meta: PutMeta = {
            contentType: q.get('ct') ?? undefined,
            size: num(q, 'size'),
            maxBytes: num(q, 'max'),
          }
          const n = num(q, 'gen')
          const body =
            n !== undefined
              ? q.get('as') === 'bytes'
                ? bytes(n, num(q, 'seed'))
                : generated(bytes(n, num(q, 'seed')), num(q, 'chunk') ?? 65536, num(q, 'failAfter'))
              : q.get('as') === 'bytes'
                ? new Uint8Array(await req.arrayBuffer())
                : req.body!
          return Response.json(await store.put(key, body, meta))
        }
        case '/get': {
          const suffix = num(q, 'suffix')
          const offset = num(q, 'offset')
          const range: ByteRange | undefined =
            suffix !== undefined
              ? { suffix }
              : offset !== undefined
                ? { offset, length: num(q, 'length') }
                : undefined
          const got = await store.get(key, range)
          if (!got) return Response.json(null, { status: 404 })
          const { body, ...info } = got
          return new Response(body, { headers: { 'x-info': JSON.stringify(info) } })
        }
        case '/head':
          return Response.json((await store.head(key)) ?? null)
        case '/delete':
          await store.delete(key)
          return Response.json(null)
        case '/list':
          return Response.json((await env.BUCKET.list()).objects.map((o) => o.key))
      }
      return new Response('no such operation', { status: 400 })
    } catch (e) {
      const err = e as Error & { size?: number }
      return Response.json(
        { error: err.constructor.name, message: err.message, size: err.size },
        { status: 500 },
      )
    }
  },
}
