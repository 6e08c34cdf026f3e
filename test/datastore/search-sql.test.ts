// datastore_search_sql over the action API: results and their types, PostgreSQL spellings, row cap,
// refusals (writes, functions, system and catalogue tables, private resources), errors, the time
// limit, GET, and the option that switches the action off.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

const ROWS_MAX = 5
const TIMEOUT_MS = 300
// Counts to 10^9: minutes of work unless the time limit stops it.
const LONG =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) ' +
  'SELECT count(*) AS n FROM c'

let t: TestEnv
let admin: Caller
let member: Caller & { name: string }
let outsider: Caller
let books: string
let authors: string
let secret: string

const BOOK_FIELDS = [
  { id: 'book', type: 'text' },
  { id: 'author', type: 'text' },
  { id: 'n', type: 'int' },
  { id: 'price', type: 'numeric' },
  { id: 'published', type: 'timestamp' },
  { id: 'meta', type: 'json' },
  { id: 'tags', type: 'text[]' },
  { id: 'ok', type: 'bool' },
]
const BOOKS = [
  {
    book: 'annakarenina',
    author: 'tolstoy',
    n: 1,
    price: '10.5',
    published: '2005-03-01',
    meta: { a: [1, 'b'] },
    tags: ['x', 'y'],
    ok: true,
  },
  { book: 'warandpeace', author: 'tolstoy', n: 2, price: 3, published: '2005-03-01T10:11:12.5' },
  { book: 'emma', author: 'austen', n: 3, meta: 'text', tags: [], ok: false },
]

/** A datastore resource of a new dataset with this table; returns the resource id. */
async function table(dataset: Record<string, unknown>, params: Record<string, unknown>) {
  const ds = await t.make.dataset(admin, dataset)
  const made = await t.ok('datastore_create', { resource: { package_id: ds.id }, ...params }, admin)
  return made.resource_id as string
}

beforeAll(async () => {
  t = await setup({
    'service.datastore.search.rows_max': String(ROWS_MAX),
    'service.datastore.sqlsearch.timeout_ms': String(TIMEOUT_MS),
  })
  admin = await t.make.sysadmin()
  member = await t.make.user()
  outsider = await t.make.user()
  const org = await t.make.organization(admin)
  await t.ok(
    'organization_member_create',
    { id: org.id, username: member.name, role: 'member' },
    admin,
  )
  books = await table({}, { fields: BOOK_FIELDS, records: BOOKS, aliases: ['sql_books'] })
  authors = await table(
    {},
    {
      fields: [{ id: 'author', type: 'text' }, { id: 'Country', type: 'text' }],
      records: [
        { author: 'tolstoy', Country: 'RU' },
        { author: 'austen', Country: 'GB' },
      ],
    },
  )
  secret = await table(
    { owner_org: org.id, private: true },
    {
      fields: [{ id: 'book', type: 'text' }, { id: 'note', type: 'text' }],
      records: [{ book: 'emma', note: 'hidden' }],
      aliases: ['sql_secret'],
    },
  )
})

const sqlCall = (sql: string, as: Caller | null = admin) =>
  t.call('datastore_search_sql', { sql }, as)
const result = async (sql: string, as: Caller | null = admin) =>
  t.ok('datastore_search_sql', { sql }, as)

const invalid = (errors: Record<string, unknown>) => ({ __type: 'Validation Error', ...errors })
const denied = (detail: string) => ({
  __type: 'Authorization Error',
  message: `Access denied: ${detail}`,
})
const queryError = (sql: string, msg: string) =>
  invalid({ query: [msg], info: { statement: [sql], params: [{}], orig: [msg] } })

/** Status and error of a refused call. */
async function refusal(sql: string, as: Caller | null = admin) {
  const r = await sqlCall(sql, as)
  return [r.status, r.body.error]
}

