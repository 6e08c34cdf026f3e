// datastore_search end to end: parameters and their messages, filters, full text, sort, paging,
// record formats, links, aliases, _table_metadata, access rules and injection attempts.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type CallResult, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { loadConfig } from '../../src/config/load'
import { searchParams } from '../../src/datastore/search-params'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let member: Who
let stranger: Who
let books: string // public table, url_type datastore
let alias: string
let types: string // one column per type
let big: string // 160 rows
let priv: string // table of a private dataset

const ROWS_MAX = 150

/** One row per book; `Nice Notes` needs quoting in sort and fields. */
const book = (
  book: string,
  author: string,
  published: string | null,
  pages: number,
  rating: string | null,
  notes: string,
) => ({ book, author, published, pages, rating, 'Nice Notes': notes })

const BOOKS = [
  book('annakarenina', 'tolstoy', '2005-03-01', 864, '4.5', 'A tragic love story'),
  book('warandpeace', 'tolstoy', '2005-03-01 10:00', 1225, '4.25', 'war and peace in Russia'),
  book('the idiot', 'dostoevsky', null, 656, null, 'the prince returns'),
  book('hamlet', 'shakespeare', '1603-01-01', 104, '4.5', 'a prince of Denmark, prince Hamlet'),
  book('don quixote', 'cervantes', '1605-01-16', 863, '3.9', 'knight errant, windmills'),
]

async function table(as: Who, pkg: { id: string }, fields: object[], rows: object[], extra = {}) {
  const params = { resource: { package_id: pkg.id }, fields, records: rows, ...extra }
  return (await t.ok('datastore_create', params, as)).resource_id as string
}

beforeAll(async () => {
  t = await setup({ 'service.datastore.search.rows_max': String(ROWS_MAX) })
  sys = await t.make.sysadmin()
  member = await t.make.user()
  stranger = await t.make.user()
  const org = await t.make.organization(sys)
  const role = { id: org.id, username: member.name, role: 'member' }
  await t.ok('organization_member_create', role, sys)
  const pub = await t.make.dataset(sys, { owner_org: org.id })
  alias = uniq('books_alias').replaceAll('-', '_')
  books = await table(
    sys,
    pub,
    [
      { id: 'book', type: 'text', info: { label: 'Book', notes: '' } },
      { id: 'author', type: 'text' },
      { id: 'published', type: 'timestamp' },
      { id: 'pages', type: 'int' },
      { id: 'rating', type: 'numeric' },
      { id: 'Nice Notes', type: 'text' },
    ],
    BOOKS,
    { aliases: alias },
  )
  types = await table(
    sys,
    pub,
    [
      { id: 'i', type: 'int' },
      { id: 'f', type: 'float' },
      { id: 'n', type: 'numeric' },
      { id: 'b', type: 'bool' },
      { id: 'd', type: 'date' },
      { id: 'tm', type: 'time' },
      { id: 'ts', type: 'timestamp' },
      { id: 'j', type: 'json' },
      { id: 'a', type: 'text[]' },
      { id: 'ai', type: 'int[]' },
      { id: 't', type: 'text' },
    ],
    [
      {
        i: 1, f: 1.5, n: '10.25', b: true, d: '2020-01-02', tm: '10:11:12.5',
        ts: '2020-01-02T03:04:05.678', j: { a: 'b', c: [1, 2] }, a: ['x', 'y"z'], ai: [1, 2],
        t: 'hello, world',
      },
      {
        i: '2', f: 2, n: 3, b: 'f', d: '01/02/2020', tm: '00:00:00', ts: '2020-01-02 10:00',
        j: 'str', a: [], ai: [], t: 'line\nbreak',
      },
      {},
    ],
  )
  big = await table(
    sys,
    pub,
    [{ id: 'n', type: 'int' }],
    Array.from({ length: 160 }, (_, i) => ({ n: i + 1 })),
  )
  const hidden = await t.make.dataset(sys, { owner_org: org.id, private: true })
  priv = await table(sys, hidden, [{ id: 'secret', type: 'text' }], [{ secret: 'x' }])
})

const search = (params: object, as: Who | null = sys) => t.ok('datastore_search', params, as)
const call = (params: object, as: Who | null = sys) => t.call('datastore_search', params, as)
const ids = (r: { records: { _id: number }[] }) => r.records.map((x) => x._id)

