// tag_list / tag_show / tag_search / tag_autocomplete / tag_create / tag_delete.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Caller
let user: Caller
let vocab: { id: string; name: string }
// A prefix that makes this file's free tag names unique within the database.
const P = `tg${Date.now().toString(36)}`

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  user = await t.make.user()
  vocab = await t.ok(
    'vocabulary_create',
    { name: uniq('genre'), tags: [{ name: 'fiction' }, { name: 'poetry' }] },
    sys,
  )
})

const freeTags = (...names: string[]) => names.map((name) => ({ name }))
const tagNames = (d: { tags: { name: string }[] }) => d.tags.map((x) => x.name)

describe('tag_list', () => {
  it('lists the free tags that are on datasets, not vocabulary tags', async () => {
    await t.make.dataset(sys, {
      tags: [
        ...freeTags(`${P}-apple`, `${P}-Banana`),
        { name: 'fiction', vocabulary_id: vocab.id },
      ],
    })
    const list: string[] = await t.ok('tag_list')
    expect(list).toContain(`${P}-apple`)
    expect(list).toContain(`${P}-Banana`)
    expect(list).not.toContain('fiction')
    expect(list).not.toContain('poetry')
    expect(new Set(list).size).toBe(list.length)
  })

  it('drops a free tag once no dataset carries it', async () => {
    const d = await t.make.dataset(sys, { tags: freeTags(`${P}-brief`, `${P}-lasting`) })
    expect(await t.ok('tag_list')).toContain(`${P}-brief`)
    await t.ok('package_patch', { id: d.id, tags: freeTags(`${P}-lasting`) }, sys)
    const list = await t.ok('tag_list')
    expect(list).not.toContain(`${P}-brief`)
    expect(list).toContain(`${P}-lasting`)
  })

  it('returns tag dicts with all_fields', async () => {
    const list = await t.ok('tag_list', { all_fields: true })
    const apple = list.find((x: { name: string }) => x.name === `${P}-apple`)
    expect(Object.keys(apple).sort()).toEqual(['display_name', 'id', 'name', 'vocabulary_id'])
    expect(apple).toMatchObject({
      name: `${P}-apple`,
      display_name: `${P}-apple`,
      vocabulary_id: null,
    })
  })

  it('lists every tag of a vocabulary, used or not, by id or name', async () => {
    expect(await t.ok('tag_list', { vocabulary_id: vocab.id })).toEqual(['fiction', 'poetry'])
    const dicts = await t.ok('tag_list', { vocabulary_id: vocab.name, all_fields: true })
    expect(dicts.map((d: { vocabulary_id: string }) => d.vocabulary_id)).toEqual([
      vocab.id,
      vocab.id,
    ])
  })

  it('filters by a case-insensitive substring query, also over GET', async () => {
    expect(await t.ok('tag_list', { query: `${P}-BAN` })).toEqual([`${P}-Banana`])
    expect(await t.ok('tag_list', { query: 'oet', vocabulary_id: vocab.id })).toEqual(['poetry'])
    const r = await t.get(`/api/3/action/tag_list?query=${P}-app`)
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual([`${P}-apple`])
  })

  it('answers 404 for an unknown vocabulary', async () => {
    const r = await t.call('tag_list', { vocabulary_id: 'no-such-vocab' })
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({
      __type: 'Not Found Error',
      message: "Not found: could not find vocabulary 'no-such-vocab'",
    })
  })
})

describe('tag_show', () => {
  let org: { id: string }
  let pub: { id: string; name: string }
  beforeAll(async () => {
    org = await t.make.organization(sys)
    pub = await t.make.dataset(sys, { tags: freeTags(`${P}-shown`) })
    await t.make.dataset(sys, { tags: freeTags(`${P}-shown`), owner_org: org.id, private: true })
    const gone = await t.make.dataset(sys, { tags: freeTags(`${P}-shown`) })
    await t.ok('package_delete', { id: gone.id }, sys)
  })

  it('shows a free tag by name or id', async () => {
    const tag = await t.ok('tag_show', { id: `${P}-shown` })
    expect(tag).toEqual({
      id: tag.id,
      name: `${P}-shown`,
      vocabulary_id: null,
      display_name: `${P}-shown`,
    })
    expect(await t.ok('tag_show', { id: tag.id }, user)).toEqual(tag)
  })

  it('includes only the active public datasets with include_datasets', async () => {
    const tag = await t.ok('tag_show', { id: `${P}-shown`, include_datasets: true })
    expect(tag.packages.map((p: { id: string }) => p.id)).toEqual([pub.id])
    expect(tag.packages[0].name).toBe(pub.name)
    expect(tagNames(tag.packages[0])).toEqual([`${P}-shown`])
  })

  it('finds a vocabulary tag by name only with its vocabulary', async () => {
    const r = await t.call('tag_show', { id: 'poetry' })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found')
    const tag = await t.ok('tag_show', { id: 'poetry', vocabulary_id: vocab.name })
    expect(tag).toMatchObject({ name: 'poetry', vocabulary_id: vocab.id })
    expect(await t.ok('tag_show', { id: tag.id })).toEqual(tag)
  })

  it('lists the datasets of a vocabulary tag', async () => {
    const d = await t.make.dataset(sys, { tags: [{ name: 'poetry', vocabulary_id: vocab.id }] })
    const tag = await t.ok('tag_show', {
      id: 'poetry',
      vocabulary_id: vocab.id,
      include_datasets: 'true',
    })
    expect(tag.packages.map((p: { id: string }) => p.id)).toEqual([d.id])
  })

  it('answers 404 for an unknown tag or vocabulary and requires the id', async () => {
    expect((await t.call('tag_show', { id: 'no-such-tag' })).status).toBe(404)
    expect(
      (await t.call('tag_show', { id: 'poetry', vocabulary_id: 'no-such-vocab' })).status,
    ).toBe(404)
    const r = await t.call('tag_show', {})
    expect(r.status).toBe(409)
    expect(r.body.error.id).toEqual(['Missing value'])
  })
})

