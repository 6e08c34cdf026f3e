// Shards that keep themselves in step with the change log (MemorySearchService with `shard`),
// searched through ShardedSearchService: package_search answers exactly as the whole index, for
// every caller, after writes, and after a shard is lost and rebuilt from the database.
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import type { MemoryIndex } from '../../src/search/minisearch'
import { MemorySearchService } from '../../src/search/service'
import { ShardedSearchService, type ShardClient } from '../../src/search/shards'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }
let t: TestEnv
let sys: Who
let member: Who
let outsider: Who
let collaborator: Who
let org: { id: string; name: string }
const apps = new Map<number, { app: ReturnType<typeof createApp>; shards: MemorySearchService[] }>()

function shardApp(n: number) {
  const io = t.deps
  const shards = Array.from({ length: n }, (_, index) => new MemorySearchService(io, { shard: { index, of: n }, snapshots: false }))
  const clients = (): ShardClient[] =>
    shards.map((s) => ({
      collectStats: async (req) => ((await s.ready()) as MemoryIndex).collectStats(req),
      search: async (req) => (await s.ready()).search(req),
    }))
  const app = createApp({ ...t.deps, search: new ShardedSearchService(clients) })
  apps.set(n, { app, shards })
}

beforeAll(async () => {
  t = await setup({ 'ckan.auth.allow_dataset_collaborators': 'true' })
  sys = await t.make.sysadmin()
  member = await t.make.user()
  outsider = await t.make.user()
  collaborator = await t.make.user()
  org = await t.make.organization(sys, { title: 'Water Board' })
  const other = await t.make.organization(sys)
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'editor' }, sys)
  const words = ['water', 'river', 'quality', 'air', 'budget', 'school', 'rail', 'solar']
  for (let i = 0; i < 60; i++) {
    const d = await t.make.dataset(sys, {
      title: `${words[i % 8]} ${words[(i * 3) % 8]} report ${i}`,
      notes: `About ${words[(i * 5) % 8]} and ${words[(i * 7) % 8]}`,
      owner_org: i % 3 ? org.id : other.id,
      private: i % 5 === 0,
      tags: [{ name: words[i % 4]! }],
      resources: [{ url: `http://e.com/${i}.${i % 2 ? 'csv' : 'json'}` }],
      extras: i % 4 ? [] : [{ key: 'frequency', value: 'weekly' }],
    })
    if (i % 10 === 5) await t.ok('package_collaborator_create', { id: d.id, user_id: collaborator.id, capacity: 'member' }, sys)
    if (i % 17 === 3) await t.ok('package_delete', { id: d.id }, sys)
  }
  await t.make.dataset(sys, { title: 'A draft', state: 'draft', owner_org: org.id })
  for (const n of [1, 2, 8]) shardApp(n)
})

const SEARCHES: Record<string, unknown>[] = [
  {},
  { q: 'water' },
  { q: 'water quality', 'facet.field': ['organization', 'tags', 'res_format'], rows: 20 },
  { q: '"water quality"' },
  { q: 'river OR air', sort: 'name desc', rows: 5, start: 3 },
  { fq: `organization:${'%ORG%'}`, sort: 'metadata_modified desc', rows: 50 },
  { q: 'frequency:weekly', include_private: true },
  { q: 'report', include_private: true, include_drafts: true, 'facet.field': ['capacity'], rows: 100 },
  { q: 'report', include_deleted: true, include_private: true },
  { q: 'budget~1 sol*', sort: 'score desc, name asc' },
  { q: '*:*', cursor: '*', rows: 7, sort: 'name asc' },
]

async function answer(app: ReturnType<typeof createApp>, params: Record<string, unknown>, as: Caller | null) {
  const body = JSON.stringify(params).replace('%ORG%', org.name)
  const res = await app.request('/api/3/action/package_search', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(as ? { authorization: as.apikey } : {}) },
    body,
  })
  return res.json()
}

async function compare(n: number) {
  const { app } = apps.get(n)!
  for (const as of [null, sys, member, outsider, collaborator])
    for (const s of SEARCHES) expect(await answer(app, s, as), `${n} shards, ${JSON.stringify(s)}`).toEqual(await answer(t.app, s, as))
}

