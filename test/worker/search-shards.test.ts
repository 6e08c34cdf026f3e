// Issue 32: the search index in Durable Objects (SEARCH_SHARD, service.search.shards) in workerd
// against sqld answers package_search exactly as a Node process over the same catalogue, at 1, 2
// and 8 shards, for anonymous callers, members, collaborators and sysadmins, and after writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Miniflare } from 'miniflare'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { TEST_PROFILE } from '../helpers/setup'
import { okWorker, startWorker, type WorkerEnv } from './harness'
import { parseQ } from '../../src/search/query'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'libsql'
import { tempDir } from '../helpers/temp-dirs'

let w: WorkerEnv
const sharded = new Map<number, Miniflare>()
let member: { apikey: string }
let collaborator: { apikey: string }
let node: { app: ReturnType<typeof createApp>; close: () => void }

const VARS = { 'ckan.auth.allow_dataset_collaborators': 'true' }

async function userWithToken(mf: Miniflare, name: string) {
  await okWorker(mf, 'user_create', { name, email: `${name}@example.org`, password: 'password123' }, w.sysadmin)
  const { token } = await okWorker(mf, 'api_token_create', { user: name, name: 'test' }, w.sysadmin)
  return { apikey: token as string }
}

beforeAll(async () => {
  w = await startWorker(VARS)
  const mf = w.mf
  member = await userWithToken(mf, 'shard-member')
  collaborator = await userWithToken(mf, 'shard-collaborator')
  const org = await okWorker(mf, 'organization_create', { name: 'shard-org', title: 'Shard Org' }, w.sysadmin)
  await okWorker(mf, 'organization_member_create', { id: org.id, username: 'shard-member', role: 'editor' }, w.sysadmin)
  const words = ['water', 'river', 'quality', 'air', 'budget', 'school', 'rail', 'solar']
  for (let i = 0; i < 40; i++) {
    const d = await okWorker(
      mf,
      'package_create',
      {
        name: `shard-ds-${i}`,
        title: `${words[i % 8]} ${words[(i * 3) % 8]} report ${i}`,
        notes: `About ${words[(i * 5) % 8]} and ${words[(i * 7) % 8]}`,
        owner_org: i % 4 ? org.id : undefined,
        private: i % 4 !== 0 && i % 5 === 0,
        tags: [{ name: words[i % 4]! }],
        resources: [{ url: `http://e.com/${i}.${i % 2 ? 'csv' : 'json'}` }],
      },
      w.sysadmin,
    )
    if (i % 10 === 5) await okWorker(mf, 'package_collaborator_create', { id: d.id, user_id: 'shard-collaborator', capacity: 'member' }, w.sysadmin)
  }
  for (const n of [1, 2, 8]) sharded.set(n, await w.isolate({ SERVICE__SEARCH__SHARDS: String(n) }))
  const opened = await openCatalogDb(w.catalogue.url)
  const deps = buildDeps(loadConfig({ ...TEST_PROFILE, ...VARS }), opened.db)
  await warmUp(deps)
  node = { app: createApp(deps), close: () => opened.close() }
}, 180_000)
afterAll(async () => {
  node?.close()
  await w?.close()
})

const SEARCHES: Record<string, unknown>[] = [
  {},
  { q: 'water' },
  { q: 'water quality', 'facet.field': ['organization', 'tags', 'res_format'], rows: 20 },
  { q: '"water quality"' },
  { q: 'river OR air', sort: 'name desc', rows: 5, start: 3 },
  { fq: 'organization:shard-org', sort: 'metadata_modified desc', rows: 50 },
  { q: 'report', include_private: true, include_drafts: true, 'facet.field': ['capacity'], rows: 100 },
  { q: 'budget~1 sol*', sort: 'score desc, name asc' },
  { q: '*:*', cursor: '*', rows: 7, sort: 'name asc' },
]

async function onNode(params: Record<string, unknown>, as: { apikey: string } | null) {
  const res = await node.app.request('/api/3/action/package_search', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(as ? { authorization: as.apikey } : {}) },
    body: JSON.stringify(params),
  })
  return ((await res.json()) as { result: unknown }).result
}

