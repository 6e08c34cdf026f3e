// package_search include_deleted (added in CKAN 2.10, offered under every api_compat setting):
// deleted datasets are found only with it, only by those who may read them (the same permission
// labels as private and draft datasets), and count and facets follow.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, TEST_PROFILE, type Caller, type TestEnv } from '../helpers/setup'
import { loadConfig } from '../../src/config/load'
import { createApp } from '../../src/app'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { parseQ } from '../../src/search/query'

let t: TestEnv
const callers: Record<string, Caller | null> = {}

interface Fixture {
  org?: 'del-one' | 'del-two'
  private?: boolean
  deleted?: boolean
  draft?: boolean
  by?: 'sys' | 'creator'
  collaborator?: boolean
  tags: string[]
}
const DATASETS: Record<string, Fixture> = {
  live: { org: 'del-one', tags: ['river'] },
  'live-priv': { org: 'del-one', private: true, tags: ['river'] },
  'del-pub': { org: 'del-one', deleted: true, tags: ['river', 'gone'] },
  'del-priv': { org: 'del-one', private: true, deleted: true, tags: ['gone'] },
  'del-two': { org: 'del-two', deleted: true, tags: ['river', 'gone'], collaborator: true },
  'del-unowned': { by: 'creator', deleted: true, tags: ['gone'] },
  'live-draft': { org: 'del-one', draft: true, tags: ['wip'] },
}

beforeAll(async () => {
  t = await setup({ 'service.auth.allow_dataset_collaborators': 'true' })
  const sys = await t.make.sysadmin()
  const member = await t.make.user()
  const creator = await t.make.user()
  const plain = await t.make.user()
  const collaborator = await t.make.user()
  Object.assign(callers, { anonymous: null, plain, creator, member, collaborator, sysadmin: sys })
  const orgs: Record<string, { id: string }> = {
    'del-one': await t.ok('organization_create', { name: 'del-one', users: [{ name: member.name, capacity: 'member' }] }, sys),
    'del-two': await t.ok('organization_create', { name: 'del-two' }, sys),
  }
  for (const [name, f] of Object.entries(DATASETS)) {
    const d = await t.ok(
      'package_create',
      {
        name,
        title: `Dataset ${name}`,
        tags: f.tags.map((n) => ({ name: n })),
        ...(f.org ? { owner_org: orgs[f.org]!.id } : {}),
        ...(f.private ? { private: true } : {}),
      },
      f.by === 'creator' ? creator : sys,
    )
    if (f.collaborator) await t.ok('package_collaborator_create', { id: d.id, user_id: collaborator.id, capacity: 'member' }, sys)
    if (f.draft) await t.ok('package_patch', { id: d.id, state: 'draft' }, sys)
    if (f.deleted) await t.ok('package_delete', { id: d.id }, sys)
  }
})

async function search(who: string, params: object) {
  const r = await t.call(
    'package_search',
    { rows: 100, 'facet.field': ['state', 'tags', 'capacity'], 'facet.limit': -1, ...params },
    callers[who],
  )
  expect(r.status).toBe(200)
  return r.body.result
}
const names = (r: { results: { name: string }[] }) => r.results.map((d) => d.name).sort()

const LIVE = ['live']
// caller → what include_deleted finds, without and with include_private
const EXPECTED: Record<string, { deleted: string[]; deletedPrivate: string[] }> = {
  anonymous: { deleted: LIVE, deletedPrivate: LIVE },
  plain: { deleted: LIVE, deletedPrivate: LIVE },
  creator: { deleted: [...LIVE, 'del-unowned'], deletedPrivate: [...LIVE, 'del-unowned'] },
  member: { deleted: [...LIVE, 'del-pub'], deletedPrivate: [...LIVE, 'live-priv', 'del-pub', 'del-priv'] },
  // package_delete ends the dataset's collaborations (as CKAN's does): nothing left to read
  collaborator: { deleted: LIVE, deletedPrivate: LIVE },
  sysadmin: {
    deleted: [...LIVE, 'del-pub', 'del-two', 'del-unowned'],
    deletedPrivate: [...LIVE, 'live-priv', 'del-pub', 'del-priv', 'del-two', 'del-unowned'],
  },
}

function expectedFacets(found: string[]) {
  const out: Record<string, Record<string, number>> = { state: {}, tags: {}, capacity: {} }
  const inc = (field: string, v: string) => (out[field]![v] = (out[field]![v] ?? 0) + 1)
  for (const n of found) {
    const f = DATASETS[n]!
    inc('state', f.deleted ? 'deleted' : f.draft ? 'draft' : 'active')
    inc('capacity', f.private ? 'private' : 'public')
    for (const tag of f.tags) inc('tags', tag)
  }
  return out
}