describe('tag_search', () => {
  beforeAll(async () => {
    await t.make.dataset(sys, {
      tags: freeTags(`${P}-sea water`, `${P}-sea-salt`, `${P}-Äpfel`, `${P}-river`),
    })
  })

  it('takes an offset without a limit', async () => {
    const r = await t.ok('tag_search', { query: `${P}-SEA`, offset: 1 })
    expect(r.count).toBe(2)
    expect(r.results.map((x: { name: string }) => x.name)).toEqual([`${P}-sea-salt`])
  })

  it('counts and returns the tags containing every term', async () => {
    const r = await t.ok('tag_search', { query: `${P}-SEA` })
    expect(r.count).toBe(2)
    expect(r.results.map((x: { name: string }) => x.name)).toEqual([
      `${P}-sea water`,
      `${P}-sea-salt`,
    ])
    expect(Object.keys(r.results[0]).sort()).toEqual(['id', 'name', 'vocabulary_id'])
    const both = await t.ok('tag_search', { query: [P, 'salt'] })
    expect(both.results.map((x: { name: string }) => x.name)).toEqual([`${P}-sea-salt`])
  })

  it('folds the case of non-ASCII terms', async () => {
    const r = await t.ok('tag_search', { query: `${P}-äPF` })
    expect(r.results.map((x: { name: string }) => x.name)).toEqual([`${P}-Äpfel`])
  })

  it('pages with limit and offset while counting all matches', async () => {
    const r = await t.ok('tag_search', { query: `${P}-sea`, limit: 1, offset: 1 })
    expect(r.count).toBe(2)
    expect(r.results.map((x: { name: string }) => x.name)).toEqual([`${P}-sea-salt`])
  })

  it('accepts the deprecated fields parameter', async () => {
    const r = await t.ok('tag_search', { fields: { tags: `${P}-riv` } })
    expect(r.results.map((x: { name: string }) => x.name)).toEqual([`${P}-river`])
  })

  it('searches one vocabulary and finds nothing in an unknown one or without terms', async () => {
    const r = await t.ok('tag_search', { query: 'i', vocabulary_id: vocab.id })
    expect(r.results.map((x: { name: string }) => x.name)).toEqual(['fiction'])
    expect(await t.ok('tag_search', { query: 'i', vocabulary_id: 'no-such-vocab' })).toEqual({
      count: 0,
      results: [],
    })
    expect(await t.ok('tag_search', { query: '  ' })).toEqual({ count: 0, results: [] })
  })

  it('rejects a negative limit', async () => {
    const r = await t.call('tag_search', { query: 'x', limit: -1 })
    expect(r.status).toBe(409)
    expect(r.body.error.limit).toEqual(['Must be a natural number'])
  })
})

describe('tag_autocomplete', () => {
  it('returns the matching names, also over GET', async () => {
    expect(await t.ok('tag_autocomplete', { query: `${P}-sea`, limit: 5 })).toEqual([
      `${P}-sea water`,
      `${P}-sea-salt`,
    ])
    const r = await t.get(`/api/3/action/tag_autocomplete?q=${P}-riv`)
    expect(r.body.result).toEqual([`${P}-river`])
    expect(await t.ok('tag_autocomplete', {})).toEqual([])
  })
})