describe('datastore_search_sql: results', () => {
  it('returns fields and records of a select, echoing the sql as sent', async () => {
    const sql = `SELECT book, n FROM "${books}"   WHERE n < 3 ORDER BY n`
    expect(await result(sql)).toEqual({
      sql,
      fields: [
        { id: 'book', type: 'text' },
        { id: 'n', type: 'int4' },
      ],
      records: [
        { book: 'annakarenina', n: 1 },
        { book: 'warandpeace', n: 2 },
      ],
    })
  })

  it('types columns from the catalogue and converts values as CKAN does', async () => {
    const r = await result(`SELECT * FROM "${books}" ORDER BY _id`)
    expect(r.fields).toEqual([
      { id: '_id', type: 'int4' },
      { id: 'book', type: 'text' },
      { id: 'author', type: 'text' },
      { id: 'n', type: 'int4' },
      { id: 'price', type: 'numeric' },
      { id: 'published', type: 'timestamp' },
      { id: 'meta', type: 'json' },
      { id: 'tags', type: '_text' },
      { id: 'ok', type: 'bool' },
    ])
    expect(r.records).toEqual([
      {
        _id: 1,
        book: 'annakarenina',
        author: 'tolstoy',
        n: 1,
        price: '10.5',
        published: '2005-03-01T00:00:00',
        meta: { a: [1, 'b'] },
        tags: ['x', 'y'],
        ok: true,
      },
      {
        _id: 2,
        book: 'warandpeace',
        author: 'tolstoy',
        n: 2,
        price: '3',
        published: '2005-03-01T10:11:12.500000',
        meta: null,
        tags: null,
        ok: null,
      },
      {
        _id: 3,
        book: 'emma',
        author: 'austen',
        n: 3,
        price: null,
        published: null,
        meta: 'text',
        tags: [],
        ok: false,
      },
    ])
    expect(r.records_truncated).toBeUndefined()
  })

  it('joins two tables named by quoted ids', async () => {
    const sql =
      `SELECT b.book, a."Country" FROM "${books}" b JOIN "${authors}" a ` +
      `ON a.author = b.author WHERE a."Country" = 'RU' ORDER BY b.book DESC`
    expect(await result(sql)).toEqual({
      sql,
      fields: [
        { id: 'book', type: 'text' },
        { id: 'Country', type: 'text' },
      ],
      records: [
        { book: 'warandpeace', Country: 'RU' },
        { book: 'annakarenina', Country: 'RU' },
      ],
    })
  })

  it('runs a CTE and types its columns from the table behind it', async () => {
    const sql =
      `WITH cheap AS (SELECT book, price FROM "${books}" WHERE price IS NOT NULL) ` +
      'SELECT book, price FROM cheap ORDER BY book'
    const r = await result(sql)
    expect([r.fields, r.records]).toEqual([
      [
        { id: 'book', type: 'text' },
        { id: 'price', type: 'numeric' },
      ],
      [
        { book: 'annakarenina', price: '10.5' },
        { book: 'warandpeace', price: '3' },
      ],
    ])
  })

  it('types count(*) as int8', async () => {
    const r = await result(`SELECT count(*) AS total, author FROM "${books}" GROUP BY author`)
    expect([r.fields, r.records]).toEqual([
      [
        { id: 'total', type: 'int8' },
        { id: 'author', type: 'text' },
      ],
      [
        { total: 1, author: 'austen' },
        { total: 2, author: 'tolstoy' },
      ],
    ])
  })

  it('reads an alias as the table behind it', async () => {
    const r = await result('SELECT _id, tags FROM sql_books WHERE ok')
    expect([r.fields, r.records]).toEqual([
      [
        { id: '_id', type: 'int4' },
        { id: 'tags', type: '_text' },
      ],
      [{ _id: 1, tags: ['x', 'y'] }],
    ])
  })

  it('accepts public."<id>", "col"::int, ILIKE and string_agg', async () => {
    const sql =
      `SELECT string_agg(book, '|') AS books, sum("n"::int) AS total FROM public."${books}" ` +
      `WHERE author ILIKE 'TOL%'`
    const r = await result(sql)
    expect([r.sql, r.fields, r.records]).toEqual([
      sql,
      [
        { id: 'books', type: 'text' },
        { id: 'total', type: 'int8' },
      ],
      [{ books: 'annakarenina|warandpeace', total: 3 }],
    ])
  })

  it('caps the records at rows_max and sets records_truncated', async () => {
    const rows = (n: number) =>
      `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${n}) ` +
      'SELECT x FROM c'
    const capped = await result(rows(ROWS_MAX + 1))
    expect(capped.records).toEqual([1, 2, 3, 4, 5].map((x) => ({ x })))
    expect(capped.records_truncated).toBe(true)
    const exact = await result(rows(ROWS_MAX))
    expect(exact.records).toHaveLength(ROWS_MAX)
    expect('records_truncated' in exact).toBe(false)
  })

  it('accepts a trailing semicolon', async () => {
    const sql = `SELECT book FROM "${books}" WHERE n = 3;  `
    expect(await result(sql)).toEqual({
      sql,
      fields: [{ id: 'book', type: 'text' }],
      records: [{ book: 'emma' }],
    })
  })

  it('answers GET with the sql in the query string', async () => {
    const sql = `SELECT book FROM "${books}" WHERE book LIKE '%a%' ORDER BY book`
    const r = await t.get(`/api/3/action/datastore_search_sql?sql=${encodeURIComponent(sql)}`)
    expect([r.status, r.body.success, r.body.result]).toEqual([
      200,
      true,
      {
        sql,
        fields: [{ id: 'book', type: 'text' }],
        records: ['annakarenina', 'emma', 'warandpeace'].map((book) => ({ book })),
      },
    ])
  })
})

