// package_autocomplete, format_autocomplete, user_autocomplete, group_ and organization_autocomplete.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let member: Who
let stranger: Who
let org: { id: string; name: string }
// A token that makes this file's names unique within the database.
const P = `ac${Date.now().toString(36)}`

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(sys, { name: `${P}-org-main`, title: 'Main Publisher' })
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
})

const invalid = (r: { status: number; body: any }, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

describe('package_autocomplete', () => {
  beforeAll(async () => {
    const ds = (name: string, title: string, extra: Record<string, unknown> = {}) =>
      t.make.dataset(sys, { name, title, owner_org: org.id, ...extra })
    await ds(`${P}-pk-warandpeace`, 'A Wonderful Story')
    await ds(`${P}-pk-other`, 'Tales of War and Peace')
    await ds(`${P}-pk-alpha`, `${P}-PK Warandpeace Revisited`)
    await ds(`${P}-pk-secret-war`, 'Hidden', { private: true })
    const gone = await ds(`${P}-pk-deleted-war`, 'Gone')
    await t.ok('package_delete', { id: gone.id }, sys)
  })

  it('puts name matches first, then title matches, each by name', async () => {
    const r = await t.ok('package_autocomplete', { q: `${P}-PK-WAR` })
    expect(r).toEqual([
      {
        name: `${P}-pk-warandpeace`,
        title: 'A Wonderful Story',
        match_field: 'name',
        match_displayed: `${P}-pk-warandpeace`,
      },
    ])
    const byTitle = await t.ok('package_autocomplete', { q: 'war AND peace' })
    expect(byTitle).toEqual([
      {
        name: `${P}-pk-other`,
        title: 'Tales of War and Peace',
        match_field: 'title',
        match_displayed: `Tales of War and Peace (${P}-pk-other)`,
      },
    ])
    const both = await t.ok('package_autocomplete', { q: 'warandpeace' })
    expect(both.map((x: { name: string }) => x.name)).toEqual([
      `${P}-pk-warandpeace`,
      `${P}-pk-alpha`,
    ])
    expect(both[1].match_field).toBe('title')
  })

  it('shows private datasets only to those who may read them, never deleted ones', async () => {
    const q = { q: `${P}-pk-` }
    const names = async (as: Caller | null) =>
      (await t.ok('package_autocomplete', q, as)).map((x: { name: string }) => x.name)
    expect(await names(null)).not.toContain(`${P}-pk-secret-war`)
    expect(await names(stranger)).not.toContain(`${P}-pk-secret-war`)
    expect(await names(member)).toContain(`${P}-pk-secret-war`)
    expect(await names(sys)).toContain(`${P}-pk-secret-war`)
    expect(await names(sys)).not.toContain(`${P}-pk-deleted-war`)
  })

  it('applies the limit (default 10) and answers a blank query with nothing', async () => {
    expect(await t.ok('package_autocomplete', { q: `${P}-pk-`, limit: 2 })).toHaveLength(2)
    expect(await t.ok('package_autocomplete', { q: '  ' })).toEqual([])
    const get = await t.get(`/api/3/action/package_autocomplete?q=${P}-pk-war&limit=1`)
    expect(get.status).toBe(200)
    expect(get.body.result).toHaveLength(1)
  })

  it('is also reachable as dataset_autocomplete', async () => {
    expect(await t.ok('dataset_autocomplete', { q: `${P}-pk-warandpeace` })).toHaveLength(1)
  })

  it('requires q and a natural-number limit', async () => {
    invalid(await t.call('package_autocomplete', {}), { q: ['Missing value'] })
    invalid(await t.call('package_autocomplete', { q: 'x', limit: -2 }), {
      limit: ['Must be a natural number'],
    })
  })
})

describe('format_autocomplete', () => {
  beforeAll(async () => {
    const res = (format: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ url: `http://example.com/${format}-${i}`, format }))
    await t.make.dataset(sys, {
      resources: [...res(`${P}fmtcsv`, 1), ...res(`${P}FMTCSV-zipped`, 3), ...res(`${P}fmtxls`, 2)],
    })
    const d = await t.make.dataset(sys, { resources: res(`${P}fmtgone`, 1) })
    await t.ok('resource_delete', { id: d.resources[0].id }, sys)
  })

  it('returns lower-cased formats containing q, most used first', async () => {
    expect(await t.ok('format_autocomplete', { q: `${P}FMT` })).toEqual([
      `${P}fmtcsv-zipped`,
      `${P}fmtxls`,
      `${P}fmtcsv`,
    ])
    expect(await t.ok('format_autocomplete', { q: `${P}fmtcsv` })).toEqual([
      `${P}fmtcsv-zipped`,
      `${P}fmtcsv`,
    ])
  })

  it('limits to 5 by default and honours limit', async () => {
    expect(await t.ok('format_autocomplete', { q: `${P}fmt`, limit: 1 })).toEqual([
      `${P}fmtcsv-zipped`,
    ])
    expect(await t.ok('format_autocomplete', { q: '%' })).toEqual([])
  })

  it('requires q', async () => {
    invalid(await t.call('format_autocomplete', {}), { q: ['Missing value'] })
    invalid(await t.call('format_autocomplete', { q: 'csv', limit: 'lots' }), {
      limit: ['Invalid integer'],
    })
  })
})

