// term_translation_show/update/update_many: insert or replace by term and language, CKAN's odd shapes.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { termTranslations } from '../../src/db/schema'
import { setup, type CallResult, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let user: Who

const MANY_MESSAGE = 'term_translation_update_many needs to have a list of dicts in field data'

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  user = await t.make.user()
})

function expectInvalid(r: CallResult, errors: Record<string, unknown>) {
  expect(r.status).toBe(409)
  expect(r.body.success).toBe(false)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...errors })
}

function expectDenied(r: CallResult, message: string) {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({
    __type: 'Authorization Error',
    message: `Access denied: ${message}`,
  })
}

const rowsOf = (term: string) =>
  t.db.select().from(termTranslations).where(eq(termTranslations.term, term))

describe('term_translation_update', () => {
  it('returns the three-key dict and replaces the translation of a term into a language', async () => {
    const term = uniq('novel')
    const r = await t.call(
      'term_translation_update',
      { term, term_translation: 'Roman', lang_code: 'de' },
      sys,
    )
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual({ term, term_translation: 'Roman', lang_code: 'de' })
    await t.ok('term_translation_update', { term, term_translation: 'roman', lang_code: 'fr' }, sys)
    await t.ok(
      'term_translation_update',
      { term, term_translation: 'Liebesroman', lang_code: 'de' },
      sys,
    )
    expect(await t.ok('term_translation_show', { terms: term })).toEqual([
      { term, term_translation: 'Liebesroman', lang_code: 'de' },
      { term, term_translation: 'roman', lang_code: 'fr' },
    ])
    expect(await rowsOf(term)).toHaveLength(2)
  })

  it('needs all three keys, and keeps other values as text', async () => {
    expectInvalid(await t.call('term_translation_update', {}, sys), {
      term: ['Missing value'],
      term_translation: ['Missing value'],
      lang_code: ['Missing value'],
    })
    expectInvalid(
      await t.call(
        'term_translation_update',
        { term: 'x', term_translation: '', lang_code: null },
        sys,
      ),
      { term_translation: ['Missing value'], lang_code: ['Missing value'] },
    )
    const term = uniq('n')
    expect(
      await t.ok('term_translation_update', { term, term_translation: 0, lang_code: 'de' }, sys),
    ).toEqual({ term, term_translation: '0', lang_code: 'de' })
  })

  it('is for sysadmins only', async () => {
    const term = uniq('t')
    const params = { term, term_translation: 'x', lang_code: 'de' }
    expectDenied(
      await t.call('term_translation_update', params),
      'Action term_translation_update requires an authenticated user',
    )
    expectDenied(
      await t.call('term_translation_update', params, user),
      `User ${user.name} not authorized to update term_translation table`,
    )
    expect(await rowsOf(term)).toEqual([])
  })
})

describe('term_translation_update_many', () => {
  it('saves every item and says how many', async () => {
    const a = uniq('a')
    const b = uniq('b')
    const data = [
      { term: a, term_translation: 'A1', lang_code: 'de' },
      { term: b, term_translation: 'B', lang_code: 'de' },
      { term: a, term_translation: 'A2', lang_code: 'de' },
    ]
    const r = await t.call('term_translation_update_many', { data }, sys)
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual({ success: '3 rows updated' })
    expect(await t.ok('term_translation_show', { terms: [a, b] })).toEqual([
      { term: a, term_translation: 'A2', lang_code: 'de' },
      { term: b, term_translation: 'B', lang_code: 'de' },
    ])
  })

  it('saves nothing when one item is invalid', async () => {
    const a = uniq('a')
    const data = [
      { term: a, term_translation: 'A', lang_code: 'de' },
      { term: a, lang_code: 'fr' },
    ]
    expectInvalid(await t.call('term_translation_update_many', { data }, sys), {
      term_translation: ['Missing value'],
    })
    expect(await rowsOf(a)).toEqual([])
  })

  it("answers CKAN's message when data is missing, empty or not a list of dicts", async () => {
    for (const params of [{}, { data: [] }, { data: 'x' }, { data: [1] }, { data: null }])
      expectInvalid(await t.call('term_translation_update_many', params, sys), {
        error: MANY_MESSAGE,
      })
    // ckan checks the list before the caller
    expectInvalid(await t.call('term_translation_update_many', {}), { error: MANY_MESSAGE })
  })

  it('is for sysadmins only', async () => {
    const term = uniq('t')
    const data = [{ term, term_translation: 'x', lang_code: 'de' }]
    expectDenied(
      await t.call('term_translation_update_many', { data }),
      'Action term_translation_update requires an authenticated user',
    )
    expectDenied(
      await t.call('term_translation_update_many', { data }, user),
      `User ${user.name} not authorized to update term_translation table`,
    )
    expect(await rowsOf(term)).toEqual([])
  })
})

describe('term_translation_show', () => {
  let war: string
  let peace: string

  beforeAll(async () => {
    war = uniq('war')
    peace = uniq('peace')
    const data = [
      { term: war, term_translation: 'Krieg', lang_code: 'de' },
      { term: war, term_translation: 'guerre', lang_code: 'fr' },
      { term: peace, term_translation: 'Frieden', lang_code: 'de' },
    ]
    await t.ok('term_translation_update_many', { data }, sys)
  })

  it('takes terms and lang_codes as a string or a list, for anyone', async () => {
    expect(await t.ok('term_translation_show', { terms: war })).toEqual([
      { term: war, term_translation: 'Krieg', lang_code: 'de' },
      { term: war, term_translation: 'guerre', lang_code: 'fr' },
    ])
    expect(
      await t.ok('term_translation_show', { terms: [war, peace], lang_codes: 'de' }, user),
    ).toEqual([
      { term: war, term_translation: 'Krieg', lang_code: 'de' },
      { term: peace, term_translation: 'Frieden', lang_code: 'de' },
    ])
    expect(
      await t.ok('term_translation_show', { terms: [peace], lang_codes: ['fr', 'en'] }),
    ).toEqual([])
    expect(await t.ok('term_translation_show', { terms: 'unknown-term' })).toEqual([])
  })

  it('answers GET with one or repeated values', async () => {
    const one = await t.get(`/api/3/action/term_translation_show?terms=${war}&lang_codes=fr`)
    expect(one.body.result).toEqual([{ term: war, term_translation: 'guerre', lang_code: 'fr' }])
    const two = await t.get(
      `/api/3/action/term_translation_show?terms=${war}&terms=${peace}&lang_codes=de`,
    )
    expect(two.body.result).toHaveLength(2)
  })

  it('matches every term when the list of terms is empty (ckan)', async () => {
    const all = await t.ok('term_translation_show', { terms: [], lang_codes: 'fr' })
    expect(all).toContainEqual({ term: war, term_translation: 'guerre', lang_code: 'fr' })
    expect(all.every((r: { lang_code: string }) => r.lang_code === 'fr')).toBe(true)
  })

  it("answers CKAN's error without terms", async () => {
    expectInvalid(await t.call('term_translation_show', {}), { terms: 'terms not in data' })
    expectInvalid(await t.call('term_translation_show', { lang_codes: 'de' }), {
      terms: 'terms not in data',
    })
  })
})
