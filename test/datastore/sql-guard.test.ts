// datastore_search_sql guard: which statements pass, what they become, and what is refused.
import { describe, expect, it } from 'vitest'
import { SqlRefused, guardSql, pgMessage } from '../../src/datastore/sql-guard'

const inner = (sql: string) => {
  const out = guardSql(sql, 100).sql
  expect(out.startsWith('SELECT * FROM (') && out.endsWith(') AS t LIMIT 101')).toBe(true)
  return out.slice('SELECT * FROM ('.length, -') AS t LIMIT 101'.length)
}

function refusal(sql: string): { kind: string; message: string } {
  try {
    guardSql(sql, 100)
  } catch (e) {
    expect(e).toBeInstanceOf(SqlRefused)
    return { kind: (e as SqlRefused).kind, message: (e as Error).message }
  }
  throw new Error(`not refused: ${sql}`)
}

describe('guardSql: wrapping', () => {
  it('wraps the statement with a LIMIT one above the row cap', () => {
    expect(guardSql('SELECT 1', 32000).sql).toBe('SELECT * FROM (SELECT 1) AS t LIMIT 32001')
    expect(guardSql('SELECT 1', 0).sql).toBe('SELECT * FROM (SELECT 1) AS t LIMIT 1')
  })

  it('strips one trailing semicolon and surrounding whitespace', () => {
    expect(inner('  SELECT 1 ;  \n')).toBe('SELECT 1')
    expect(inner('SELECT 1; -- done')).toBe('SELECT 1')
  })

  it('drops comments, so nothing after -- or inside /* */ reaches SQLite', () => {
    expect(inner('SELECT a -- ; DROP TABLE x\nFROM t')).toBe('SELECT a  \nFROM t')
    expect(inner('SELECT /* ; DELETE FROM t; */ a FROM t')).toBe('SELECT   a FROM t')
    // PostgreSQL block comments nest
    expect(inner('SELECT /* a /* b */ ; c */ 1')).toBe('SELECT   1')
  })
})

describe('guardSql: accepted statements', () => {
  // [statement, functions, tableRefs]
  const accepted: [string, string[], string[]][] = [
    ['SELECT * FROM "3a1b-c"', [], ['3a1b-c']],
    ['select "Name" from "T1"', [], ['T1']],
    ['(SELECT 1)', [], []],
    ['VALUES (1, 2), (3, 4)', [], []],
    [
      'SELECT a.x, b.y FROM a JOIN b ON a.id = b.id LEFT OUTER JOIN c USING (id)',
      [],
      ['a', 'b', 'c'],
    ],
    [
      'SELECT * FROM a x, b AS y, (SELECT 1) z WHERE x.id IN (SELECT id FROM d)',
      [],
      ['a', 'b', 'd'],
    ],
    ['WITH r AS (SELECT * FROM t) SELECT count(*) FROM r', ['count'], ['t']],
    [
      'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 5) SELECT n FROM c',
      [],
      [],
    ],
    [
      'SELECT upper(name), COUNT(*), Lower(x) FROM t GROUP BY 1',
      ['upper', 'count', 'lower'],
      ['t'],
    ],
    ['SELECT "count"(*) FROM t', ['count'], ['t']],
    ["SELECT ';' AS semi, 'it''s; fine' FROM t", [], ['t']],
    ['SELECT "a;b" FROM t -- ; DROP TABLE t', [], ['t']],
    ['SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t', ['row_number'], ['t']],
    ['SELECT count(*) FILTER (WHERE a > 1) FROM t', ['count'], ['t']],
    ["SELECT value FROM json_each('[1,2]')", ['json_each'], []],
    ['SELECT substring(x FROM 2 FOR 3), trim(both FROM y) FROM t', ['substring', 'trim'], ['t']],
    ['SELECT a FROM t WHERE a IS DISTINCT FROM b', [], ['t']],
    ['SELECT CAST(x AS varchar(10)) FROM t', ['cast'], ['t']],
    ['SELECT * FROM public."abc", public.def', [], ['abc', 'def']],
    ['SELECT \'delete\' AS "update" FROM t', [], ['t']],
  ]
  it.each(accepted)('accepts %s', (sql, functions, tableRefs) => {
    const out = guardSql(sql, 10)
    expect(out.functions).toEqual(functions)
    expect(out.tableRefs).toEqual(tableRefs)
  })
})

