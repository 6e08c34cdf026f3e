// The Node rate-limit stores (src/runtime/node-rate-limit.ts): a ratelimit.db beside the catalogue
// file, and a libSQL server's table (a remote catalogue, or the replicas' primary), each shared by
// every store (process) that opens it, counts per key and window, old windows swept.
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { afterAll, describe, expect, it } from 'vitest'
import { fileRateLimitStore, nodeRateLimitStore, serverRateLimitStore } from '../../src/runtime/node-rate-limit'
// @ts-expect-error: plain ESM script without types
import { startSqld } from '../../scripts/sqld.mjs'
import { tempDir } from '../helpers/temp-dirs'

const dir = tempDir('ckan-edge-ratelimit-')
const stops: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const s of stops) await s()
})

const window = () => {
  const start = Math.floor(Date.now() / 1000 / 3600) * 3600
  return [start, 3600] as const
}

describe('the file beside the catalogue', () => {
  it('is shared by two stores on it, per key and window', async () => {
    const a = fileRateLimitStore(join(dir, 'ratelimit.db'))
    const b = fileRateLimitStore(join(dir, 'ratelimit.db'))
    const [start, seconds] = window()
    const counts = [await a.hit('k', start, seconds), await b.hit('k', start, seconds), await a.hit('k', start, seconds), await b.hit('other', start, seconds)]
    expect(counts).toEqual([1, 2, 3, 1])
    // another window of the same key starts again
    expect(await b.hit('k', start + seconds, seconds)).toBe(1)
    a.close()
    b.close()
  })

  it('is the store nodeRateLimitStore picks for a file catalogue', async () => {
    const store = nodeRateLimitStore(`file:${join(dir, 'sub', '..', 'catalogue.db')}`, undefined) as ReturnType<typeof fileRateLimitStore>
    const [start, seconds] = window()
    expect(await store.hit('k', start, seconds)).toBe(4)
    store.close()
  })
})

describe('a libSQL server (the primary)', () => {
  it('is shared by two stores on it, and its ended windows are swept', async () => {
    const sqld = await startSqld({ dbPath: join(dir, 'primary.sqld') })
    stops.push(() => sqld.stop())
    const a = serverRateLimitStore(sqld.url)
    const b = nodeRateLimitStore('file:/nowhere/replica.db', sqld.url)
    const [start, seconds] = window()
    const counts = []
    for (let i = 0; i < 6; i++) counts.push(await (i % 2 ? b : a).hit('token', start, seconds))
    expect(counts).toEqual([1, 2, 3, 4, 5, 6])
    // a window that has ended goes at the next sweep of a new store
    await a.hit('old', 1000, 60)
    const c = serverRateLimitStore(sqld.url)
    await c.hit('token', start, seconds)
    const db = createClient({ url: sqld.url })
    await new Promise((r) => setTimeout(r, 200))
    const rows = (await db.execute('SELECT key, count FROM rate_limit ORDER BY key')).rows.map((r) => [r.key, Number(r.count)])
    expect(rows).toEqual([['token', 7]])
    db.close()
  })
})