describe('datastore_search_sql: column names as PostgreSQL gives them', () => {
  it('names count(*) count', async () => {
    const sql = `SELECT count(*) FROM "${books}"`
    expect(await result(sql)).toEqual({
      sql,
      fields: [{ id: 'count', type: 'int8' }],
      records: [{ count: 3 }],
    })
  })

  it('names calls, casts, CASE and constants, and keeps column types', async () => {
    const sql =
      `SELECT b.author, COUNT(*), string_agg(b.book, '|'), max(n)::text, ` +
      `CASE WHEN max(n) > 2 THEN 'many' END, 'x' FROM "${books}" b ` +
      'GROUP BY b.author ORDER BY author'
    const r = await result(sql)
    expect([r.fields, r.records]).toEqual([
      [
        { id: 'author', type: 'text' },
        { id: 'count', type: 'int8' },
        { id: 'string_agg', type: 'text' },
        { id: 'max', type: 'text' },
        { id: 'case', type: 'text' },
        { id: '?column?', type: 'text' },
      ],
      [
        { author: 'austen', count: 1, string_agg: 'emma', max: '3', case: 'many', '?column?': 'x' },
        {
          author: 'tolstoy',
          count: 2,
          string_agg: 'annakarenina|warandpeace',
          max: '2',
          case: null,
          '?column?': 'x',
        },
      ],
    ])
  })

  it('types _id and catalogue columns through the names it gives', async () => {
    const r = await result(`SELECT b._id, b.book, B.N FROM "${books}" b WHERE n = 1`)
    expect([r.fields, r.records]).toEqual([
      [
        { id: '_id', type: 'int4' },
        { id: 'book', type: 'text' },
        { id: 'n', type: 'int4' },
      ],
      [{ _id: 1, book: 'annakarenina', n: 1 }],
    ])
  })

  it('folds an unquoted alias to lower case and keeps a quoted one', async () => {
    const r = await result(`SELECT count(*) AS Total, count(*) "Big" FROM "${books}"`)
    expect([r.fields, r.records]).toEqual([
      [
        { id: 'total', type: 'int8' },
        { id: 'Big', type: 'int8' },
      ],
      [{ total: 3, Big: 3 }],
    ])
  })

  it('names a compound after its first arm and a CTE after its final select', async () => {
    const union = await result(`SELECT count(*) FROM "${books}" UNION ALL SELECT 7 AS seven`)
    expect(union.records).toEqual([{ count: 3 }, { count: 7 }])
    const cte = await result(
      `WITH c AS (SELECT author AS who FROM "${books}") SELECT upper(who), count(*) FROM c ` +
        'GROUP BY who ORDER BY 1',
    )
    expect(cte.records).toEqual([
      { upper: 'AUSTEN', count: 1 },
      { upper: 'TOLSTOY', count: 2 },
    ])
  })

  it('names VALUES columns column1, column2', async () => {
    const r = await result("VALUES (1, 'a'), (2, 'b')")
    expect([r.fields, r.records]).toEqual([
      [
        { id: 'column1', type: 'int8' },
        { id: 'column2', type: 'text' },
      ],
      [
        { column1: 1, column2: 'a' },
        { column1: 2, column2: 'b' },
      ],
    ])
  })
})