describe('guardSql: PostgreSQL spellings', () => {
  const rewritten: [string, string][] = [
    [
      'SELECT x::int, y::INT8, z::bigint FROM t',
      'SELECT CAST(x AS INTEGER), CAST(y AS INTEGER), CAST(z AS INTEGER) FROM t',
    ],
    [
      'SELECT "n"::numeric, t.v :: float8, a::double precision',
      'SELECT CAST("n" AS NUMERIC), CAST(t.v AS REAL), CAST(a AS REAL)',
    ],
    [
      "SELECT '2020-01-01'::date, x::timestamp, y::varchar(20), b::bool",
      "SELECT CAST('2020-01-01' AS TEXT), CAST(x AS TEXT), CAST(y AS TEXT), CAST(b AS INTEGER)",
    ],
    [
      'SELECT (a + b)::text, upper(x)::text::int',
      'SELECT CAST((a + b) AS TEXT), CAST(CAST(upper(x) AS TEXT) AS INTEGER)',
    ],
    ['SELECT -x::int, a + b::numeric(10,2)', 'SELECT -CAST(x AS INTEGER), a + CAST(b AS NUMERIC)'],
    [
      "SELECT * FROM t WHERE name ILIKE '%a%' AND b NOT ILIKE 'x'",
      "SELECT * FROM t WHERE name LIKE '%a%' AND b NOT LIKE 'x'",
    ],
    [
      "SELECT * FROM t WHERE a~~'x' OR b!~~*'y'",
      "SELECT * FROM t WHERE a LIKE 'x' OR b NOT LIKE 'y'",
    ],
    [
      'SELECT * FROM public."abc" JOIN public.Def ON true',
      'SELECT * FROM "abc" JOIN "def" ON true',
    ],
    [
      "SELECT string_agg(a, ', ' ORDER BY a) FROM t",
      "SELECT group_concat(a, ', ' ORDER BY a) FROM t",
    ],
    [
      'SELECT array_agg(a), json_agg(b), char_length(c), btrim(d)',
      'SELECT json_group_array(a), json_group_array(b), length(c), trim(d)',
    ],
    ['SELECT greatest(a, b, c), least(a, b), greatest(a)', 'SELECT max(a, b, c), min(a, b), (a)'],
    [
      "SELECT date_trunc('month', ts), date_trunc('DAY', ts)",
      "SELECT strftime('%Y-%m-01T00:00:00', ts), strftime('%Y-%m-%dT00:00:00', ts)",
    ],
    [
      "SELECT date_part('year', ts), extract(dow FROM ts)",
      "SELECT CAST(strftime('%Y', ts) AS INTEGER), CAST(strftime('%w', ts) AS INTEGER)",
    ],
    ['SELECT to_char(ts, \'YYYY-MM-DD"T"HH24:MI:SS\')', "SELECT strftime('%Y-%m-%dT%H:%M:%S', ts)"],
    [
      "SELECT date_trunc('week', ts), to_char(ts, 'Month'), date_part('constructor', ts)",
      "SELECT date_trunc('week', ts), to_char(ts, 'Month'), date_part('constructor', ts)",
    ],
    ["SELECT E'it\\'s\\n\\x41', $$a'b$$, $tag$ $$ ; $tag$", "SELECT 'it''s\nA', 'a''b', ' $$ ; '"],
    ['SELECT [x], `y` FROM [t]', 'SELECT "x", "y" FROM "t"'],
    ["SELECT TRUE, FALSE, x->>'a'", "SELECT TRUE, FALSE, x->>'a'"],
  ]
  it.each(rewritten)('rewrites %s', (sql, expected) => {
    expect(inner(sql)).toBe(expected)
  })
})

