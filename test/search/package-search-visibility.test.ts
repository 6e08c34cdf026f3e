// package_search end to end: who finds which datasets (search.md §2) – anonymous, a plain user,
// org members of each role, the creator of unowned drafts and a sysadmin – and that count and
// facets only ever reflect the visible datasets.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
const callers: Record<string, Caller | null> = {}

interface Fixture {
  org?: 'vis-one' | 'vis-two' | 'vis-child'
  private?: boolean
  draft?: boolean
  deleted?: boolean
  by?: 'sys' | 'creator'
  tags: string[]
}
// The catalogue: name → how it is created.
const DATASETS: Record<string, Fixture> = {
  pub1: { org: 'vis-one', tags: ['shared'] },
  priv1: { org: 'vis-one', private: true, tags: ['shared', 'secret'] },
  draft1: { org: 'vis-one', draft: true, tags: ['shared', 'wip'] },
  privdraft1: { org: 'vis-one', private: true, draft: true, tags: ['secret', 'wip'] },
  pub2: { org: 'vis-two', tags: ['shared'] },
  priv2: { org: 'vis-two', private: true, tags: ['secret'] },
  // vis-child is a child organization of vis-one: only vis-one's admins inherit a role there
  childpriv: { org: 'vis-child', private: true, tags: ['secret'] },
  draft2: { org: 'vis-two', draft: true, tags: ['wip'] },
  'unowned-pub': { by: 'creator', tags: ['shared'] },
  'unowned-draft': { by: 'creator', draft: true, tags: ['wip'] },
  'sys-draft': { by: 'sys', draft: true, tags: ['wip'] },
  deleted1: { org: 'vis-one', deleted: true, tags: ['shared', 'gone'] },
  deleted2: { org: 'vis-one', private: true, deleted: true, tags: ['secret', 'gone'] },
  'deleted-unowned': { by: 'creator', deleted: true, tags: ['gone'] },
}

beforeAll(async () => {
  t = await setup()
  const sys = await t.make.sysadmin()
  const admin = await t.make.user()
  const editor = await t.make.user()
  const member = await t.make.user()
  const creator = await t.make.user()
  const plain = await t.make.user()
  const outsider = await t.make.user() // admin of vis-two only
  Object.assign(callers, { anonymous: null, plain, creator, member, editor, admin, outsider, sysadmin: sys })
  const orgs: Record<string, { id: string }> = {
    'vis-one': await t.ok(
      'organization_create',
      {
        name: 'vis-one',
        title: 'Visible One',
        users: [
          { name: admin.name, capacity: 'admin' },
          { name: editor.name, capacity: 'editor' },
          { name: member.name, capacity: 'member' },
        ],
      },
      sys,
    ),
    'vis-two': await t.ok(
      'organization_create',
      { name: 'vis-two', title: 'Visible Two', users: [{ name: outsider.name, capacity: 'admin' }] },
      sys,
    ),
  }
  orgs['vis-child'] = await t.ok(
    'organization_create',
    { name: 'vis-child', title: 'Visible Child', groups: [{ name: 'vis-one' }] },
    sys,
  )
  for (const [name, f] of Object.entries(DATASETS)) {
    const as = f.by === 'creator' ? creator : sys
    const d = await t.ok(
      'package_create',
      {
        name,
        title: `Dataset ${name}`,
        tags: f.tags.map((n) => ({ name: n })),
        resources: [{ name: 'data', format: 'CSV' }],
        ...(f.org ? { owner_org: orgs[f.org]!.id } : {}),
        ...(f.private ? { private: true } : {}),
      },
      as,
    )
    if (f.draft) await t.ok('package_patch', { id: d.id, state: 'draft' }, sys)
    if (f.deleted) await t.ok('package_delete', { id: d.id }, sys)
  }
  // Sanity: the fixture is what the table below assumes.
  expect((await t.ok('package_show', { id: 'unowned-draft' }, sys)).state).toBe('draft')
  expect((await t.ok('package_show', { id: 'privdraft1' }, sys))).toMatchObject({ state: 'draft', private: true })
})

const PUBLIC = ['pub1', 'pub2', 'unowned-pub']
type Flags = 'none' | 'private' | 'drafts' | 'both'
const FLAGS: Record<Flags, object> = {
  none: {},
  private: { include_private: true },
  drafts: { include_drafts: true },
  both: { include_private: true, include_drafts: true },
}