describe('datastore_search_sql: refusals and errors', () => {
  it('refuses several statements', async () => {
    const sql = `SELECT 1; SELECT * FROM "${books}"`
    expect(await refusal(sql)).toEqual([
      409,
      invalid({ query: ['Query is not a single statement.'] }),
    ])
  })

  it('accepts a semicolon inside a string literal', async () => {
    const r = await result(`SELECT book FROM "${books}" WHERE book <> 'a;b' AND n = 1`)
    expect(r.records).toEqual([{ book: 'annakarenina' }])
  })

  it('refuses writes and other statements, and nothing changes', async () => {
    const cases: [string, string][] = [
      [`INSERT INTO "${books}" (book) VALUES ('x')`, 'INSERT'],
      [`UPDATE "${books}" SET n = 0`, 'UPDATE'],
      [`DELETE FROM "${books}"`, 'DELETE'],
      [`DROP TABLE "${books}"`, 'DROP'],
      ['PRAGMA query_only = 0', 'PRAGMA'],
      ["ATTACH DATABASE 'other.db' AS other", 'ATTACH'],
      ['CREATE TABLE evil (a)', 'CREATE'],
      [`WITH x AS (DELETE FROM "${books}" RETURNING *) SELECT * FROM x`, 'DELETE'],
      [`SELECT 1 FROM "${books}"; DELETE FROM "${books}"`, ''],
    ]
    for (const [sql, word] of cases) {
      const msg = word
        ? `cannot execute ${word} in a read-only transaction`
        : 'Query is not a single statement.'
      expect(await refusal(sql), sql).toEqual([409, invalid({ query: [msg] })])
    }
    const count = await result(`SELECT count(*) AS c, sum(n) AS s FROM "${books}"`)
    expect(count.records).toEqual([{ c: 3, s: 6 }])
  })

  it('refuses functions off the allow-list', async () => {
    for (const fn of ['load_extension', 'readfile', 'writefile', 'randomblob', 'sqlite_version']) {
      const sql = `SELECT ${fn}('x') FROM "${books}"`
      const msg = `{'permissions': ['Not authorized to call function ${fn}']}`
      expect(await refusal(sql), fn).toEqual([403, denied(msg)])
    }
    const nested = `SELECT upper(load_extension('x'))`
    const msg = "{'permissions': ['Not authorized to call function load_extension']}"
    expect(await refusal(nested)).toEqual([403, denied(msg)])
  })

  it('matches a quoted function name exactly, case included, as PostgreSQL does', async () => {
    for (const fn of ['Upper', 'UPPER', 'Count', 'String_agg']) {
      const sql = `SELECT "${fn}"(book) FROM "${books}"`
      const msg = `{'permissions': ['Not authorized to call function ${fn}']}`
      expect(await refusal(sql), fn).toEqual([403, denied(msg)])
    }
    const upper = [{ b: 'ANNAKARENINA' }, { b: 'WARANDPEACE' }, { b: 'EMMA' }]
    for (const fn of ['"upper"', 'UPPER', 'Upper', 'upper']) {
      const sql = `SELECT ${fn}(book) AS b FROM "${books}" ORDER BY n`
      expect((await result(sql)).records, fn).toEqual(upper)
    }
    // a quoted name PostgreSQL knows works like the unquoted one, rewritten for SQLite where needed
    const sql = `SELECT "greatest"(n, 2) AS g, "count"(*) AS c FROM "${books}" GROUP BY n`
    expect((await result(sql)).records).toEqual([
      { g: 2, c: 1 },
      { g: 2, c: 1 },
      { g: 3, c: 1 },
    ])
  })

  it('refuses SQLite, internal and full-text tables as system tables', async () => {
    const system = denied("{'permissions': ['Not authorized to access system tables']}")
    const names = [
      'sqlite_schema',
      'sqlite_master',
      '_ds_table',
      '_ds_function',
      `"_fts_${books}"`,
      '_table_metadata',
    ]
    for (const name of names) {
      for (const sql of [
        `SELECT * FROM ${name}`,
        `SELECT b.book FROM "${books}" b, ${name} s`,
        `SELECT (SELECT count(*) FROM ${name}) AS c`,
        `SELECT * FROM "${books}" WHERE book IN (SELECT 1 FROM ${name})`,
      ]) {
        expect(await refusal(sql), sql).toEqual([403, system])
      }
    }
  })

  it('cannot reach catalogue tables: they do not exist in the DataStore database', async () => {
    for (const name of ['user', 'package', 'api_token']) {
      const sql = `SELECT * FROM "${name}"`
      expect(await refusal(sql), name).toEqual([
        409,
        queryError(sql, `relation "${name}" does not exist`),
      ])
    }
  })

  it('answers syntax errors with PostgreSQL wording and info', async () => {
    const cases: [string, string][] = [
      ['SELECT FROM WHERE', 'syntax error at or near "FROM"'],
      // CKAN 2.9 test_invalid_statement: PostgreSQL reads `**` as one operator
      ['SELECT ** FROM foobar', 'syntax error at or near "FROM"'],
      [`SELECT book, ** FROM "${books}"`, 'syntax error at or near "FROM"'],
      [`SELECT * FROM "${books}" WHERE`, 'syntax error at end of input'],
      [`SELECT * FROM "${books}" ORDER`, 'syntax error at end of input'],
      [`SELECT book FROM "${books}" LIMIT`, 'syntax error at end of input'],
      [`SELECT nope FROM "${books}"`, 'column "nope" does not exist'],
    ]
    for (const [sql, msg] of cases) {
      expect(await refusal(sql), sql).toEqual([409, queryError(sql, msg)])
    }
  })

  it('requires sql', async () => {
    for (const params of [{}, { sql: '' }]) {
      const r = await t.call('datastore_search_sql', params)
      expect([r.status, r.body.error]).toEqual([409, invalid({ sql: ['Missing value'] })])
    }
  })
})