describe('package_search include_deleted', () => {
  for (const [who, want] of Object.entries(EXPECTED)) {
    describe(who, () => {
      it('finds no deleted dataset without include_deleted, whatever the filter', async () => {
        for (const params of [{}, { fq: '+state:deleted' }, { fq: '+state:(active OR deleted)' }, { fq: 'tags:gone' }, { q: 'gone' }]) {
          const r = await search(who, { ...params, include_private: true, include_drafts: true })
          expect({ params, found: r.results.filter((d: { state: string }) => d.state === 'deleted') }).toEqual({ params, found: [] })
          expect(r.facets.state.deleted).toBeUndefined()
        }
      })

      it('finds exactly the deleted datasets it may read with include_deleted, and facets count only those', async () => {
        const r = await search(who, { include_deleted: true })
        expect(names(r)).toEqual([...want.deleted].sort())
        expect(r.count).toBe(want.deleted.length)
        expect(r.facets).toEqual(expectedFacets(want.deleted))
        const p = await search(who, { include_deleted: true, include_private: true })
        expect(names(p)).toEqual([...want.deletedPrivate].sort())
        expect(p.count).toBe(want.deletedPrivate.length)
        expect(p.facets).toEqual(expectedFacets(want.deletedPrivate))
      })

      it('narrows to deleted ones with fq=state:deleted or fq=+state:deleted', async () => {
        const gone = want.deletedPrivate.filter((n) => DATASETS[n]!.deleted)
        for (const fq of ['state:deleted', '+state:deleted']) {
          const r = await search(who, { fq, include_deleted: 'true', include_private: 'true' })
          expect({ fq, found: names(r), count: r.count }).toEqual({ fq, found: [...gone].sort(), count: gone.length })
        }
        const rows0 = await t.ok('package_search', { q: 'gone', rows: 0, include_deleted: true, include_private: true }, callers[who])
        expect(rows0.count).toBe(gone.length)
      })
    })
  }

  it('does not widen drafts: include_deleted without include_drafts leaves drafts out', async () => {
    const r = await search('sysadmin', { include_deleted: true, include_private: true })
    expect(names(r)).not.toContain('live-draft')
    const both = await search('sysadmin', { include_deleted: true, include_drafts: true, include_private: true })
    expect(names(both)).toContain('live-draft')
  })

  it('returns the deleted dataset dict with state deleted', async () => {
    const r = await search('sysadmin', { fq: 'name:del-pub', include_deleted: true })
    expect(r.results).toHaveLength(1)
    expect(r.results[0]).toMatchObject({ name: 'del-pub', state: 'deleted' })
  })

  it('follows a deleted dataset brought back and one purged', async () => {
    const sys = callers.sysadmin!
    await t.ok('package_create', { name: 'comes-back', tags: [{ name: 'phoenix' }] }, sys)
    await t.ok('package_delete', { id: 'comes-back' }, sys)
    expect(names(await search('anonymous', { fq: 'tags:phoenix', include_deleted: true }))).toEqual([])
    expect(names(await search('sysadmin', { fq: 'tags:phoenix', include_deleted: true }))).toEqual(['comes-back'])
    await t.ok('package_patch', { id: 'comes-back', state: 'active' }, sys)
    expect(names(await search('anonymous', { fq: 'tags:phoenix' }))).toEqual(['comes-back'])
    await t.ok('package_delete', { id: 'comes-back' }, sys)
    await t.ok('dataset_purge', { id: 'comes-back' }, sys)
    expect(names(await search('sysadmin', { fq: 'tags:phoenix', include_deleted: true, include_private: true }))).toEqual([])
  })
})

describe('package_search include_deleted in a cold process', () => {
  it('builds its index with the deleted datasets, and from a snapshot too', async () => {
    const { db, headProbe, writeExecutor, readExecutor } = await openCatalogDb(`file:${t.file}`)
    const deps = buildDeps(loadConfig({ ...TEST_PROFILE, 'service.auth.allow_dataset_collaborators': 'true' }), db, { headProbe, writeExecutor, readExecutor })
    await warmUp(deps)
    const app = createApp(deps)
    const find = async () => {
      const res = await app.request('/api/3/action/package_search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: callers.sysadmin!.apikey },
        body: JSON.stringify({ fq: 'tags:gone', include_deleted: true, include_private: true, rows: 100 }),
      })
      return ((await res.json()).result.results as { name: string }[]).map((d) => d.name).sort()
    }
    const gone = ['del-pub', 'del-priv', 'del-two', 'del-unowned'].sort()
    expect(await find()).toEqual(gone)
    await deps.search.writeSnapshot()
    deps.search.stop()
    const again = buildDeps(loadConfig(TEST_PROFILE), db, { headProbe, writeExecutor, readExecutor })
    await warmUp(again)
    const index = await again.search.ready()
    const hits = await index.search({
      q: parseQ('*:*'),
      filters: [],
      visibility: { states: ['deleted'], includePrivate: true, labels: null },
      sort: [{ field: 'name', direction: 'asc' }],
      start: 0,
      rows: 100,
    })
    expect(hits.count).toBe(gone.length)
    again.search.stop()
  })
})

describe('package_search include_deleted under api_compat 2.11', () => {
  it('is offered there too, with the same rules', async () => {
    const t11 = await setup({ 'service.api_compat': '2.11' })
    const sys = await t11.make.sysadmin()
    const user = await t11.make.user()
    const d = await t11.make.dataset(sys, { tags: [{ name: 'eleven' }] })
    await t11.ok('package_delete', { id: d.id }, sys)
    const find = async (as: Caller | null, extra: object = {}) =>
      (await t11.ok('package_search', { fq: 'tags:eleven', ...extra }, as)).results.map((x: { id: string }) => x.id)
    expect(await find(sys)).toEqual([])
    expect(await find(sys, { include_deleted: true })).toEqual([d.id])
    expect(await find(user, { include_deleted: true })).toEqual([])
    expect(await find(null, { include_deleted: true })).toEqual([])
  })
})