// caller → flags → names found with q=*:*; and what `fq=+state:draft` finds (without / with include_private).
const EXPECTED: Record<string, Record<Flags, string[]> & { draftFq: string[]; draftFqPrivate: string[] }> = {
  anonymous: { none: PUBLIC, private: PUBLIC, drafts: PUBLIC, both: PUBLIC, draftFq: [], draftFqPrivate: [] },
  plain: { none: PUBLIC, private: PUBLIC, drafts: PUBLIC, both: PUBLIC, draftFq: [], draftFqPrivate: [] },
  creator: {
    none: PUBLIC,
    private: PUBLIC,
    drafts: [...PUBLIC, 'unowned-draft'],
    both: [...PUBLIC, 'unowned-draft'],
    draftFq: ['unowned-draft'],
    draftFqPrivate: ['unowned-draft'],
  },
  ...Object.fromEntries(
    ['member', 'editor'].map((role) => [
      role,
      {
        none: PUBLIC,
        private: [...PUBLIC, 'priv1'],
        drafts: [...PUBLIC, 'draft1'],
        both: [...PUBLIC, 'priv1', 'draft1', 'privdraft1'],
        draftFq: ['draft1'],
        draftFqPrivate: ['draft1', 'privdraft1'],
      },
    ]),
  ),
  admin: {
    none: PUBLIC,
    private: [...PUBLIC, 'priv1', 'childpriv'],
    drafts: [...PUBLIC, 'draft1'],
    both: [...PUBLIC, 'priv1', 'draft1', 'privdraft1', 'childpriv'],
    draftFq: ['draft1'],
    draftFqPrivate: ['draft1', 'privdraft1'],
  },
  outsider: {
    none: PUBLIC,
    private: [...PUBLIC, 'priv2'],
    drafts: [...PUBLIC, 'draft2'],
    both: [...PUBLIC, 'priv2', 'draft2'],
    draftFq: ['draft2'],
    draftFqPrivate: ['draft2'],
  },
  sysadmin: {
    none: PUBLIC,
    private: [...PUBLIC, 'priv1', 'priv2', 'childpriv'],
    drafts: [...PUBLIC, 'draft1', 'draft2', 'unowned-draft', 'sys-draft'],
    both: [...PUBLIC, 'priv1', 'priv2', 'childpriv', 'draft1', 'draft2', 'privdraft1', 'unowned-draft', 'sys-draft'],
    draftFq: ['draft1', 'draft2', 'unowned-draft', 'sys-draft'],
    draftFqPrivate: ['draft1', 'draft2', 'privdraft1', 'unowned-draft', 'sys-draft'],
  },
}

const FACETS = ['tags', 'organization', 'capacity', 'state']

async function search(who: string, params: object) {
  const r = await t.call(
    'package_search',
    { rows: 100, 'facet.field': FACETS, 'facet.limit': -1, ...params },
    callers[who],
  )
  expect(r.status).toBe(200)
  return r.body.result
}

/** The facet counts the visible datasets must produce. */
function expectedFacets(names: string[]) {
  const out: Record<string, Record<string, number>> = { tags: {}, organization: {}, capacity: {}, state: {} }
  const inc = (field: string, v: string) => {
    const counts = (out[field] ??= {})
    counts[v] = (counts[v] ?? 0) + 1
  }
  for (const n of names) {
    const f = DATASETS[n]!
    for (const tag of f.tags) inc('tags', tag)
    if (f.org) inc('organization', f.org)
    inc('capacity', f.private ? 'private' : 'public')
    inc('state', f.draft ? 'draft' : 'active')
  }
  return out
}

describe('package_search visibility (search.md §2)', () => {
  for (const [who, rows] of Object.entries(EXPECTED)) {
    describe(who, () => {
      for (const flags of Object.keys(FLAGS) as Flags[]) {
        it(`finds exactly its datasets with include flags: ${flags}, and facets count only those`, async () => {
          const r = await search(who, FLAGS[flags])
          const names = r.results.map((d: { name: string }) => d.name).sort()
          expect(names).toEqual([...rows[flags]].sort())
          expect(r.count).toBe(rows[flags].length)
          expect(r.facets).toEqual(expectedFacets(rows[flags]))
        })
      }

      it('finds only the drafts it may see with fq=+state:draft', async () => {
        const r = await search(who, { fq: '+state:draft' })
        expect(r.results.map((d: { name: string }) => d.name).sort()).toEqual([...rows.draftFq].sort())
        expect(r.count).toBe(rows.draftFq.length)
        expect(r.facets).toEqual(expectedFacets(rows.draftFq))
        const p = await search(who, { fq: '+state:draft', include_private: true })
        expect(p.results.map((d: { name: string }) => d.name).sort()).toEqual([...rows.draftFqPrivate].sort())
        expect(p.facets).toEqual(expectedFacets(rows.draftFqPrivate))
      })

      it('never finds deleted datasets', async () => {
        for (const fq of ['+state:deleted', 'tags:gone', 'name:deleted1 OR name:deleted2 OR name:deleted-unowned']) {
          const r = await search(who, { fq, include_private: true, include_drafts: true })
          expect({ fq, count: r.count, results: r.results }).toEqual({ fq, count: 0, results: [] })
        }
      })
    })
  }

  it('keeps the default state filter for a state filter without +', async () => {
    const r = await search('sysadmin', { fq: 'state:draft' })
    expect(r.count).toBe(0)
  })

  it('shows the same visibility in search_facets', async () => {
    const r = await search('member', { include_private: true })
    expect(r.search_facets.organization.items).toEqual([
      { count: 1, display_name: 'Visible Two', name: 'vis-two' },
      { count: 2, display_name: 'Visible One', name: 'vis-one' },
    ])
    const anon = await search('anonymous', { include_private: true, include_drafts: true })
    expect(anon.search_facets.capacity.items).toEqual([{ count: 3, display_name: 'public', name: 'public' }])
  })

  it('counts private and draft datasets with rows=0 only for those who may see them', async () => {
    for (const [who, rows] of Object.entries(EXPECTED)) {
      const r = await t.ok('package_search', { rows: 0, include_private: true, include_drafts: true }, callers[who])
      expect({ who, count: r.count }).toEqual({ who, count: rows.both.length })
    }
  })
})