async function compareAll(n: number) {
  const mf = sharded.get(n)!
  for (const as of [null, w.sysadmin, member, collaborator])
    for (const s of SEARCHES) expect(await okWorker(mf, 'package_search', s, as ?? undefined), `${n} shards, ${JSON.stringify(s)}`).toEqual(await onNode(s, as))
}

describe('package_search with the index in Durable Objects', () => {
  it('answers as Node at 1, 2 and 8 shards, for every caller', async () => {
    for (const n of [1, 2, 8]) await compareAll(n)
  }, 120_000)

  it('follows writes made through another isolate (the change log reaches the shards)', async () => {
    await okWorker(w.mf, 'package_create', { name: 'shard-fresh', title: 'Fresh water report', tags: [{ name: 'water' }] }, w.sysadmin)
    await okWorker(w.mf, 'package_patch', { id: 'shard-ds-3', title: 'Renamed solar report' }, w.sysadmin)
    await okWorker(w.mf, 'package_delete', { id: 'shard-ds-7' }, w.sysadmin)
    await okWorker(w.mf, 'organization_patch', { id: 'shard-org', title: 'River Authority' }, w.sysadmin)
    for (const n of [2, 8]) await compareAll(n)
    const found = await okWorker(sharded.get(8)!, 'package_search', { q: 'fresh' })
    expect(found.results.map((d: { name: string }) => d.name)).toEqual(['shard-fresh'])
  }, 120_000)
})

describe('the shards themselves', () => {
  it('each Durable Object holds its part of the catalogue, and the parts make the whole', async () => {
    const mf = sharded.get(8)!
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ns = (await mf.getDurableObjectNamespace('SEARCH_SHARD')) as any
    const everything = { q: parseQ(''), filters: [], visibility: { states: null, includePrivate: true, labels: null }, sort: [], start: 0, rows: 0 }
    const counts: number[] = []
    for (let index = 0; index < 8; index++) {
      const stub = ns.get(ns.idFromName(`search-8-${index}`))
      const res = await stub.fetch('https://search-shard/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ shard: { index, of: 8 }, request: everything }),
      })
      counts.push(((await res.json()) as { ok: { count: number } }).ok.count)
    }
    const total = (await okWorker(mf, 'package_search', { include_private: true, include_drafts: true, include_deleted: true, rows: 0 }, w.sysadmin)).count
    expect(counts.reduce((a, b) => a + b, 0)).toBe(total)
    expect(Math.max(...counts)).toBeLessThan(total)
    expect(counts.filter((c) => c > 0).length).toBeGreaterThan(4)
  })
})

describe('a shard that starts cold', () => {
  it('writes its snapshot to its storage, and a new object loads it and the log after it', async () => {
    const persist = tempDir('ckan-edge-shards-')
    const first = await w.isolate({ SERVICE__SEARCH__SHARDS: '2' }, { durableObjectsPersist: persist })
    const asked = { q: 'water OR report', rows: 30, 'facet.field': ['tags'] }
    expect(await okWorker(first, 'package_search', asked)).toEqual(await onNode(asked, null))
    // the snapshots are written once the answers have gone: wait for both objects' files to hold one
    const snapshots = async () => {
      const files = readdirSync(persist, { recursive: true }).map(String).filter((f) => f.endsWith('.sqlite'))
      let rows = 0
      let objects = 0
      for (const f of files) {
        const db = new Database(join(persist, f), { readonly: true })
        try {
          const has = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'search_snapshot'").get() as { n: number }).n
          const n = has ? (db.prepare('SELECT count(*) AS n FROM search_snapshot').get() as { n: number }).n : 0
          rows += n
          if (n) objects++
        } finally {
          db.close()
        }
      }
      return { objects, rows }
    }
    let seen = await snapshots()
    for (let i = 0; i < 50 && seen.objects < 2; i++) {
      await new Promise((r) => setTimeout(r, 100))
      seen = await snapshots()
    }
    // one snapshot per shard object
    expect(seen.objects).toBe(2)
    expect(seen.rows).toBeGreaterThanOrEqual(2)
    await first.dispose()
    // changes while no object ran: the next ones load their snapshot and apply the log after it
    await okWorker(w.mf, 'package_create', { name: 'shard-while-cold', title: 'Water while cold', tags: [{ name: 'water' }] }, w.sysadmin)
    await okWorker(w.mf, 'package_patch', { id: 'shard-ds-11', title: 'Water, renamed while cold' }, w.sysadmin)
    const second = await w.isolate({ SERVICE__SEARCH__SHARDS: '2' }, { durableObjectsPersist: persist })
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ns = (await second.getDurableObjectNamespace('SEARCH_SHARD')) as any
    for (let index = 0; index < 2; index++) {
      const res = await ns.get(ns.idFromName(`search-2-${index}`)).fetch('https://search-shard/status', {
        method: 'POST',
        body: JSON.stringify({ shard: { index, of: 2 }, request: {} }),
      })
      expect(((await res.json()) as { ok: { loadedFrom: string } }).ok.loadedFrom).toBe('snapshot')
    }
    for (const as of [null, w.sysadmin, member])
      for (const s of [asked, ...SEARCHES]) expect(await okWorker(second, 'package_search', s, as ?? undefined)).toEqual(await onNode(s, as))
    await second.dispose()
  }, 120_000)
})

