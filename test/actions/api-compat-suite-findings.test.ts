// Behaviours CKAN's own 2.10/2.11 tests found (scripts/ckan-suites), under api_compat 2.9 and 2.11:
// status_show's version, user_show without an id, user_list's order, the password length, e-mail
// uniqueness, user_autocomplete by e-mail, group_list's comma list, include_datasets' cap,
// organization_list_for_user's permission and tag lookups within a vocabulary.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }
let v29: TestEnv
let v211: TestEnv
let sys29: Who
let sys211: Who

beforeAll(async () => {
  v29 = await setup({ 'service.api_compat': '2.9' })
  v211 = await setup({ 'ckan.api_compat': '2.11' })
  sys29 = await v29.make.sysadmin()
  sys211 = await v211.make.sysadmin()
})

const each = () =>
  [
    ['2.9', () => ({ t: v29, sys: sys29 })],
    ['2.11', () => ({ t: v211, sys: sys211 })],
  ] as const

describe('status_show', () => {
  it('reports the CKAN version the setting speaks', async () => {
    expect((await v29.ok('status_show')).ckan_version).toBe('2.9.11')
    expect((await v211.ok('status_show')).ckan_version).toBe('2.11.5')
    const v210 = await setup({ 'service.api_compat': '2.10' })
    expect((await v210.ok('status_show')).ckan_version).toBe('2.10.10')
  })

  it('hides the version from all but sysadmins with ckan.hide_version', async () => {
    const t = await setup({ 'ckan.api_compat': '2.11', 'ckan.hide_version': 'true' })
    const sys = await t.make.sysadmin()
    const user = await t.make.user()
    expect(await t.ok('status_show')).not.toHaveProperty('ckan_version')
    expect(await t.ok('status_show', {}, user)).not.toHaveProperty('ckan_version')
    expect((await t.ok('status_show', {}, sys)).ckan_version).toBe('2.11.5')
  })
})

describe('user_show without an id', () => {
  it('shows the caller under 2.11, Not Found under 2.9', async () => {
    const u29 = await v29.make.user()
    const r29 = await v29.call('user_show', {}, u29)
    expect(r29.status).toBe(404)
    const u211 = await v211.make.user()
    const me = await v211.ok('user_show', {}, u211)
    expect(me.id).toBe(u211.id)
    expect(me.email).toBe(u211.email) // the caller sees their own address
  })

  it('is still Not Found for an anonymous caller under 2.11', async () => {
    const r = await v211.call('user_show', {})
    expect(r.status).toBe(404)
    expect(r.body.error.__type).toBe('Not Found Error')
  })
})

describe('user_list default order', () => {
  for (const [version, env] of each())
    it(`orders by ${version === '2.9' ? 'name (the seed)' : 'display name (CKAN 2.10)'} under ${version}`, async () => {
      const { t, sys } = env()
      const tag = uniq('ord').replace(/-/g, '')
      const a = await t.ok('user_create', { name: `a${tag}`, fullname: 'Zed', email: `a${tag}@x.org`, password: 'password123' }, sys)
      const b = await t.ok('user_create', { name: `b${tag}`, fullname: 'Amy', email: `b${tag}@x.org`, password: 'password123' }, sys)
      const names = (await t.ok('user_list', { q: tag, all_fields: false }, sys)) as string[]
      expect(names).toEqual(version === '2.9' ? [a.name, b.name] : [b.name, a.name])
    })
})

describe('password length', () => {
  it('is 4 under 2.9 and 8 from 2.10 unless the option is set', async () => {
    const name = uniq('pw')
    const short = { name, email: `${name}@x.org`, password: 'abcdef' }
    expect((await v29.call('user_create', short, sys29)).status).toBe(200)
    const r = await v211.call('user_create', short, sys211)
    expect(r.status).toBe(409)
    expect(r.body.error.password).toEqual(['Your password must be 8 characters or longer'])
    const set = await setup({ 'ckan.api_compat': '2.11', 'ckan.auth.password_min_length': '5' })
    const sys = await set.make.sysadmin()
    expect((await set.call('user_create', { ...short, name: uniq('pw') }, sys)).status).toBe(200)
  })
})