const invalid = (r: CallResult, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

/** 409 Invalid query: the database's message under info.orig. */
const invalidQuery = (r: CallResult, orig: string) => {
  expect(r.status).toBe(409)
  expect(r.body.error.__type).toBe('Validation Error')
  expect(r.body.error.query).toEqual(['Invalid query'])
  expect(r.body.error.info.orig).toEqual([orig])
  expect(Object.keys(r.body.error.info).sort()).toEqual(['orig', 'params', 'statement'])
}

describe('datastore_search parameters', () => {
  it('answers with the echoed parameters, fields, records, links and total', async () => {
    const r = await search({ resource_id: books, limit: 2 })
    expect(r).toEqual({
      include_total: true,
      limit: 2,
      records_format: 'objects',
      resource_id: books,
      total_estimation_threshold: null,
      fields: [
        { id: '_id', type: 'int' },
        { id: 'book', type: 'text', info: { label: 'Book', notes: '' } },
        { id: 'author', type: 'text' },
        { id: 'published', type: 'timestamp' },
        { id: 'pages', type: 'int4' },
        { id: 'rating', type: 'numeric' },
        { id: 'Nice Notes', type: 'text' },
      ],
      records: [
        { _id: 1, ...BOOKS[0], published: '2005-03-01T00:00:00', rating: 4.5 },
        { _id: 2, ...BOOKS[1], published: '2005-03-01T10:00:00', rating: 4.25 },
      ],
      _links: {
        start: '/api/3/action/datastore_search',
        next: '/api/3/action/datastore_search?offset=2',
      },
      total: 5,
      total_was_estimated: false,
    })
  })

  it('echoes every validated parameter that was sent', async () => {
    const r = await search({
      id: books,
      q: 'tolstoy',
      plain: 'true',
      language: 'english',
      filters: { author: 'tolstoy' },
      distinct: false,
      sort: 'book desc',
      offset: 0,
      fields: 'book',
      include_total: 'false',
      records_format: 'lists',
      total_estimation_threshold: '10',
    })
    const { fields, records, _links, ...echo } = r
    expect(echo).toEqual({
      q: 'tolstoy',
      plain: true,
      language: 'english',
      filters: { author: 'tolstoy' },
      distinct: false,
      sort: 'book desc',
      offset: 0,
      include_total: false,
      limit: 100,
      records_format: 'lists',
      resource_id: books,
      total_estimation_threshold: 10,
    })
    expect(fields).toEqual([{ id: 'book', type: 'text', info: { label: 'Book', notes: '' } }])
    expect(records).toEqual([['warandpeace'], ['annakarenina']])
    expect(_links).toEqual({
      start: '/api/3/action/datastore_search',
      next: '/api/3/action/datastore_search?offset=100',
    })
  })

  it('requires resource_id', async () => {
    invalid(await call({}), { resource_id: ['Missing value'] })
    invalid(await call({ resource_id: '' }), { resource_id: ['Missing value'] })
  })

  it('reports every schema error at once in CKAN words', async () => {
    invalid(
      await call({
        resource_id: books,
        filters: '{not json',
        limit: 'ten',
        offset: 'x',
        total_estimation_threshold: 'y',
        records_format: 'xml',
        fields: [5],
        sort: { a: 1 },
      }),
      {
        filters: ['Cannot parse JSON'],
        limit: ['Invalid integer'],
        offset: ['Invalid integer'],
        total_estimation_threshold: ['Invalid integer'],
        records_format: ["Value must be one of ['objects', 'lists', 'csv', 'tsv']"],
        fields: ['Neither a string nor a list: 5'],
        sort: ['Not a list'],
      },
    )
    invalid(await call({ resource_id: books, limit: -1 }), { limit: ['Must be a natural number'] })
    invalid(await call({ resource_id: books, fields: 7 }), { fields: ['Not a list'] })
    invalid(await call({ resource_id: books, filters: '[1, 2]' }), {
      filters: ['Cannot parse JSON'],
    })
  })

  it('refuses unknown parameters as __extras but ignores the _ cache-buster', async () => {
    invalid(await call({ resource_id: books, bogus: 1, other: 2 }), {
      __extras: ['invalid value "bogus"'],
    })
    expect((await search({ resource_id: books, _: '12345', limit: 1 })).records).toHaveLength(1)
  })

  it('clamps the default limit to rows_max too', () => {
    const config = loadConfig({ 'service.datastore.search.rows_max': '7' })
    expect(searchParams({ resource_id: 'x' }, config).spec.limit).toBe(7)
    expect(searchParams({ resource_id: 'x', limit: '3' }, config).spec.limit).toBe(3)
    expect(searchParams({ resource_id: 'x', limit: 50 }, config).spec.limit).toBe(7)
  })

  it('refuses a negative offset', async () => {
    invalid(await call({ resource_id: books, offset: -1 }), { offset: ['invalid value "-1"'] })
  })

  it('checks access before the backend checks (unknown keys, offset)', async () => {
    const r = await call({ resource_id: priv, bogus: 1, offset: -1 }, stranger)
    expect(r.status).toBe(403)
  })

  it('answers 404 for an unknown table', async () => {
    const r = await call({ resource_id: 'no-such-table' })
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({
      __type: 'Not Found Error',
      message: 'Not found: Resource "no-such-table" was not found.',
    })
  })
})

describe('datastore_search filters', () => {
  const filtered = async (filters: unknown) => ids(await search({ resource_id: books, filters }))

  it('matches a value, a list of values, and ANDs columns', async () => {
    expect(await filtered({ author: 'tolstoy' })).toEqual([1, 2])
    expect(await filtered({ author: ['tolstoy', 'cervantes'] })).toEqual([1, 2, 5])
    expect(await filtered({ author: 'tolstoy', pages: 864 })).toEqual([1])
    expect(await filtered({ _id: 3 })).toEqual([3])
    expect(await filtered({ 'Nice Notes': 'the prince returns' })).toEqual([3])
  })

  it('coerces strings to the column type', async () => {
    expect(await filtered({ pages: '864' })).toEqual([1])
    expect(await filtered({ pages: ['864', 104] })).toEqual([1, 4])
    expect(await filtered({ rating: 4.5 })).toEqual([1, 4])
    expect(await filtered({ rating: '4.50' })).toEqual([1, 4])
    expect(await filtered({ published: '2005-03-01' })).toEqual([1])
    expect(await filtered({ _id: '2' })).toEqual([2])
  })

  it('matches nothing for null', async () => {
    expect(await filtered({ rating: null })).toEqual([])
    expect(await filtered({ author: [null] })).toEqual([])
  })

  it('accepts filters as JSON text', async () => {
    expect(await filtered('{"author": "shakespeare"}')).toEqual([4])
  })

  it('compares array columns as whole arrays', async () => {
    const r = await search({ resource_id: types, filters: { a: ['x', 'y"z'] }, fields: '_id' })
    expect(r.records).toEqual([{ _id: 1 }])
    const none = await search({ resource_id: types, filters: { a: ['x'] }, fields: '_id' })
    expect(none.records).toEqual([])
  })

  it('refuses an unknown column', async () => {
    invalid(await call({ resource_id: books, filters: { nope: 1 } }), {
      filters: ['invalid value "nope"'],
    })
  })

  it('answers Invalid query for a number against a text column', async () => {
    invalidQuery(
      await call({ resource_id: books, filters: { author: 5 } }),
      'operator does not exist: text = integer',
    )
    invalidQuery(
      await call({ resource_id: books, filters: { author: true } }),
      'operator does not exist: text = boolean',
    )
  })

  it('answers Invalid query for a non-numeric string against a number column', async () => {
    const r = await call({ resource_id: books, filters: { pages: 'many' } })
    invalidQuery(r, 'invalid input syntax for type integer: "many"')
    expect(r.body.error.info.params).toEqual([['many']])
    invalidQuery(
      await call({ resource_id: books, filters: { rating: 'high' } }),
      'invalid input syntax for type numeric: "high"',
    )
  })
})

describe('datastore_search full text', () => {
  const q = async (params: object) => ids(await search({ resource_id: books, ...params }))

  it('ANDs stemmed words of a plain query, dropping stop words', async () => {
    expect(await q({ q: 'tolstoy' })).toEqual([1, 2])
    expect(await q({ q: 'TOLSTOY war' })).toEqual([2])
    expect(await q({ q: 'princes' })).toEqual([4, 3])
    expect(await q({ q: 'the war' })).toEqual([2])
    expect(await q({ q: 'tolstoy hamlet' })).toEqual([])
  })

  it('adds a rank column and sorts by it', async () => {
    const r = await search({ resource_id: books, q: 'prince' })
    expect(r.fields.at(-1)).toEqual({ id: 'rank', type: 'float' })
    expect(ids(r)).toEqual([4, 3])
    const [a, b] = r.records.map((x: { rank: number }) => x.rank)
    expect(a).toBeGreaterThan(b)
    expect(b).toBeGreaterThan(0)
    expect(a).toBeLessThan(1)
    expect(r.total).toBe(2)
  })

  it('sorts by rank ascending when asked', async () => {
    expect(await q({ q: 'prince', sort: 'rank asc' })).toEqual([3, 4])
  })

  it('matches nothing for a query of stop words or punctuation', async () => {
    expect(await q({ q: 'the' })).toEqual([])
    expect(await q({ q: '"*' })).toEqual([])
  })

  it('reads to_tsquery syntax with plain=false', async () => {
    expect(await q({ q: 'tolstoy & war', plain: false })).toEqual([2])
    expect(await q({ q: 'hamlet | idiot', plain: false, sort: '_id' })).toEqual([3, 4])
    expect(await q({ q: '!tolstoy', plain: false })).toEqual([3, 4, 5])
    expect(await q({ q: 'tolstoy & !war', plain: false })).toEqual([1])
    expect(await q({ q: 'wind:*', plain: false })).toEqual([5])
    expect(await q({ q: 'tragic <-> love', plain: false })).toEqual([1])
    expect(await q({ q: 'love <-> tragic', plain: false })).toEqual([])
    expect(await q({ q: '(hamlet | idiot) & prince', plain: false, sort: '_id' })).toEqual([3, 4])
  })

  it('answers Invalid query for tsquery syntax errors', async () => {
    const bad = (query: string) => call({ resource_id: books, q: query, plain: false })
    invalidQuery(await bad('tolstoy war'), 'syntax error in tsquery: "tolstoy war"')
    invalidQuery(await bad('tolstoy)'), 'syntax error in tsquery: "tolstoy)"')
    invalidQuery(await bad('tolstoy &'), 'no operand in tsquery: "tolstoy &"')
  })

  it('searches per column with a q dict and adds rank <col> columns', async () => {
    const r = await search({ resource_id: books, q: { author: 'tolstoy', 'Nice Notes': 'war' } })
    expect(ids(r)).toEqual([2])
    expect(r.fields.slice(-2)).toEqual([
      { id: 'rank author', type: 'float' },
      { id: 'rank Nice Notes', type: 'float' },
    ])
    expect(r.records[0]['rank author']).toBeGreaterThan(0)
    expect(await q({ q: { book: 'tolstoy' } })).toEqual([])
    expect(await q({ q: '{"author": "shakespeare"}' })).toEqual([4])
  })

  it('gives rank <col> values in (0, 1) that print as decimals, even for words in most rows', async () => {
    // CKAN 2.9 test_fields_results_csv and test_fts_on_field_calculates_ranks_only_on_that_specific_field:
    // a word in half the rows or more must still rank like ts_rank (0.0…), not 1e-6
    const pkg = await t.make.dataset(sys)
    const fields = [
      { id: 'num', type: 'numeric' },
      { id: 'txt', type: 'text' },
    ]
    const id = await table(sys, pkg, fields, [
      { num: 9, txt: 'aaab' },
      { num: 9, txt: 'aaac' },
    ])
    const csv = await search({ resource_id: id, records_format: 'csv', fields: 'txt, rank txt', q: { txt: 'aaac' } })
    expect(csv.fields).toEqual([
      { id: 'txt', type: 'text' },
      { id: 'rank txt', type: 'float' },
    ])
    expect(csv.records).toMatch(/^aaac,0\.\d+\n$/)
    const both = await table(sys, pkg, [{ id: 'from', type: 'text' }, { id: 'to', type: 'text' }], [
      { from: 'Brazil', to: 'Brazil' },
      { from: 'Brazil', to: 'Italy' },
    ])
    const r = await search({ resource_id: both, fields: 'from, rank from', q: { from: 'Brazil' } })
    const ranks = r.records.map((x: Record<string, number>) => x['rank from'])
    expect(ranks).toHaveLength(2)
    expect(new Set(ranks).size).toBe(1)
    expect(ranks[0]).toBeGreaterThan(0.01)
    expect(ranks[0]).toBeLessThan(1)
    // the better match still ranks higher, and every per-column rank stays in (0, 1)
    const prince = await search({ resource_id: books, q: { 'Nice Notes': 'prince' } })
    expect(ids(prince)).toEqual([4, 3])
    const [a, b] = prince.records.map((x: Record<string, number>) => x['rank Nice Notes'])
    expect(a).toBeGreaterThan(b as number)
    expect(b).toBeGreaterThan(0.01)
    expect(a).toBeLessThan(1)
  })

  it('refuses q dict keys that are not columns or values that are not strings', async () => {
    invalid(await call({ resource_id: books, q: { nope: 'x' } }), { q: ['invalid value "nope"'] })
    invalid(await call({ resource_id: books, q: { pages: 5 } }), { q: ['invalid value "pages"'] })
  })

  it('accepts the simple language and refuses unknown ones', async () => {
    expect(await q({ q: 'the', language: 'simple', sort: '_id' })).toEqual([3])
    invalidQuery(
      await call({ resource_id: books, q: 'war', language: 'klingon' }),
      'text search configuration "klingon" does not exist',
    )
  })
})

describe('datastore_search selection and order', () => {
  it('returns fields in the requested order, in objects and lists', async () => {
    const r = await search({ resource_id: books, fields: ['pages', '_id', 'book'], limit: 1 })
    expect(r.fields.map((f: { id: string }) => f.id)).toEqual(['pages', '_id', 'book'])
    expect(Object.keys(r.records[0])).toEqual(['pages', '_id', 'book'])
    const fields = 'pages, _id, book'
    const l = await search({ resource_id: books, fields, limit: 1, records_format: 'lists' })
    expect(l.records).toEqual([[864, 1, 'annakarenina']])
  })

  it('refuses an unknown field', async () => {
    invalid(await call({ resource_id: books, fields: ['book', 'nope'] }), {
      fields: ['invalid value "nope"'],
    })
    invalid(await call({ resource_id: books, fields: 'rank' }), {
      fields: ['invalid value "rank"'],
    })
  })

  it('removes duplicate rows with distinct and counts distinct rows', async () => {
    const r = await search({ resource_id: books, fields: 'author', distinct: true, sort: 'author' })
    expect(r.records.map((x: { author: string }) => x.author)).toEqual([
      'cervantes',
      'dostoevsky',
      'shakespeare',
      'tolstoy',
    ])
    expect(r.total).toBe(4)
    const all = await search({ resource_id: books, fields: '_id,author', distinct: true })
    expect(all.total).toBe(5)
  })

  it('sorts asc and desc with PostgreSQL null ordering', async () => {
    const order = async (sort: unknown) => ids(await search({ resource_id: books, sort }))
    expect(await order('published')).toEqual([4, 5, 1, 2, 3])
    expect(await order('published asc')).toEqual([4, 5, 1, 2, 3])
    expect(await order('published DESC')).toEqual([3, 2, 1, 5, 4])
    expect(await order('published asc nulls first')).toEqual([3, 4, 5, 1, 2])
    expect(await order('published desc NULLS LAST')).toEqual([2, 1, 5, 4, 3])
    expect(await order('rating desc, _id')).toEqual([3, 1, 4, 2, 5])
    expect(await order(['author', 'pages desc'])).toEqual([5, 3, 4, 2, 1])
    expect(await order('"Nice Notes" desc')).toEqual([2, 3, 5, 4, 1])
  })

  it('refuses a sort on an unknown column', async () => {
    invalid(await call({ resource_id: books, sort: 'nope desc' }), {
      sort: ['invalid value "nope desc"'],
    })
    invalid(await call({ resource_id: books, sort: 'book sideways' }), {
      sort: ['invalid value "book sideways"'],
    })
  })

  it('sorts by _id without a sort, and returns rows in table order', async () => {
    expect(ids(await search({ resource_id: books }))).toEqual([1, 2, 3, 4, 5])
  })
})

describe('datastore_search paging', () => {
  it('defaults the limit to 100', async () => {
    const r = await search({ resource_id: big })
    expect(r.limit).toBe(100)
    expect(r.records).toHaveLength(100)
    expect(r.total).toBe(160)
  })

  it('clamps the limit at rows_max', async () => {
    const r = await search({ resource_id: big, limit: 1000, fields: 'n' })
    expect(r.limit).toBe(ROWS_MAX)
    expect(r.records).toHaveLength(ROWS_MAX)
    expect(r.records.at(-1)).toEqual({ n: ROWS_MAX })
  })

  it('returns fields and total only with limit 0', async () => {
    const r = await search({ resource_id: big, limit: 0 })
    expect(r.records).toEqual([])
    expect(r.fields).toEqual([
      { id: '_id', type: 'int' },
      { id: 'n', type: 'int4' },
    ])
    expect(r.total).toBe(160)
  })

  it('skips offset rows', async () => {
    const r = await search({ resource_id: big, offset: 155, fields: 'n', records_format: 'lists' })
    expect(r.records).toEqual([[156], [157], [158], [159], [160]])
    expect(r.total).toBe(160)
    expect(r.offset).toBe(155)
  })

  it('counts every match even past the page', async () => {
    const r = await search({ resource_id: big, filters: { n: [1, 2, 3] }, limit: 2 })
    expect(r.total).toBe(3)
  })

  it('leaves total out with include_total false', async () => {
    const r = await search({ resource_id: big, include_total: false, limit: 1 })
    expect(r).not.toHaveProperty('total')
    expect(r).not.toHaveProperty('total_was_estimated')
    expect(r.include_total).toBe(false)
  })
})

describe('datastore_search _links', () => {
  const get = async (qs: string) => {
    const r = await t.get(`/api/3/action/datastore_search?${qs}`, sys)
    expect(r.status).toBe(200)
    return r.body.result
  }

  it('builds relative links from a GET query, replacing offset in place', async () => {
    const r = await get(`resource_id=${big}&offset=10&limit=5&sort=n+desc`)
    expect(r._links).toEqual({
      start: `/api/3/action/datastore_search?resource_id=${big}&limit=5&sort=n+desc`,
      next: `/api/3/action/datastore_search?resource_id=${big}&offset=15&limit=5&sort=n+desc`,
      prev: `/api/3/action/datastore_search?resource_id=${big}&offset=5&limit=5&sort=n+desc`,
    })
  })

  it('adds prev only when offset - limit > 0', async () => {
    const r = await get(`resource_id=${big}&limit=5&offset=5`)
    expect(r._links).toEqual({
      start: `/api/3/action/datastore_search?resource_id=${big}&limit=5`,
      next: `/api/3/action/datastore_search?resource_id=${big}&limit=5&offset=10`,
    })
  })

  it('re-encodes the query as Python does and keeps next on the last page', async () => {
    const r = await get(`resource_id=${big}&fields=_id,n&filters={"n":160}&q=&_=a*b~c`)
    const path = `/api/3/action/datastore_search?resource_id=${big}`
    const rest = '&fields=_id%2Cn&filters=%7B%22n%22%3A160%7D&_=a%2Ab~c'
    expect(r._links).toEqual({ start: path + rest, next: `${path}${rest}&offset=100` })
    expect(r.records).toEqual([{ _id: 160, n: 160 }])
  })

  it('uses the bare path for a POST with a JSON body', async () => {
    const r = await search({ resource_id: big, limit: 10, offset: 30 })
    expect(r._links).toEqual({
      start: '/api/3/action/datastore_search',
      next: '/api/3/action/datastore_search?offset=40',
      prev: '/api/3/action/datastore_search?offset=20',
    })
  })
})

describe('datastore_search over GET', () => {
  it('reads JSON text filters and q, comma fields and sort, boolean strings', async () => {
    const qs = new URLSearchParams({
      resource_id: books,
      filters: '{"author": ["tolstoy", "dostoevsky"]}',
      q: '{"Nice Notes": "war | prince"}',
      plain: 'false',
      fields: '_id,"Nice Notes"',
      sort: '_id desc',
      include_total: 'false',
    })
    const r = await t.get(`/api/3/action/datastore_search?${qs}`, sys)
    expect(r.status).toBe(200)
    expect(r.body.result.q).toEqual({ 'Nice Notes': 'war | prince' })
    expect(r.body.result.filters).toEqual({ author: ['tolstoy', 'dostoevsky'] })
    expect(r.body.result.records).toEqual([
      { _id: 3, 'Nice Notes': 'the prince returns' },
      { _id: 2, 'Nice Notes': 'war and peace in Russia' },
    ])
    expect(r.body.result).not.toHaveProperty('total')
  })
})

describe('datastore_search record formats and values', () => {
  it('returns every type in its JSON form', async () => {
    const r = await search({ resource_id: types })
    expect(r.fields).toEqual([
      { id: '_id', type: 'int' },
      { id: 'i', type: 'int4' },
      { id: 'f', type: 'float8' },
      { id: 'n', type: 'numeric' },
      { id: 'b', type: 'bool' },
      { id: 'd', type: 'date' },
      { id: 'tm', type: 'time' },
      { id: 'ts', type: 'timestamp' },
      { id: 'j', type: 'json' },
      { id: 'a', type: '_text' },
      { id: 'ai', type: '_int4' },
      { id: 't', type: 'text' },
    ])
    expect(r.records).toEqual([
      {
        _id: 1, i: 1, f: 1.5, n: 10.25, b: true, d: '2020-01-02', tm: '10:11:12.5',
        ts: '2020-01-02T03:04:05', j: { a: 'b', c: [1, 2] }, a: ['x', 'y"z'], ai: [1, 2],
        t: 'hello, world',
      },
      {
        _id: 2, i: 2, f: 2, n: 3, b: false, d: '2020-01-02', tm: '00:00:00',
        ts: '2020-01-02T10:00:00', j: 'str', a: [], ai: [], t: 'line\nbreak',
      },
      {
        _id: 3, i: null, f: null, n: null, b: null, d: null, tm: null, ts: null, j: null,
        a: null, ai: null, t: null,
      },
    ])
  })

  it('returns lists in fields order', async () => {
    const params = { resource_id: types, records_format: 'lists', fields: 'b,ts,j', limit: 2 }
    const r = await search(params)
    expect(r.records).toEqual([
      [true, '2020-01-02T03:04:05', { a: 'b', c: [1, 2] }],
      [false, '2020-01-02T10:00:00', 'str'],
    ])
  })

  it('returns csv rows as one string, PostgreSQL COPY style', async () => {
    const r = await search({ resource_id: types, records_format: 'csv' })
    expect(r.records).toBe(
      '1,1,1.5,10.25,t,2020-01-02,10:11:12.5,2020-01-02T03:04:05,"{""a"": ""b"", ""c"": [1, 2]}","[""x"",""y\\""z""]","[1,2]","hello, world"\n' +
        '2,2,2,3,f,2020-01-02,00:00:00,2020-01-02T10:00:00,"""str""",[],[],"line\nbreak"\n' +
        '3,,,,,,,,null,null,null,\n',
    )
  })

  it('returns tsv rows as one string', async () => {
    const r = await search({ resource_id: types, records_format: 'tsv' })
    expect(r.records).toBe(
      '1\t1\t1.5\t10.25\tt\t2020-01-02\t10:11:12.5\t2020-01-02T03:04:05\t"{""a"": ""b"", ""c"": [1, 2]}"\t"[""x"",""y\\""z""]"\t[1,2]\thello, world\n' +
        '2\t2\t2\t3\tf\t2020-01-02\t00:00:00\t2020-01-02T10:00:00\t"""str"""\t[]\t[]\t"line\nbreak"\n' +
        '3\t\t\t\t\t\t\t\tnull\tnull\tnull\t\n',
    )
  })

  it('writes an empty string for no rows in csv and [] otherwise', async () => {
    const none = { resource_id: types, filters: { i: 99 } }
    expect((await search({ ...none, records_format: 'csv' })).records).toBe('')
    expect((await search({ ...none, records_format: 'lists' })).records).toEqual([])
    expect((await search(none)).records).toEqual([])
  })
})

describe('datastore_search aliases and _table_metadata', () => {
  it('searches through an alias and reports the real id', async () => {
    const r = await search({ resource_id: alias, filters: { author: 'cervantes' } })
    expect(r.resource_id).toBe(books)
    expect(ids(r)).toEqual([5])
  })

  it('lists tables and aliases in _table_metadata without permissions', async () => {
    const r = await search({ resource_id: '_table_metadata', filters: { alias_of: books } }, null)
    expect(r.resource_id).toBe('_table_metadata')
    expect(r.fields).toEqual([
      { id: '_id', type: 'int' },
      { id: 'name', type: 'name' },
      { id: 'oid', type: 'oid' },
      { id: 'alias_of', type: 'name' },
    ])
    expect(r.records).toHaveLength(1)
    expect(r.records[0]).toMatchObject({ name: alias, alias_of: books })
    expect(r.records[0]._id).toMatch(/^[0-9a-f]{16}$/)
    expect(Number.isInteger(r.records[0].oid)).toBe(true)
    const filters = { name: [books, priv] }
    const tables = await search({ resource_id: '_table_metadata', filters, sort: 'name' })
    const pairs = tables.records.map((x: { name: string; alias_of: null }) => [x.name, x.alias_of])
    expect(pairs).toEqual([books, priv].sort().map((id) => [id, null]))
    expect(tables.total).toBe(2)
  })

  it('answers Invalid query for a full-text q on _table_metadata', async () => {
    invalidQuery(
      await call({ resource_id: '_table_metadata', q: 'x' }),
      'column "_full_text" does not exist',
    )
  })
})

describe('datastore_search access', () => {
  it('refuses anonymous callers and non-members on a private dataset', async () => {
    const anon = await call({ resource_id: priv }, null)
    expect(anon.status).toBe(403)
    expect(anon.body.error).toEqual({
      __type: 'Authorization Error',
      message: `Access denied: User  not authorized to read resource ${priv}`,
    })
    const other = await call({ resource_id: priv }, stranger)
    expect(other.status).toBe(403)
    expect(other.body.error.message).toBe(
      `Access denied: User ${stranger.name} not authorized to read resource ${priv}`,
    )
  })

  it('lets members of the organization and sysadmins read it', async () => {
    expect((await search({ resource_id: priv }, member)).records).toEqual([{ _id: 1, secret: 'x' }])
    expect((await search({ resource_id: priv }, sys)).records).toEqual([{ _id: 1, secret: 'x' }])
  })

  it('lets anyone read a public table', async () => {
    expect((await search({ resource_id: books, limit: 1 }, null)).records).toHaveLength(1)
  })

  it('answers 404 once the resource is deleted', async () => {
    const ds = await t.make.dataset(sys)
    const rid = await table(sys, ds, [{ id: 'x', type: 'int' }], [{ x: 1 }])
    await t.ok('resource_delete', { id: rid }, sys)
    const r = await call({ resource_id: rid })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe(`Not found: Resource "${rid}" was not found.`)
  })
})

describe('datastore_search injection attempts', () => {
  const intact = async () => {
    const r = await search({ resource_id: books })
    expect(r.total).toBe(5)
    expect(r.records.map((x: { book: string }) => x.book)).toEqual(BOOKS.map((b) => b.book))
  }

  it('refuses SQL in filter keys and binds filter values', async () => {
    invalid(await call({ resource_id: books, filters: { 'author" = author OR "1': 'x' } }), {
      filters: ['invalid value "author" = author OR "1"'],
    })
    const match = async (author: unknown) =>
      ids(await search({ resource_id: books, filters: { author } }))
    expect(await match("x' OR '1'='1")).toEqual([])
    expect(await match(['x', "') OR 1=1 --"])).toEqual([])
    await intact()
  })

  it('refuses SQL in sort', async () => {
    invalid(await call({ resource_id: books, sort: `_id; DROP TABLE "${books}"` }), {
      sort: [`invalid value "_id; DROP TABLE "${books}""`],
    })
    invalid(await call({ resource_id: books, sort: '"book" desc, (select 1)' }), {
      sort: ['invalid value "(select 1)"'],
    })
    invalid(await call({ resource_id: books, sort: 'book desc nulls last; --' }), {
      sort: ['invalid value "book desc nulls last; --"'],
    })
    invalid(await call({ resource_id: books, sort: 'random()' }), {
      sort: ['invalid value "random()"'],
    })
    await intact()
  })

  it('refuses SQL in fields', async () => {
    invalid(await call({ resource_id: books, fields: ['_id', '(select 1)'] }), {
      fields: ['invalid value "(select 1)"'],
    })
    invalid(await call({ resource_id: books, fields: 'book" FROM sqlite_master --' }), {
      fields: ['invalid value "book" FROM sqlite_master --"'],
    })
    await intact()
  })

  it('treats resource_id and language as names, never SQL', async () => {
    const r = await call({ resource_id: `${books}"; DROP TABLE "${books}` })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe(
      `Not found: Resource "${books}"; DROP TABLE "${books}" was not found.`,
    )
    invalidQuery(
      await call({ resource_id: books, q: 'war', language: "english'; DROP TABLE x; --" }),
      `text search configuration "english'; drop table x; --" does not exist`,
    )
    await intact()
  })

  it('keeps q inert: no SQL, no FTS5 operators', async () => {
    const drop = `'); DROP TABLE "${books}"; --`
    expect(ids(await search({ resource_id: books, q: drop }))).toEqual([])
    expect(ids(await search({ resource_id: books, q: 'tolstoy OR hamlet' }))).toEqual([])
    expect(ids(await search({ resource_id: books, q: 'NEAR(tolstoy war)' }))).toEqual([])
    expect(ids(await search({ resource_id: books, q: 'author:tolstoy' }))).toEqual([])
    expect(ids(await search({ resource_id: books, q: '{c1}: tolstoy' }))).toEqual([])
    invalidQuery(
      await call({ resource_id: books, q: 'author:tolstoy', plain: false }),
      'syntax error in tsquery: "author:tolstoy"',
    )
    invalid(await call({ resource_id: books, q: { 'book") OR 1=1 --': 'x' } }), {
      q: ['invalid value "book") OR 1=1 --"'],
    })
    await intact()
  })
})