describe('guardSql: refusals', () => {
  const SYSTEM = { kind: 'auth', message: 'Not authorized to access system tables' }
  const call = (name: string) => ({
    kind: 'auth',
    message: `Not authorized to call function ${name}`,
  })
  const query = (message: string) => ({ kind: 'query', message })
  const NOT_SINGLE = query('Query is not a single statement.')
  const refused: [string, { kind: string; message: string }][] = [
    ['SELECT 1; DROP TABLE x', NOT_SINGLE],
    ['SELECT 1;;', NOT_SINGLE],
    ['SELECT 1; -- c\n SELECT 2', NOT_SINGLE],
    ['SELECT 1 /* c */ ; DELETE FROM t', NOT_SINGLE],
    ["SELECT 'a'; SELECT 'b'", NOT_SINGLE],
    ['SELECT (1;)', NOT_SINGLE],
    ['DROP TABLE x', query('cannot execute DROP in a read-only transaction')],
    ['INSERT INTO t VALUES (1)', query('cannot execute INSERT in a read-only transaction')],
    ['PRAGMA table_info(t)', query('cannot execute PRAGMA in a read-only transaction')],
    ["ATTACH 'other.db' AS o", query('cannot execute ATTACH in a read-only transaction')],
    ['create table x (a)', query('cannot execute CREATE in a read-only transaction')],
    ['/* SELECT */ VACUUM', query('cannot execute VACUUM in a read-only transaction')],
    [
      'WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x',
      query('cannot execute DELETE in a read-only transaction'),
    ],
    [
      'WITH x AS (SELECT 1) UPDATE t SET a = 1',
      query('cannot execute UPDATE in a read-only transaction'),
    ],
    ['', query('syntax error at end of input')],
    ['  -- only a comment', query('syntax error at end of input')],
    ['42', query('syntax error at or near "42"')],
    ["SELECT 'abc", query('unterminated quoted string at or near "\'abc"')],
    ['SELECT "abc', query('unterminated quoted identifier at or near ""abc"')],
    ['SELECT 1 /* x', query('unterminated /* comment at or near "/* x"')],
    ['SELECT $$x', query('unterminated dollar-quoted string at or near "$$x"')],
    ['SELECT (1', query('syntax error at end of input')],
    ['SELECT 1)', query('syntax error at or near ")"')],
    ['SELECT 1\0', query('invalid byte sequence for encoding "UTF8": 0x00')],
    ["SELECT E'a\\0b'", query('invalid byte sequence for encoding "UTF8": 0x00')],
    ["SELECT E'\\x00'", query('invalid byte sequence for encoding "UTF8": 0x00')],
    ["SELECT E'\\UFFFFFFFF'", query('invalid Unicode escape value')],
    ['SELECT x::text[] FROM t', query('type "text[]" does not exist')],
    ['SELECT x::regclass', query('type "regclass" does not exist')],
    ['SELECT x::constructor', query('type "constructor" does not exist')],
    ['SELECT ::int', query('syntax error at or near "::"')],
    [`SELECT ${'('.repeat(1200)}1${')'.repeat(1200)}`, query('stack depth limit exceeded')],
    ["select load_extension('x')", call('load_extension')],
    ["SELECT LOAD_EXTENSION('x')", call('load_extension')],
    ['SELECT "load_extension"(\'x\')', call('load_extension')],
    ["SELECT [load_extension]('x')", call('load_extension')],
    ["SELECT load_extension /* */ ('x')", call('load_extension')],
    ['SELECT "COUNT"(*) FROM t', call('COUNT')],
    ["SELECT readfile('/etc/passwd')", call('readfile')],
    ["SELECT writefile('x', 'y')", call('writefile')],
    ['SELECT randomblob(1000000000)', call('randomblob')],
    ['SELECT zeroblob(1000000000)', call('zeroblob')],
    ['SELECT sqlite_version()', call('sqlite_version')],
    ["SELECT fts3_tokenizer('x')", call('fts3_tokenizer')],
    ["SELECT * FROM pragma_table_info('t')", call('pragma_table_info')],
    ['SELECT upper(x) FROM t WHERE y IN (SELECT edit(z) FROM u)', call('edit')],
    ['SELECT my_func(1)', call('my_func')],
    ['SELECT * FROM sqlite_master', SYSTEM],
    ['select * from SQLITE_SCHEMA', SYSTEM],
    ['SELECT * FROM main.sqlite_master', SYSTEM],
    ['SELECT * FROM "sqlite_temp_master"', SYSTEM],
    ['SELECT * FROM [sqlite_master]', SYSTEM],
    ['SELECT * FROM _ds_table', SYSTEM],
    ['SELECT * FROM "_fts_abc"', SYSTEM],
    ['SELECT * FROM _table_metadata', SYSTEM],
    ['SELECT * FROM pg_catalog.pg_class', SYSTEM],
    ['SELECT * FROM pg_tables', SYSTEM],
    ['SELECT * FROM information_schema.tables', SYSTEM],
    ['SELECT * FROM pragma_table_list', SYSTEM],
    ['SELECT * FROM dbstat', SYSTEM],
    ['SELECT * FROM t, sqlite_master', SYSTEM],
    ['SELECT * FROM t JOIN "_ds_alias" a ON true', SYSTEM],
    ['SELECT * FROM t WHERE x IN sqlite_master', SYSTEM],
    ['SELECT (SELECT count(*) FROM sqlite_master)', SYSTEM],
    ['WITH x AS (SELECT * FROM _ds_function) SELECT * FROM x', SYSTEM],
  ]
  it.each(refused)('refuses %s', (sql, expected) => {
    expect(refusal(sql)).toEqual(expected)
  })

  it('names a function as written, lower-cased unless quoted', () => {
    expect(refusal('SELECT Foo_Bar(1)').message).toBe('Not authorized to call function foo_bar')
    expect(refusal('SELECT "Foo_Bar"(1)').message).toBe('Not authorized to call function Foo_Bar')
  })

  it('stays linear on hostile input', () => {
    const casts = `SELECT ${'('.repeat(900)}x${')'.repeat(900)}${'::int'.repeat(20000)} FROM t`
    const comments = `SELECT ${'/**/ '.repeat(50000)}a${'::int'.repeat(2000)}`
    const started = Date.now()
    expect(guardSql(casts, 1).sql.split('CAST(').length).toBe(20001)
    expect(guardSql(comments, 1).sql).toContain('CAST(')
    expect(Date.now() - started).toBeLessThan(2000)
  })
})

describe('pgMessage', () => {
  const messages: [string, string][] = [
    ['near "FROM": syntax error', 'syntax error at or near "FROM"'],
    ['SQLITE_ERROR: near "selec": syntax error', 'syntax error at or near "selec"'],
    ['incomplete input', 'syntax error at end of input'],
    ['no such table: main.abc', 'relation "abc" does not exist'],
    ['no such table: abc', 'relation "abc" does not exist'],
    ['no such column: Name', 'column "Name" does not exist'],
    ['no such function: to_char', 'function to_char does not exist'],
    ['ambiguous column name: x', 'ambiguous column name: x'],
  ]
  it.each(messages)('turns %s into PostgreSQL wording', (sqlite, pg) => {
    expect(pgMessage(sqlite)).toBe(pg)
  })
})