describe('e-mail uniqueness', () => {
  it('ignores case under 2.11 only', async () => {
    for (const [version, env] of each()) {
      const { t, sys } = env()
      const local = uniq('mail')
      await t.ok('user_create', { name: uniq('u'), email: `${local}@example.org`, password: 'password123' }, sys)
      const r = await t.call('user_create', { name: uniq('u'), email: `${local.toUpperCase()}@Example.org`, password: 'password123' }, sys)
      expect(r.status, version).toBe(version === '2.9' ? 200 : 409)
      if (version !== '2.9') expect(r.body.error.email[0]).toContain('belongs to a registered user')
    }
  })

  it('frees the address of a deleted account from 2.10, not under 2.9', async () => {
    for (const [version, env] of each()) {
      const { t, sys } = env()
      const email = `${uniq('gone')}@example.org`
      const old = await t.ok('user_create', { name: uniq('u'), email, password: 'password123' }, sys)
      await t.ok('user_delete', { id: old.id }, sys)
      const r = await t.call('user_create', { name: uniq('u'), email, password: 'password123' }, sys)
      expect(r.status, version).toBe(version === '2.9' ? 409 : 200)
    }
  })
})

describe('user_autocomplete', () => {
  for (const [version, env] of each())
    it(`matches e-mail addresses for sysadmins only (${version})`, async () => {
      const { t, sys } = env()
      const local = uniq('joe').replace(/-/g, '')
      const u = await t.ok('user_create', { name: uniq('u'), email: `${local}@doe.org`, password: 'password123' }, sys)
      expect((await t.ok('user_autocomplete', { q: local }, sys)).map((x: { id: string }) => x.id)).toEqual([u.id])
      const other = await t.make.user()
      expect(await t.ok('user_autocomplete', { q: local }, other)).toEqual([])
    })
})

describe('group_list with a comma-separated list', () => {
  for (const [version, env] of each())
    it(`filters by every name in "a,b" (${version})`, async () => {
      const { t, sys } = env()
      const [a, b] = [await t.make.group(sys), await t.make.group(sys)]
      await t.make.group(sys)
      expect(await t.ok('group_list', { groups: `${a.name}, ${b.name}`, sort: 'name asc' })).toEqual(
        [a.name, b.name].sort(),
      )
      expect(await t.ok('group_list', { groups: [a.name] })).toEqual([a.name])
      const orgs = [await t.make.organization(sys), await t.make.organization(sys)]
      expect(await t.ok('organization_list', { organizations: orgs.map((o) => o.name).join(',') })).toHaveLength(2)
    })
})

describe('include_datasets', () => {
  it('lists at most service.search.rows_max datasets', async () => {
    const t = await setup({ 'ckan.search.rows_max': '2' })
    const sys = await t.make.sysadmin()
    const org = await t.make.organization(sys)
    for (let i = 0; i < 3; i++) await t.make.dataset(sys, { owner_org: org.id })
    const shown = await t.ok('organization_show', { id: org.id, include_datasets: true })
    expect(shown.packages).toHaveLength(2)
    expect(shown.package_count).toBe(3)
  })
})

describe('organization_list_for_user permission', () => {
  for (const [version, env] of each())
    it(`looks up a given null or empty permission as given (${version})`, async () => {
      const { t, sys } = env()
      const editor = await t.make.user()
      const org = await t.make.organization(sys)
      await t.ok('member_create', { id: org.id, object: editor.id, object_type: 'user', capacity: 'editor' }, sys)
      // missing: manage_group, which editors hold
      expect((await t.ok('organization_list_for_user', {}, editor)).map((o: { id: string }) => o.id)).toEqual([org.id])
      for (const permission of [null, '', 'foo', 5])
        expect(await t.ok('organization_list_for_user', { permission }, editor)).toEqual([])
    })
})

describe('tag lookups within a vocabulary', () => {
  for (const [version, env] of each())
    it(`are Not Found when the vocabulary does not exist or does not hold the tag (${version})`, async () => {
      const { t, sys } = env()
      const vocab = await t.ok('vocabulary_create', { name: uniq('vocab'), tags: [{ name: 'testtag' }] }, sys)
      const other = await t.ok('vocabulary_create', { name: uniq('vocab') }, sys)
      const tag = vocab.tags[0]
      for (const vocabulary_id of ['not-a-real-id', other.id]) {
        const r = await t.call('tag_delete', { id: tag.id, vocabulary_id }, sys)
        expect(r.status).toBe(404)
        expect((await t.call('tag_show', { id: tag.id, vocabulary_id })).status).toBe(404)
      }
      expect((await t.call('tag_delete', { id: tag.id, vocabulary_id: vocab.id }, sys)).status).toBe(200)
    })
})
