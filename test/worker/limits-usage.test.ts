// Rate limits and usage figures at the edge (issue 35): two isolates of the Worker (two Worker
// scripts in one workerd, as two edge locations would be) count a caller once through the
// RateLimiter Durable Object, with the same headers as on Node; each isolate flushes the usage
// figures it counted after an answer (waitUntil), and both isolates' counts add up.
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorker, type WorkerEnv } from './harness'

let w: WorkerEnv
let mf: Miniflare
const LIMITS = {
  SERVICE__RATELIMIT__ENABLED: 'true',
  SERVICE__RATELIMIT__WINDOW_SECONDS: '3600',
  SERVICE__RATELIMIT__ANONYMOUS__READS: '5',
  SERVICE__RATELIMIT__WRITES: '3',
  SERVICE__TRACKING_ENABLED: 'true',
  SERVICE__TRACKING__FLUSH_SECONDS: '1',
  // the views sort through the search tier: each Durable Object brings the figures into its shard
  SERVICE__SEARCH__SHARDS: '2',
}

beforeAll(async () => {
  w = await startWorker(LIMITS)
  const worker = (name: string, rateLimiter: object) => ({
    name,
    modules: true,
    script: w.script,
    compatibilityDate: '2026-04-01',
    compatibilityFlags: ['nodejs_compat'],
    bindings: w.bindings,
    r2Buckets: ['STORAGE'],
    durableObjects: {
      SEARCH_SHARD: { className: 'SearchShard', useSQLite: true },
      RATE_LIMITER: rateLimiter,
    },
  })
  mf = new Miniflare({
    workers: [
      worker('edge-a', { className: 'RateLimiter', useSQLite: true }),
      // the second isolate reaches the first script's objects, as every isolate reaches one namespace
      worker('edge-b', { className: 'RateLimiter', scriptName: 'edge-a', useSQLite: true }),
    ],
  })
  await mf.ready
}, 180_000)

afterAll(async () => {
  await mf?.dispose()
  await w?.close()
})

/** One of the two isolates, as a fetcher. */
const isolateNamed = async (name: string) =>
  (await mf.getWorker(name)) as unknown as { fetch(url: string, init?: RequestInit): Promise<Response> }

async function get(isolate: string, path: string, headers: Record<string, string> = {}) {
  const fetcher = await isolateNamed(isolate)
  const res = await fetcher.fetch(`http://localhost${path}`, { headers })
  const text = await res.text()
  return { status: res.status, text, policy: res.headers.get('ratelimit-policy'), limit: res.headers.get('ratelimit'), retry: res.headers.get('retry-after') }
}

describe('rate limits across isolates', () => {
  it('counts an address once across two isolates and refuses it on both past the limit', async () => {
    const out = []
    for (let i = 0; i < 7; i++) out.push(await get(i % 2 ? 'edge-b' : 'edge-a', '/api/3/action/site_read', { 'cf-connecting-ip': '203.0.113.5' }))
    expect(out.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429])
    expect(out.map((r) => /r=(\d+)/.exec(r.limit ?? '')?.[1])).toEqual(['4', '3', '2', '1', '0', '0', '0'])
    expect(out[0]!.policy).toBe('"reads";q=5;w=3600')
    const refused = out[5]!
    expect(JSON.parse(refused.text).error).toMatchObject({ __type: 'Too Many Requests' })
    expect(Number(refused.retry)).toBeGreaterThan(0)
    expect(refused.limit).toBe(`"reads";r=0;t=${refused.retry}`)
    // another address: its own count, on either isolate
    expect((await get('edge-b', '/api/3/action/site_read', { 'cf-connecting-ip': '203.0.113.6' })).status).toBe(200)
  })

  it('counts a token\'s writes across isolates', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const fetcher = await isolateNamed(i % 2 ? 'edge-b' : 'edge-a')
      const user = `edge-limit-${i}`
      const res = await fetcher.fetch('http://localhost/api/3/action/user_create', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: w.sysadmin.apikey },
        body: JSON.stringify({ name: user, email: `${user}@example.com`, password: 'password123' }),
      })
      await res.text()
      statuses.push(res.status)
    }
    // sysadmins are exempt by default
    expect(statuses).toEqual([200, 200, 200, 200])
    const a = await isolateNamed('edge-a')
    const token = ((await (await a.fetch('http://localhost/api/3/action/api_token_create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: w.sysadmin.apikey },
      body: JSON.stringify({ user: 'edge-limit-0', name: 'edge' }),
    })).json()) as { result: { token: string } }).result.token
    const writes: number[] = []
    for (let i = 0; i < 5; i++) {
      const fetcher = await isolateNamed(i % 2 ? 'edge-b' : 'edge-a')
      const res = await fetcher.fetch('http://localhost/api/3/action/package_create', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: token },
        body: JSON.stringify({ name: `edge-limited-${i}` }),
      })
      await res.text()
      writes.push(res.status)
    }
    expect(writes).toEqual([200, 200, 200, 429, 429])
  })
})