describe('tag_create', () => {
  it('creates a vocabulary tag and returns it with an empty package list', async () => {
    const tag = await t.ok('tag_create', { name: 'drama', vocabulary_id: vocab.id }, sys)
    expect(tag).toEqual({
      id: tag.id,
      name: 'drama',
      vocabulary_id: vocab.id,
      display_name: 'drama',
      packages: [],
    })
    expect(tagNames(await t.ok('vocabulary_show', { id: vocab.id }))).toContain('drama')
  })

  it('accepts spaces, dots and Unicode letters in names', async () => {
    const tag = await t.ok(
      'tag_create',
      { name: 'données ouvertes v1.0', vocabulary_id: vocab.id },
      sys,
    )
    expect(tag.name).toBe('données ouvertes v1.0')
  })

  it('requires a vocabulary and refuses free tags', async () => {
    const r = await t.call('tag_create', { name: 'lonely' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', vocabulary_id: ['Missing value'] })
  })

  it('refuses an unknown vocabulary', async () => {
    const r = await t.call('tag_create', { name: 'lonely', vocabulary_id: 'no-such-vocab' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.vocabulary_id).toEqual(['Tag vocabulary was not found.'])
  })

  it('refuses a tag already in the vocabulary', async () => {
    const r = await t.call('tag_create', { name: 'fiction', vocabulary_id: vocab.id }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.vocabulary_id).toEqual([
      `Tag fiction already belongs to vocabulary ${vocab.id}`,
    ])
  })

  it('checks the name', async () => {
    const cases: [unknown, string][] = [
      [undefined, 'Missing value'],
      ['a', 'Tag "a" length is less than minimum 2'],
      ['x'.repeat(101), `Tag "${'x'.repeat(101)}" length is more than maximum 100`],
      ['no/slash', 'Tag "no/slash" must be alphanumeric characters or symbols: -_.'],
    ]
    for (const [name, msg] of cases) {
      const r = await t.call('tag_create', { name, vocabulary_id: vocab.id }, sys)
      expect(r.status).toBe(409)
      expect(r.body.error.name).toEqual([msg])
    }
  })

  it('refuses anonymous callers and plain users', async () => {
    const anon = await t.call('tag_create', { name: 'nope', vocabulary_id: vocab.id })
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      'Access denied: Action tag_create requires an authenticated user',
    )
    const r = await t.call('tag_create', { name: 'nope', vocabulary_id: vocab.id }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
    expect(tagNames(await t.ok('vocabulary_show', { id: vocab.id }))).not.toContain('nope')
  })
})

describe('tag_delete', () => {
  it('deletes a free tag and takes it off its datasets', async () => {
    const d = await t.make.dataset(sys, { tags: freeTags(`${P}-doomed`, `${P}-kept`) })
    expect(await t.ok('tag_delete', { id: `${P}-doomed` }, sys)).toBeNull()
    expect(tagNames(await t.ok('package_show', { id: d.id }))).toEqual([`${P}-kept`])
    expect(await t.ok('tag_list')).not.toContain(`${P}-doomed`)
    expect((await t.call('tag_show', { id: `${P}-doomed` })).status).toBe(404)
  })

  it('takes the deleted tag off its datasets and logs the change', async () => {
    const ds = await t.make.dataset(sys, { tags: freeTags(`${P}-indexed`) })
    const shown = await t.ok('package_show', { id: ds.id })
    expect(shown.tags.map((x: { name: string }) => x.name)).toContain(`${P}-indexed`)
    const before = await t.client.execute('SELECT max(seq) AS s FROM change_log')
    await t.ok('tag_delete', { id: `${P}-indexed` }, sys)
    const after = await t.ok('package_show', { id: ds.id })
    expect(after.tags.map((x: { name: string }) => x.name)).not.toContain(`${P}-indexed`)
    const logged = await t.client.execute({
      sql: "SELECT count(*) AS n FROM change_log WHERE seq > ? AND entity_type = 'package' AND entity_id = ?",
      args: [before.rows[0]!.s, ds.id],
    })
    expect(Number(logged.rows[0]!.n)).toBe(1)
  })

  it('deletes a vocabulary tag named with its vocabulary', async () => {
    await t.ok('tag_create', { name: 'satire', vocabulary_id: vocab.id }, sys)
    const r = await t.call('tag_delete', { id: 'satire' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find tag "satire"')
    expect(await t.ok('tag_delete', { id: 'satire', vocabulary_id: vocab.name }, sys)).toBeNull()
    expect(tagNames(await t.ok('vocabulary_show', { id: vocab.id }))).not.toContain('satire')
  })

  it('requires the id', async () => {
    const r = await t.call('tag_delete', {}, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: 'id not in data' })
  })

  it('refuses anonymous callers and plain users', async () => {
    await t.make.dataset(sys, { tags: freeTags(`${P}-safe`) })
    expect((await t.call('tag_delete', { id: `${P}-safe` })).status).toBe(403)
    const r = await t.call('tag_delete', { id: `${P}-safe` }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
    expect(await t.ok('tag_list')).toContain(`${P}-safe`)
  })
})