describe('resharding', () => {
  it('from 2 to 4 shards under a stream of writes and searches never answers wrong', async () => {
    // a new count is a new set of objects, built from the database before its first answer;
    // isolates still at 2 and those already at 4 answer side by side meanwhile
    const two = sharded.get(2)!
    const four = await w.isolate({ SERVICE__SEARCH__SHARDS: '4' })
    const asked = [{ q: 'stream' }, { q: 'water OR stream', rows: 50, 'facet.field': ['tags'] }, { fq: 'tags:stream', sort: 'name asc' }]
    for (let i = 0; i < 12; i++) {
      await okWorker(w.mf, 'package_create', { name: `shard-stream-${i}`, title: `Stream ${i} water`, tags: [{ name: 'stream' }] }, w.sysadmin)
      if (i % 3 === 2) await okWorker(w.mf, 'package_delete', { id: `shard-stream-${i - 1}` }, w.sysadmin)
      const s = asked[i % asked.length]!
      const want = await onNode(s, null)
      expect(await okWorker(i % 2 ? four : two, 'package_search', s)).toEqual(want)
      expect(await okWorker(i % 2 ? two : four, 'package_search', s)).toEqual(want)
    }
  }, 120_000)
})

describe('automatic sizing', () => {
  it('keeps the index in the isolate while the catalogue is small, then builds the shards and switches at a Cron Trigger', async () => {
    const iso = await w.isolate({ SERVICE__SEARCH__LOCAL_MAX_DATASETS: '5' })
    const asked = { q: 'water OR report', rows: 25, 'facet.field': ['tags'] }
    expect(await okWorker(iso, 'package_search', asked)).toEqual(await onNode(asked, null))
    const active = async () => {
      const opened = await openCatalogDb(w.catalogue.url)
      try {
        const rows = await opened.client.execute("SELECT value FROM system_info WHERE key = 'search:shards'")
        return rows.rows[0]?.value ?? null
      } finally {
        opened.close()
      }
    }
    expect(await active()).toBeNull()
    const worker = (await iso.getWorker()) as unknown as { scheduled(opts: { cron: string }): Promise<{ outcome: string }> }
    expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok')
    // more than 5 datasets, far fewer than a 64 MB shard holds: the smallest count, 2
    expect(await active()).toBe('2')
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ns = (await iso.getDurableObjectNamespace('SEARCH_SHARD')) as any
    let held = 0
    for (let index = 0; index < 2; index++) {
      const res = await ns.get(ns.idFromName(`search-2-${index}`)).fetch('https://search-shard/status', { method: 'POST', body: JSON.stringify({ shard: { index, of: 2 }, request: {} }) })
      held += ((await res.json()) as { ok: { datasets: number } }).ok.datasets
    }
    const total = (await okWorker(iso, 'package_search', { include_private: true, include_drafts: true, include_deleted: true, rows: 0 }, w.sysadmin)).count
    expect(held).toBe(total)
    // this isolate and a new one follow the switch; answers stay right
    const fresh = await w.isolate({ SERVICE__SEARCH__LOCAL_MAX_DATASETS: '5' })
    for (const mf of [iso, iso, fresh]) for (const s of [asked, ...SEARCHES]) expect(await okWorker(mf, 'package_search', s)).toEqual(await onNode(s, null))
    // nothing to change at the next trigger
    expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok')
    expect(await active()).toBe('2')
  }, 120_000)
})

