// vocabulary_create / _show / _list / _update / _delete: shapes, messages, sysadmin-only writes.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Caller
let user: Caller

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  user = await t.make.user()
})

const names = (v: { tags: { name: string }[] }) => v.tags.map((x) => x.name)
const tagNames = names
const vocab = (tags: string[] = []) =>
  t.ok('vocabulary_create', { name: uniq('vocab'), tags: tags.map((name) => ({ name })) }, sys)

describe('vocabulary_create', () => {
  it('creates a vocabulary with its tags', async () => {
    const name = uniq('colours')
    const v = await t.ok(
      'vocabulary_create',
      { name, tags: [{ name: 'red' }, { name: 'green' }, { name: 'red' }] },
      sys,
    )
    expect(Object.keys(v).sort()).toEqual(['id', 'name', 'tags'])
    expect(v.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(v.name).toBe(name)
    expect(names(v)).toEqual(['green', 'red'])
    for (const tag of v.tags) {
      expect(Object.keys(tag).sort()).toEqual(['display_name', 'id', 'name', 'vocabulary_id'])
      expect(tag.vocabulary_id).toBe(v.id)
      expect(tag.display_name).toBe(tag.name)
    }
  })

  it('creates a vocabulary without tags', async () => {
    const v = await t.ok('vocabulary_create', { name: uniq('empty') }, sys)
    expect(v.tags).toEqual([])
  })

  it('checks the name length and presence', async () => {
    let r = await t.call('vocabulary_create', { name: 'a' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      name: ['Name must be at least 2 characters long'],
    })
    r = await t.call('vocabulary_create', { name: 'x'.repeat(101) }, sys)
    expect(r.body.error.name).toEqual(['Name must be a maximum of 100 characters long'])
    r = await t.call('vocabulary_create', {}, sys)
    expect(r.body.error.name).toEqual(['Missing value'])
  })

  it('takes a name that is a dict whose toString is not a function as text (no 500)', async () => {
    // found by the fuzzer: String() of {"toString": {...}} threw
    // (ckan's unicode_safe makes any value text: the dict's JSON text is a valid name)
    const r = await t.call('vocabulary_create', { name: { toString: { a: 1 } } }, sys)
    expect(r.status).toBe(200)
    expect(r.body.result.name).toBe('{"toString":{"a":1}}')
  })

  it('refuses a name already in use', async () => {
    const v = await vocab()
    const r = await t.call('vocabulary_create', { name: v.name }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      name: ['That vocabulary name is already in use.'],
    })
  })

  it('refuses an id', async () => {
    const r = await t.call('vocabulary_create', { name: uniq('v'), id: 'my-id' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.id).toEqual(['The input field id was not expected.'])
  })

  it('checks tag names and flattens their errors', async () => {
    const r = await t.call(
      'vocabulary_create',
      { name: uniq('v'), tags: [{ name: 'ok' }, { name: 'x' }, { name: 'a!b' }] },
      sys,
    )
    expect(r.status).toBe(409)
    expect(r.body.error.tags).toEqual([
      'Tag "x" length is less than minimum 2',
      'Tag "a!b" must be alphanumeric characters or symbols: -_.',
    ])
  })

  it('answers an Integrity Error for tags that are not dicts', async () => {
    const r = await t.call('vocabulary_create', { name: uniq('v'), tags: ['red'] }, sys)
    expect(r.status).toBe(400)
    expect(r.body.error.__type).toBe('Integrity Error')
  })

  it('answers an Integrity Error for tags=null, on create and update (CKAN: navl DataError)', async () => {
    const r = await t.call('vocabulary_create', { name: uniq('v'), tags: null }, sys)
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({
      __type: 'Integrity Error',
      message: "Only lists of dicts can be placed against subschema ('tags',), not <class 'NoneType'>",
    })
    const v = await t.ok('vocabulary_create', { name: uniq('v'), tags: [{ name: 'kept' }] }, sys)
    const u = await t.call('vocabulary_update', { id: v.id, tags: null }, sys)
    expect(u.status).toBe(400)
    expect((await t.ok('vocabulary_show', { id: v.id })).tags.map((x: { name: string }) => x.name)).toEqual(['kept'])
  })

  it('refuses anonymous callers and plain users', async () => {
    const anon = await t.call('vocabulary_create', { name: uniq('v') })
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      'Access denied: Action vocabulary_create requires an authenticated user',
    )
    const r = await t.call('vocabulary_create', { name: uniq('v') }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
  })
})

describe('vocabulary_show', () => {
  it('shows a vocabulary by id or name to anyone', async () => {
    const v = await vocab(['one', 'two'])
    expect(await t.ok('vocabulary_show', { id: v.id })).toEqual(v)
    expect(await t.ok('vocabulary_show', { id: v.name }, user)).toEqual(v)
    const r = await t.get(`/api/3/action/vocabulary_show?id=${v.name}`)
    expect(r.body.result).toEqual(v)
  })

  it('answers 404 for an unknown vocabulary', async () => {
    const r = await t.call('vocabulary_show', { id: 'nope' })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find vocabulary "nope"')
  })

  it('requires the id', async () => {
    const r = await t.call('vocabulary_show', {})
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: 'id not in data' })
  })
})

