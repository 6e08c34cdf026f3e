// The legacy /api/2/util/* autocomplete routes: parameter names, defaults, body shapes and JSONP.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let member: Who
let org: { id: string; name: string }
// A token that makes this file's names unique within the database.
const P = `ur${Date.now().toString(36)}`

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user({ name: `${P}-member`, fullname: 'Mem Ber' })
  org = await t.make.organization(sys, { name: `${P}-org`, title: 'Util Org' })
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
  await t.make.group(sys, { name: `${P}-group`, title: 'Util Group' })
  await t.make.dataset(sys, {
    name: `${P}-public`,
    title: 'Public Data',
    owner_org: org.id,
    tags: [{ name: `${P}-tag-one` }, { name: `${P}-tag-two` }],
    resources: [{ url: 'http://example.com/a', format: `${P}fmt` }],
  })
  await t.make.dataset(sys, { name: `${P}-private`, title: 'Secret', owner_org: org.id, private: true })
  for (let i = 0; i < 12; i++) await t.make.dataset(sys, { name: `${P}-many-${i}` })
})

const JSON_TYPE = 'application/json;charset=utf-8'

describe('GET /api/2/util/dataset/autocomplete', () => {
  it('wraps package_autocomplete items in a ResultSet', async () => {
    const r = await t.get(`/api/2/util/dataset/autocomplete?incomplete=${P}-pub`)
    expect(r.status).toBe(200)
    expect(r.type).toBe(JSON_TYPE)
    expect(r.body).toEqual({
      ResultSet: {
        Result: [
          {
            name: `${P}-public`,
            title: 'Public Data',
            match_field: 'name',
            match_displayed: `${P}-public`,
          },
        ],
      },
    })
  })

  it('uses a default limit of 10 and honours limit', async () => {
    const dflt = await t.get(`/api/2/util/dataset/autocomplete?incomplete=${P}-many`)
    expect(dflt.body.ResultSet.Result).toHaveLength(10)
    const two = await t.get(`/api/2/util/dataset/autocomplete?incomplete=${P}-many&limit=2`)
    expect(two.body.ResultSet.Result).toHaveLength(2)
  })

  it('shows private datasets to the member identified by the API key', async () => {
    const path = `/api/2/util/dataset/autocomplete?incomplete=${P}-priv`
    expect((await t.get(path)).body.ResultSet.Result).toEqual([])
    expect((await t.get(path, member)).body.ResultSet.Result).toHaveLength(1)
  })

  it('answers an empty ResultSet without incomplete, and on the other prefixes too', async () => {
    for (const prefix of ['/api', '/api/1', '/api/2']) {
      const r = await t.get(`${prefix}/util/dataset/autocomplete`)
      expect(r.status, prefix).toBe(200)
      expect(r.body).toEqual({ ResultSet: { Result: [] } })
    }
    const q = await t.get(`/api/util/dataset/autocomplete?q=${P}-pub`)
    expect(q.body).toEqual({ ResultSet: { Result: [] } })
  })

  it('wraps the answer in a JSONP callback, escaping its name', async () => {
    const r = await t.get(`/api/2/util/dataset/autocomplete?incomplete=${P}-pub&callback=cb`)
    expect(r.type).toBe('application/javascript;charset=utf-8')
    expect(r.text).toMatch(/^cb\(\{"ResultSet": ?\{"Result": ?\[\{.*\}\]\}\}\);$/)
    const odd = await t.get(`/api/2/util/dataset/autocomplete?callback=${encodeURIComponent('<x>')}`)
    expect(odd.text).toBe('&lt;x&gt;({"ResultSet":{"Result":[]}});')
  })

  it('answers an invalid limit with an error, not a 500', async () => {
    const r = await t.get(`/api/2/util/dataset/autocomplete?incomplete=x&limit=lots`)
    expect(r.status).toBe(409)
    expect(r.body.error).toMatchObject({ __type: 'Validation Error', limit: ['Invalid integer'] })
  })

  it('refuses other methods', async () => {
    const r = await t.app.request(`/api/2/util/dataset/autocomplete?incomplete=x`, { method: 'POST' })
    expect(r.status).toBe(405)
  })
})

describe('GET /api/2/util/tag/autocomplete', () => {
  it('returns {Name} items', async () => {
    const r = await t.get(`/api/2/util/tag/autocomplete?incomplete=${P}-tag`)
    expect(r.body).toEqual({
      ResultSet: { Result: [{ Name: `${P}-tag-one` }, { Name: `${P}-tag-two` }] },
    })
    const one = await t.get(`/api/2/util/tag/autocomplete?incomplete=${P}-tag&limit=1`)
    expect(one.body.ResultSet.Result).toEqual([{ Name: `${P}-tag-one` }])
  })

  it('searches a vocabulary when vocabulary_id is given', async () => {
    const r = await t.get(`/api/2/util/tag/autocomplete?incomplete=${P}-tag&vocabulary_id=nope`)
    expect(r.body).toEqual({ ResultSet: { Result: [] } })
  })
})

describe('GET /api/2/util/resource/format_autocomplete', () => {
  it('returns {Format} items in lower case', async () => {
    const r = await t.get(`/api/2/util/resource/format_autocomplete?incomplete=${P}FMT`)
    expect(r.body).toEqual({ ResultSet: { Result: [{ Format: `${P}fmt` }] } })
  })
})

describe('GET /api/2/util/user/autocomplete', () => {
  it('returns a plain list of user items, read from q', async () => {
    const r = await t.get(`/api/2/util/user/autocomplete?q=${P}-mem`)
    expect(r.status).toBe(200)
    expect(r.body).toEqual([{ id: member.id, name: `${P}-member`, fullname: 'Mem Ber' }])
    expect((await t.get(`/api/2/util/user/autocomplete?incomplete=${P}-mem`)).body).toEqual([])
  })

  it('passes ignore_self through', async () => {
    const r = await t.get(`/api/2/util/user/autocomplete?q=${P}-mem&ignore_self=true`, member)
    expect(r.body).toEqual([])
  })

  it('refuses anonymous callers when user details are not public', async () => {
    const t2 = await setup({ 'service.auth.public_user_details': 'false' })
    const r = await t2.get('/api/2/util/user/autocomplete?q=a')
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
    expect((await t2.get('/api/2/util/user/autocomplete')).body).toEqual([])
  })
})

describe('GET /api/2/util/group/autocomplete and organization/autocomplete', () => {
  it('returns plain lists of {id, name, title}', async () => {
    const g = await t.get(`/api/2/util/group/autocomplete?q=${P}`)
    expect(g.body).toEqual([
      { id: expect.any(String), name: `${P}-group`, title: 'Util Group' },
    ])
    const o = await t.get(`/api/2/util/organization/autocomplete?q=${P}`)
    expect(o.body).toEqual([{ id: org.id, name: `${P}-org`, title: 'Util Org' }])
    expect((await t.get('/api/2/util/organization/autocomplete')).body).toEqual([])
  })
})