describe('user_autocomplete', () => {
  let ann: Who
  let anna: Who
  beforeAll(async () => {
    ann = await t.make.user({ name: `${P}-ann`, fullname: 'Ann Smith' })
    anna = await t.make.user({ name: `${P}-other`, fullname: `Anna ${P}-Jones` })
    const gone = await t.make.user({ name: `${P}-gone` })
    await t.ok('user_delete', { id: gone.id }, sys)
  })

  it('matches name or full name, leaving out deleted users', async () => {
    const r = await t.ok('user_autocomplete', { q: P.toUpperCase() })
    expect(r).toEqual([
      { id: ann.id, name: `${P}-ann`, fullname: 'Ann Smith' },
      { id: anna.id, name: `${P}-other`, fullname: `Anna ${P}-Jones` },
    ])
    expect(await t.ok('user_autocomplete', { q: `${P}-jones`, limit: 5 })).toHaveLength(1)
  })

  it('leaves out the caller with ignore_self', async () => {
    const names = async (params: object) =>
      (await t.ok('user_autocomplete', { q: P, ...params }, ann)).map((u: { name: string }) => u.name)
    expect(await names({})).toContain(`${P}-ann`)
    expect(await names({ ignore_self: true })).toEqual([`${P}-other`])
  })

  it('applies the limit', async () => {
    expect(await t.ok('user_autocomplete', { q: P, limit: 1 })).toHaveLength(1)
  })

  it('requires q', async () => {
    invalid(await t.call('user_autocomplete', { limit: 3 }), { q: ['Missing value'] })
  })
})

describe('user_autocomplete without public user details', () => {
  it('refuses anonymous callers but answers logged-in ones', async () => {
    const t2 = await setup({ 'service.auth.public_user_details': 'false' })
    const r = await t2.call('user_autocomplete', { q: 'a' })
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
    const u = await t2.make.user()
    expect(await t2.ok('user_autocomplete', { q: u.name }, u)).toHaveLength(1)
  })
})

describe('group_autocomplete and organization_autocomplete', () => {
  let g1: { id: string }
  let g2: { id: string }
  beforeAll(async () => {
    g1 = await t.make.group(sys, { name: `${P}-grp-rivers`, title: 'Rivers' })
    g2 = await t.make.group(sys, { name: `${P}-grp-lakes`, title: 'Große Seen' })
    const gone = await t.make.group(sys, { name: `${P}-grp-gone`, title: 'Gone' })
    await t.ok('group_delete', { id: gone.id }, sys)
  })

  it('matches the lower-cased name or the title, groups only, ordered by title', async () => {
    expect(await t.ok('group_autocomplete', { q: `  ${P}-GRP ` })).toEqual([
      { id: g2.id, name: `${P}-grp-lakes`, title: 'Große Seen' },
      { id: g1.id, name: `${P}-grp-rivers`, title: 'Rivers' },
    ])
    expect(await t.ok('group_autocomplete', { q: 'GROßE' })).toEqual([
      { id: g2.id, name: `${P}-grp-lakes`, title: 'Große Seen' },
    ])
    expect(await t.ok('group_autocomplete', { q: `${P}-org` })).toEqual([])
    expect(await t.ok('group_autocomplete', { q: `${P}-grp`, limit: 1 })).toHaveLength(1)
  })

  it('finds organizations only with organization_autocomplete', async () => {
    expect(await t.ok('organization_autocomplete', { q: 'main publ' })).toEqual([
      { id: org.id, name: `${P}-org-main`, title: 'Main Publisher' },
    ])
    expect(await t.ok('organization_autocomplete', { q: `${P}-grp` })).toEqual([])
  })

  it('requires q', async () => {
    invalid(await t.call('group_autocomplete', {}), { q: ['Missing value'] })
    invalid(await t.call('organization_autocomplete', { q: null }), { q: ['Missing value'] })
  })
})