describe('vocabulary_list', () => {
  it('lists every vocabulary with its tags', async () => {
    const a = await vocab(['alpha'])
    const b = await vocab([])
    const list = await t.ok('vocabulary_list')
    expect(list).toContainEqual(a)
    expect(list).toContainEqual(b)
    for (const v of list) for (const tag of v.tags) expect(tag.vocabulary_id).toBe(v.id)
  })
})

describe('vocabulary_update', () => {
  it('sets the tags to exactly the list given', async () => {
    const v = await vocab(['keep', 'drop'])
    const keepId = v.tags.find((x: { name: string }) => x.name === 'keep').id
    const u = await t.ok(
      'vocabulary_update',
      { id: v.id, tags: [{ name: 'keep' }, { name: 'new' }] },
      sys,
    )
    expect(u.name).toBe(v.name)
    expect(names(u)).toEqual(['keep', 'new'])
    expect(u.tags.find((x: { name: string }) => x.name === 'keep').id).toBe(keepId)
    expect(await t.ok('vocabulary_show', { id: v.id })).toEqual(u)
    const gone = await t.call('tag_show', { id: 'drop', vocabulary_id: v.id })
    expect(gone.status).toBe(404)
  })

  it('takes removed tags off the datasets that carried them', async () => {
    const v = await vocab(['stays', 'leaves'])
    const d = await t.make.dataset(sys, {
      tags: [
        { name: 'stays', vocabulary_id: v.id },
        { name: 'leaves', vocabulary_id: v.id },
      ],
    })
    expect(tagNames(await t.ok('package_show', { id: d.id }))).toEqual(['leaves', 'stays'])
    await t.ok('vocabulary_update', { id: v.id, tags: [{ name: 'stays' }] }, sys)
    expect(tagNames(await t.ok('package_show', { id: d.id }))).toEqual(['stays'])
  })

  it('renames a vocabulary and keeps its tags when none are given', async () => {
    const v = await vocab(['x1'])
    const name = uniq('renamed')
    const u = await t.ok('vocabulary_update', { id: v.name, name }, sys)
    expect(u).toEqual({ ...v, name })
    expect((await t.ok('vocabulary_show', { id: name })).id).toBe(v.id)
    // its own name again is no conflict
    expect((await t.ok('vocabulary_update', { id: v.id, name }, sys)).name).toBe(name)
  })

  it('empties a vocabulary given an empty tag list', async () => {
    const v = await vocab(['a1', 'b1'])
    expect((await t.ok('vocabulary_update', { id: v.id, tags: [] }, sys)).tags).toEqual([])
  })

  it('refuses a name used by another vocabulary', async () => {
    const [a, b] = [await vocab(), await vocab()]
    const r = await t.call('vocabulary_update', { id: a.id, name: b.name }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.name).toEqual(['That vocabulary name is already in use.'])
  })

  it('requires an id and answers 404 for an unknown one', async () => {
    let r = await t.call('vocabulary_update', { name: 'whatever' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: 'id not in data' })
    r = await t.call('vocabulary_update', { id: 'missing-vocab' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find vocabulary "missing-vocab"')
  })

  it('refuses plain users', async () => {
    const v = await vocab(['t1'])
    const r = await t.call('vocabulary_update', { id: v.id, tags: [] }, user)
    expect(r.status).toBe(403)
    expect(names(await t.ok('vocabulary_show', { id: v.id }))).toEqual(['t1'])
  })
})

describe('vocabulary_delete', () => {
  it('deletes a vocabulary with its tags', async () => {
    const v = await vocab(['d1'])
    const tagId = v.tags[0].id
    expect(await t.ok('vocabulary_delete', { id: v.name }, sys)).toBeNull()
    expect((await t.call('vocabulary_show', { id: v.id })).status).toBe(404)
    expect((await t.call('tag_show', { id: tagId })).status).toBe(404)
  })

  it('takes the vocabulary tags off datasets', async () => {
    const v = await vocab(['v1'])
    const d = await t.make.dataset(sys, {
      tags: [{ name: 'v1', vocabulary_id: v.id }, { name: uniq('free') }],
    })
    await t.ok('vocabulary_delete', { id: v.id }, sys)
    const tags = (await t.ok('package_show', { id: d.id })).tags
    expect(tags).toHaveLength(1)
    expect(tags[0].vocabulary_id).toBeNull()
  })

  it('requires an id and answers 404 for an unknown one', async () => {
    let r = await t.call('vocabulary_delete', {}, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: 'id not in data' })
    r = await t.call('vocabulary_delete', { id: 'nope' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find vocabulary "nope"')
  })

  it('refuses anonymous callers and plain users', async () => {
    const v = await vocab()
    expect((await t.call('vocabulary_delete', { id: v.id })).status).toBe(403)
    expect((await t.call('vocabulary_delete', { id: v.id }, user)).status).toBe(403)
    expect((await t.ok('vocabulary_show', { id: v.id })).id).toBe(v.id)
  })
})