describe('every way in searches through the shards', () => {
  it('the web search page, the DCAT catalogue with q and fq, and the MCP search tool answer as on an isolate with its own index', async () => {
    const local = await w.isolate({ SERVICE__SEARCH__SHARDS: '0' })
    const eight = sharded.get(8)!
    const text = async (mf: Miniflare, path: string) => (await mf.dispatchFetch(`http://localhost${path}`)).text()
    // the page's dataset links, in order, and its count
    const listed = (html: string) => [...html.matchAll(/href="\/dataset\/(shard-[a-z0-9-]+)"/g)].map((m) => m[1])
    for (const path of ['/dataset?q=water', '/dataset?q=report&sort=name+desc', '/dataset?tags=water']) {
      const [a, b] = [await text(local, path), await text(eight, path)]
      expect(listed(b), path).toEqual(listed(a))
      expect(listed(b).length, path).toBeGreaterThan(0)
    }
    for (const path of ['/catalog.ttl?q=water', '/catalog.jsonld?fq=tags:river']) {
      const [a, b] = [await text(local, path), await text(eight, path)]
      // the datasets' URIs (by id or name), as the catalogue lists them
      const names = (s: string) => [...new Set([...s.matchAll(/\/dataset\/([0-9a-z-]+)/g)].map((m) => m[1]))].sort()
      expect(names(b), path).toEqual(names(a))
      expect(names(b).length, path).toBeGreaterThan(0)
    }
    const mcp = async (mf: Miniflare) => {
      const rpc = async (id: number, method: string, params: object) => {
        const res = await mf.dispatchFetch('http://localhost/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        })
        return ((await res.json()) as { result: { content: { text: string }[] } }).result
      }
      await rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'shards', version: '1' } })
      const found = await rpc(2, 'tools/call', { name: 'package_search', arguments: { q: 'water', rows: 20 } })
      return JSON.parse(found.content[0]!.text) as { count: number; results: { name: string }[] }
    }
    const [a, b] = [await mcp(local), await mcp(eight)]
    expect(b.count).toBe(a.count)
    expect(b.results.map((d) => d.name)).toEqual(a.results.map((d) => d.name))
  }, 60_000)
})

describe('a shard that loses its memory mid-run', () => {
  it('catches up by itself and answers right at the next search', async () => {
    const mf = sharded.get(8)!
    const asked = { q: 'water OR report OR stream', rows: 40, 'facet.field': ['tags', 'organization'] }
    expect(await okWorker(mf, 'package_search', asked)).toEqual(await onNode(asked, null))
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ns = (await mf.getDurableObjectNamespace('SEARCH_SHARD')) as any
    const call = async (index: number, op: string) =>
      (await (await ns.get(ns.idFromName(`search-8-${index}`)).fetch(`https://search-shard/${op}`, { method: 'POST', body: JSON.stringify({ shard: { index, of: 8 }, request: {} }) })).json()) as { ok: { loadedFrom?: string } }
    await call(3, 'reset')
    // writes while it is gone reach it through the log
    await okWorker(w.mf, 'package_create', { name: 'shard-after-reset', title: 'Water after a reset', tags: [{ name: 'water' }] }, w.sysadmin)
    await okWorker(w.mf, 'package_delete', { id: 'shard-ds-12' }, w.sysadmin)
    for (const as of [null, w.sysadmin, member]) for (const s of [asked, ...SEARCHES]) expect(await okWorker(mf, 'package_search', s, as ?? undefined)).toEqual(await onNode(s, as))
    expect((await call(3, 'status')).ok.loadedFrom).not.toBeNull()
  }, 60_000)
})