describe('datastore_search_sql: private resources', () => {
  const queries = () => [
    `SELECT * FROM "${secret}"`,
    'SELECT * FROM sql_secret',
    `SELECT b.book, s.note FROM "${books}" b JOIN "${secret}" s ON s.book = b.book`,
    `SELECT book FROM "${books}" WHERE book IN (SELECT book FROM "${secret}")`,
    `WITH s AS (SELECT * FROM public."${secret}") SELECT count(*) AS c FROM s`,
  ]

  it('refuses anonymous callers and non-members', async () => {
    for (const who of [null, outsider]) {
      for (const sql of queries()) {
        expect(await refusal(sql, who), sql).toEqual([
          403,
          denied('Not authorized to read resource.'),
        ])
      }
    }
  })

  it('answers members of the organization and sysadmins', async () => {
    for (const who of [member, admin]) {
      const sql = `SELECT b.book, s.note FROM "${books}" b JOIN "${secret}" s ON s.book = b.book`
      expect((await result(sql, who)).records).toEqual([{ book: 'emma', note: 'hidden' }])
      expect((await result('SELECT _id, note FROM sql_secret', who)).records).toEqual([
        { _id: 1, note: 'hidden' },
      ])
    }
  })

  it('lets anyone read public tables', async () => {
    for (const who of [null, outsider]) {
      const r = await result(`SELECT count(*) AS c FROM "${books}"`, who)
      expect(r.records).toEqual([{ c: 3 }])
    }
  })
})

describe('datastore_search_sql: time limit', () => {
  it('stops a long query with "Query took too long"', async () => {
    const started = Date.now()
    expect(await refusal(LONG)).toEqual([409, invalid({ query: ['Query took too long'] })])
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 10)
    expect(took).toBeLessThan(1000)
  })

  it('keeps answering other requests while long queries run', async () => {
    const settled: string[] = []
    const longs = Promise.all([sqlCall(LONG), sqlCall(LONG, null)]).then((all) => {
      settled.push('long queries')
      return all
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const timed = async (work: Promise<{ status: number }>) => {
      const started = Date.now()
      const r = await work
      return [r.status, Date.now() - started < 500]
    }
    expect(await timed(t.call('datastore_search', { resource_id: books }))).toEqual([200, true])
    expect(await timed(t.call('status_show'))).toEqual([200, true])
    settled.push('others')
    const done = await longs
    expect(settled).toEqual(['others', 'long queries'])
    for (const r of done) {
      expect([r.status, r.body.error]).toEqual([409, invalid({ query: ['Query took too long'] })])
    }
    // and the connections are usable again afterwards
    expect((await result(`SELECT count(*) AS c FROM "${books}"`)).records).toEqual([{ c: 3 }])
  })
})

describe('datastore_search_sql: switched off', () => {
  let off: TestEnv
  beforeAll(async () => {
    off = await setup({ 'service.datastore.sqlsearch.enabled': 'false' })
  })

  it('is an unknown action, even without parameters', async () => {
    const sysadmin = await off.make.sysadmin()
    for (const [params, as] of [
      [{ sql: 'SELECT 1' }, null],
      [{}, sysadmin],
    ] as const) {
      const r = await off.call('datastore_search_sql', params, as)
      expect([r.status, r.body]).toEqual([
        400,
        'Bad request - Action name not known: datastore_search_sql',
      ])
    }
    const get = await off.get('/api/3/action/datastore_search_sql?sql=SELECT%201')
    expect([get.status, get.body]).toEqual([
      400,
      'Bad request - Action name not known: datastore_search_sql',
    ])
  })
})