describe('usage figures across isolates', () => {
  it('flushes each isolate\'s counts after an answer once due, and sorts by them', async () => {
    const a = await isolateNamed('edge-a')
    const post = async (name: string, body: object) => {
      const res = await a.fetch(`http://localhost/api/3/action/${name}`, {
        method: 'POST',
        // a robot's user agent: the test's own reads are not counted
        headers: { 'content-type': 'application/json', authorization: w.sysadmin.apikey, 'user-agent': 'edge-test-bot' },
        body: JSON.stringify(body),
      })
      const json = (await res.json()) as { success: boolean; result: any }
      expect(json.success, JSON.stringify(json)).toBe(true)
      return json.result
    }
    const one = await post('package_create', { name: 'edge-used-one' })
    const two = await post('package_create', { name: 'edge-used-two' })
    const read = (isolate: string, id: string, address: string) =>
      get(isolate, `/api/3/action/package_show?id=${id}`, { 'cf-connecting-ip': address, 'user-agent': 'Mozilla/5.0 edge test' })
    // two reads of `two` on each isolate (four visitors, answers from the shared cache too), one of `one`
    for (const [isolate, address] of [['edge-a', '198.18.0.1'], ['edge-b', '198.18.0.2'], ['edge-a', '198.18.0.3'], ['edge-b', '198.18.0.4']] as const)
      expect((await read(isolate, two.id, address)).status).toBe(200)
    expect((await read('edge-b', one.id, '198.18.0.5')).status).toBe(200)
    // after flush_seconds, the next answer of each isolate writes what it counted
    await new Promise((r) => setTimeout(r, 1200))
    await get('edge-a', '/api/3/action/site_read', { 'cf-connecting-ip': '198.18.0.9' })
    await get('edge-b', '/api/3/action/site_read', { 'cf-connecting-ip': '198.18.0.9' })
    let figures: any
    for (let i = 0; i < 50; i++) {
      figures = (await post('package_show', { id: two.id, include_tracking: true })).tracking_summary
      if (figures.total === 4) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(figures).toMatchObject({ total: 4, recent: 4, api_reads: { total: 4 } })
    await new Promise((r) => setTimeout(r, 1100)) // the sort's figures are read again after flush_seconds
    const order = (await post('package_search', { q: 'name:edge-used-*', sort: 'views_recent desc' })).results.map((d: { name: string }) => d.name)
    expect(order).toEqual(['edge-used-two', 'edge-used-one'])
    // more datasets across both shards, used 1 to 5 times: the order is theirs, not their ids'
    const more = []
    for (let i = 0; i < 5; i++) more.push(await post('package_create', { name: `edge-ranked-${i}` }))
    let n = 0
    for (let i = 0; i < 5; i++)
      for (let k = 0; k <= i; k++) expect((await read(n % 2 ? 'edge-b' : 'edge-a', more[i].id, `198.19.0.${n++}`)).status).toBe(200)
    await new Promise((r) => setTimeout(r, 1200))
    await get('edge-a', '/api/3/action/site_read', { 'cf-connecting-ip': '198.18.0.9' })
    await get('edge-b', '/api/3/action/site_read', { 'cf-connecting-ip': '198.18.0.9' })
    const wanted = ['edge-ranked-4', 'edge-ranked-3', 'edge-ranked-2', 'edge-ranked-1', 'edge-ranked-0']
    let ranked: string[] = []
    for (let i = 0; i < 30 && ranked.join() !== wanted.join(); i++) {
      await new Promise((r) => setTimeout(r, 300))
      ranked = (await post('package_search', { q: 'name:edge-ranked-*', sort: 'views_total desc' })).results.map((d: { name: string }) => d.name)
    }
    expect(ranked).toEqual(wanted)
  }, 30_000)
})