describe('package_search through shards kept by the change log', () => {
  it('answers as the whole index at 1, 2 and 8 shards, for every caller', async () => {
    for (const n of [1, 2, 8]) await compare(n)
  })

  it('follows writes: updates, deletions, an organization renamed, a dataset made private', async () => {
    const made = await t.make.dataset(sys, { title: 'Fresh water data', owner_org: org.id, tags: [{ name: 'water' }] })
    const found = (await t.ok('package_search', { q: 'report', rows: 3 })).results as { id: string }[]
    await t.ok('package_patch', { id: found[0]!.id, title: 'Renamed solar report' }, sys)
    await t.ok('package_patch', { id: found[1]!.id, private: true }, sys)
    await t.ok('package_delete', { id: found[2]!.id }, sys)
    await t.ok('organization_patch', { id: org.id, title: 'River Authority' }, sys)
    await t.ok('package_collaborator_create', { id: made.id, user_id: outsider.id, capacity: 'editor' }, sys)
    for (const n of [2, 8]) await compare(n)
  })

  it('answers the same after a shard is lost and rebuilds itself from the database', async () => {
    const n = 8
    const entry = apps.get(n)!
    entry.shards[3] = new MemorySearchService(t.deps, { shard: { index: 3, of: n }, snapshots: false })
    await t.make.dataset(sys, { name: uniq('after-loss'), title: 'water after the loss' })
    await compare(n)
  })
})

describe("a shard's own snapshot", () => {
  const memoryStore = () => {
    let kept: { seq: number; bytes: Uint8Array } | null = null
    return {
      store: {
        read: async () => kept,
        write: async (_io: unknown, seq: number, bytes: Uint8Array) => {
          kept = { seq, bytes: bytes.slice() }
        },
      },
      get kept() {
        return kept
      },
    }
  }

  it('is written when due, loaded by a new shard with the log after it, and refused once the log was pruned past it', async () => {
    const mem = memoryStore()
    const shard = { index: 1, of: 2 }
    const first = new MemorySearchService(t.deps, { shard, snapshotStore: mem.store })
    await first.ready()
    expect(first.loadedFrom).toBe('datasets')
    expect(first.snapshotDue).toBe(true)
    await first.writeSnapshot()
    expect(first.snapshotDue).toBe(false)
    expect(mem.kept).not.toBeNull()
    // a change after the snapshot: a new shard loads the snapshot and applies it from the log
    const later = await t.make.dataset(sys, { title: 'written after the snapshot' })
    const second = new MemorySearchService(t.deps, { shard, snapshotStore: mem.store })
    const index = await second.ready()
    expect(second.loadedFrom).toBe('snapshot')
    const { shardOf } = await import('../../src/search/shards')
    expect(index.has(later.id)).toBe(shardOf(later.id, 2) === 1)
    // new metadata schemas (a scheming snapshot stored by another process): an index in memory is
    // built again from the datasets, and a snapshot made before is not loaded
    await second.writeSnapshot()
    await t.client.execute({ sql: "INSERT INTO change_log (entity_type, entity_id, op) VALUES ('config', 'scheming:snapshot', 'upsert')", args: [] })
    await t.deps.changes.catchUp()
    await second.ready()
    expect(second.loadedFrom).toBe('datasets')
    const afterSchemas = new MemorySearchService(t.deps, { shard, snapshotStore: mem.store })
    await afterSchemas.ready()
    expect(afterSchemas.loadedFrom).toBe('datasets')
    afterSchemas.stop()
    await second.writeSnapshot()
    // the log pruned past the snapshot: a new shard builds from the datasets
    await t.make.dataset(sys, { title: 'another' })
    await t.client.execute({ sql: 'DELETE FROM change_log WHERE seq <= ?', args: [mem.kept!.seq + 1] })
    const third = new MemorySearchService(t.deps, { shard, snapshotStore: mem.store })
    await third.ready()
    expect(third.loadedFrom).toBe('datasets')
    for (const s of [first, second, third]) s.stop()
  })
})
