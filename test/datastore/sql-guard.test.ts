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
    expect(guardSql('SELECT 1 AS a', 32000).sql).toBe(
      'SELECT * FROM (SELECT 1 AS a) AS t LIMIT 32001',
    )
    expect(guardSql('SELECT 1 AS a', 0).sql).toBe('SELECT * FROM (SELECT 1 AS a) AS t LIMIT 1')
  })

  it('strips one trailing semicolon and surrounding whitespace', () => {
    expect(inner('  SELECT 1 AS a ;  \n')).toBe('SELECT 1 AS a')
    expect(inner('SELECT 1 AS a; -- done')).toBe('SELECT 1 AS a')
  })

  it('drops comments, so nothing after -- or inside /* */ reaches SQLite', () => {
    expect(inner('SELECT a -- ; DROP TABLE x\nFROM t')).toBe('SELECT a AS "a"  \nFROM t')
    expect(inner('SELECT /* ; DELETE FROM t; */ a FROM t')).toBe('SELECT   a AS "a" FROM t')
    // PostgreSQL block comments nest
    expect(inner('SELECT /* a /* b */ ; c */ 1 AS a')).toBe('SELECT   1 AS a')
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
      'SELECT CAST(x AS INTEGER) AS "x", CAST(y AS INTEGER) AS "y", CAST(z AS INTEGER) AS "z" ' +
        'FROM t',
    ],
    [
      'SELECT "n"::numeric, t.v :: float8, a::double precision',
      'SELECT CAST("n" AS NUMERIC) AS "n", CAST(t.v AS REAL) AS "v", CAST(a AS REAL) AS "a"',
    ],
    [
      "SELECT '2020-01-01'::date AS d, x::timestamp AS x, y::varchar(20) AS y, b::bool AS b",
      "SELECT CAST('2020-01-01' AS TEXT) AS d, CAST(x AS TEXT) AS x, CAST(y AS TEXT) AS y, " +
        'CAST(b AS INTEGER) AS b',
    ],
    [
      'SELECT (a + b)::text AS s, upper(x)::text::int AS u',
      'SELECT CAST((a + b) AS TEXT) AS s, CAST(CAST(upper(x) AS TEXT) AS INTEGER) AS u',
    ],
    [
      'SELECT 1 FROM t WHERE -x::int < a + b::numeric(10,2)',
      'SELECT 1 AS "?column?" FROM t WHERE -CAST(x AS INTEGER) < a + CAST(b AS NUMERIC)',
    ],
    [
      'SELECT 1 AS a WHERE CASE WHEN a THEN 1 END::text = CASE x WHEN 1 THEN 2 END :: int',
      'SELECT 1 AS a WHERE CAST(CASE WHEN a THEN 1 END AS TEXT) = ' +
        'CAST(CASE x WHEN 1 THEN 2 END AS INTEGER)',
    ],
    [
      'SELECT CASE WHEN a THEN CASE WHEN b THEN 1 END::int ELSE 2 END::text AS c',
      'SELECT CAST(CASE WHEN a THEN CAST(CASE WHEN b THEN 1 END AS INTEGER) ELSE 2 END AS TEXT) ' +
        'AS c',
    ],
    [
      'SELECT CAST(x AS character varying(9)) AS a, y::character varying(9) AS b',
      'SELECT CAST(x AS character varying(9)) AS a, CAST(y AS TEXT) AS b',
    ],
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
      "SELECT group_concat(a, ', ' ORDER BY a) AS \"string_agg\" FROM t",
    ],
    [
      'SELECT array_agg(a), json_agg(b), char_length(c), btrim(d)',
      'SELECT json_group_array(a) AS "array_agg", json_group_array(b) AS "json_agg", ' +
        'length(c) AS "char_length", trim(d) AS "btrim"',
    ],
    [
      'SELECT greatest(a, b, c) AS x, least(a, b) AS y, greatest(a) AS z',
      'SELECT max(a, b, c) AS x, min(a, b) AS y, (a) AS z',
    ],
    [
      "SELECT date_trunc('month', ts) AS a, date_trunc('DAY', ts) AS b",
      "SELECT strftime('%Y-%m-01T00:00:00', ts) AS a, strftime('%Y-%m-%dT00:00:00', ts) AS b",
    ],
    [
      "SELECT date_part('year', ts) AS a, extract(dow FROM ts) AS b",
      "SELECT CAST(strftime('%Y', ts) AS INTEGER) AS a, CAST(strftime('%w', ts) AS INTEGER) AS b",
    ],
    [
      'SELECT to_char(ts, \'YYYY-MM-DD"T"HH24:MI:SS\') AS a',
      "SELECT strftime('%Y-%m-%dT%H:%M:%S', ts) AS a",
    ],
    [
      "SELECT date_trunc('week', ts), to_char(ts, 'Month') AS b, date_part('constructor', ts) AS c",
      "SELECT date_trunc('week', ts) AS \"date_trunc\", to_char(ts, 'Month') AS b, " +
        "date_part('constructor', ts) AS c",
    ],
    [
      "SELECT E'it\\'s\\n\\x41' AS a, $$a'b$$ AS b, $tag$ $$ ; $tag$ AS c",
      "SELECT 'it''s\nA' AS a, 'a''b' AS b, ' $$ ; ' AS c",
    ],
    ['SELECT [x] AS a, `y` AS b FROM [t]', 'SELECT "x" AS a, "y" AS b FROM "t"'],
    // a quoted name that is exactly an allowed function's is rewritten like the unquoted one
    [
      'SELECT "string_agg"(a, \',\') AS s, "greatest"(a, b) AS g, "date_trunc"(\'day\', ts) AS d',
      "SELECT group_concat(a, ',') AS s, max(a, b) AS g, strftime('%Y-%m-%dT00:00:00', ts) AS d",
    ],
    // a CTE that happens to be named like a rewritten function keeps its name
    [
      'WITH greatest(a) AS (SELECT 1), "least"(b) AS NOT MATERIALIZED (SELECT 2) SELECT 1 AS x',
      'WITH greatest(a) AS (SELECT 1), "least"(b) AS NOT MATERIALIZED (SELECT 2) SELECT 1 AS x',
    ],
    ["SELECT 1 AS a WHERE TRUE OR x->>'a'", "SELECT 1 AS a WHERE TRUE OR x->>'a'"],
  ]
  it.each(rewritten)('rewrites %s', (sql, expected) => {
    expect(inner(sql)).toBe(expected)
  })
})

describe('guardSql: result column names', () => {
  // PostgreSQL's names (as PostgreSQL 15 gives them) become aliases: [statement, SQLite's input]
  const named: [string, string][] = [
    ['SELECT count(*) FROM t', 'SELECT count(*) AS "count" FROM t'],
    [
      'SELECT COUNT(*), "count"(*), Upper(x) FROM t',
      'SELECT COUNT(*) AS "count", "count"(*) AS "count", Upper(x) AS "upper" FROM t',
    ],
    [
      'SELECT a, T.Book, "Book", t."B""k", public.t.c FROM t',
      'SELECT a AS "a", T.Book AS "book", "Book" AS "Book", t."B""k" AS "B""k", "t".c AS "c" ' +
        'FROM t',
    ],
    [
      "SELECT price::numeric, '1'::int, '1'::int::text, upper(x)::text, (a + b)::text, -x::int",
      'SELECT CAST(price AS NUMERIC) AS "price", CAST(\'1\' AS INTEGER) AS "int4", ' +
        'CAST(CAST(\'1\' AS INTEGER) AS TEXT) AS "text", CAST(upper(x) AS TEXT) AS "upper", ' +
        'CAST((a + b) AS TEXT) AS "text", -CAST(x AS INTEGER) AS "?column?"',
    ],
    [
      "SELECT 1::bigint, 1::smallint, 1::real, 1::float, 1::float(24), 1::float(25), 1::decimal",
      'SELECT CAST(1 AS INTEGER) AS "int8", CAST(1 AS INTEGER) AS "int2", ' +
        'CAST(1 AS REAL) AS "float4", CAST(1 AS REAL) AS "float8", CAST(1 AS REAL) AS "float4", ' +
        'CAST(1 AS REAL) AS "float8", CAST(1 AS NUMERIC) AS "numeric"',
    ],
    [
      "SELECT 'a'::char, 'a'::varchar(3), 'a'::character varying, 1::boolean, 1::double precision",
      'SELECT CAST(\'a\' AS TEXT) AS "bpchar", CAST(\'a\' AS TEXT) AS "varchar", ' +
        'CAST(\'a\' AS TEXT) AS "varchar", CAST(1 AS INTEGER) AS "bool", ' +
        'CAST(1 AS REAL) AS "float8"',
    ],
    [
      "SELECT 'x'::timestamp with time zone, 'x'::timestamp without time zone, 'x'::json",
      'SELECT CAST(\'x\' AS TEXT) AS "timestamptz", CAST(\'x\' AS TEXT) AS "timestamp", ' +
        'CAST(\'x\' AS TEXT) AS "json"',
    ],
    [
      "SELECT CAST(x AS text), CAST('1' AS int), CAST(x + 1 AS bigint), CAST(x AS varchar(3))",
      'SELECT CAST(x AS text) AS "x", CAST(\'1\' AS int) AS "int4", ' +
        'CAST(x + 1 AS bigint) AS "int8", CAST(x AS varchar(3)) AS "x"',
    ],
    [
      "SELECT string_agg(a, ','), greatest(a), extract(year FROM ts), trim(a), " +
        "trim(LEADING 'x' FROM a)",
      'SELECT group_concat(a, \',\') AS "string_agg", (a) AS "greatest", ' +
        'CAST(strftime(\'%Y\', ts) AS INTEGER) AS "extract", trim(a) AS "btrim", ' +
        'trim(LEADING \'x\' FROM a) AS "ltrim"',
    ],
    [
      'SELECT CASE WHEN a THEN 1 END, CASE WHEN a THEN 1 ELSE b END, CASE WHEN a THEN b ELSE 1 END',
      'SELECT CASE WHEN a THEN 1 END AS "case", CASE WHEN a THEN 1 ELSE b END AS "b", ' +
        'CASE WHEN a THEN b ELSE 1 END AS "case"',
    ],
    [
      "SELECT CASE a WHEN 1 THEN 2 ELSE '3'::int END, " +
        'CASE WHEN a THEN 1 ELSE CASE WHEN b THEN 2 ELSE upper(c) END END',
      "SELECT CASE a WHEN 1 THEN 2 ELSE CAST('3' AS INTEGER) END AS \"case\", " +
        'CASE WHEN a THEN 1 ELSE CASE WHEN b THEN 2 ELSE upper(c) END END AS "upper"',
    ],
    [
      'SELECT CASE WHEN a THEN 1 END::text, (CASE WHEN a THEN b ELSE c END)::int',
      'SELECT CAST(CASE WHEN a THEN 1 END AS TEXT) AS "text", ' +
        'CAST((CASE WHEN a THEN b ELSE c END) AS INTEGER) AS "c"',
    ],
    [
      'SELECT rank() OVER (ORDER BY a), count(*) FILTER (WHERE a > 1), row_number() OVER w ' +
        'FROM t WINDOW w AS (ORDER BY a)',
      'SELECT rank() OVER (ORDER BY a) AS "rank", count(*) FILTER (WHERE a > 1) AS "count", ' +
        'row_number() OVER w AS "row_number" FROM t WINDOW w AS (ORDER BY a)',
    ],
    [
      "SELECT 1, 'a', NULL, TRUE, -1, a + 1, a IS NULL, NOT a",
      'SELECT 1 AS "?column?", \'a\' AS "?column?", NULL AS "?column?", TRUE AS "?column?", ' +
        '-1 AS "?column?", a + 1 AS "?column?", a IS NULL AS "?column?", NOT a AS "?column?"',
    ],
    [
      'SELECT (SELECT count(*) FROM t), (SELECT max(a) m FROM t), (SELECT 1), (VALUES (1)), ' +
        'EXISTS (SELECT 1), ((a)), (SELECT 1)::text',
      'SELECT (SELECT count(*) FROM t) AS "count", (SELECT max(a) m FROM t) AS "m", ' +
        '(SELECT 1) AS "?column?", (VALUES (1)) AS "column1", EXISTS (SELECT 1) AS "exists", ' +
        '((a)) AS "a", CAST((SELECT 1) AS TEXT) AS "?column?"',
    ],
    [
      'SELECT a COLLATE nocase, a IS DISTINCT FROM b, c FROM t',
      'SELECT a COLLATE nocase AS "a", a IS DISTINCT FROM b AS "?column?", c AS "c" FROM t',
    ],
    ['SELECT "a""b" FROM t', 'SELECT "a""b" AS "a""b" FROM t'],
    // aliases are kept; an unquoted one is folded to lower case, as PostgreSQL does
    [
      'SELECT a AS x, b y, c "Z", count(*) n, d::int e, f::double precision FROM t',
      'SELECT a AS x, b y, c "Z", count(*) n, CAST(d AS INTEGER) e, CAST(f AS REAL) AS "f" FROM t',
    ],
    [
      'SELECT count(*) AS Total, a Small FROM t ORDER BY Total',
      'SELECT count(*) AS "total", a "small" FROM t ORDER BY Total',
    ],
    // `*` is never aliased
    ['SELECT *, t.*, count(*) OVER () FROM t', 'SELECT *, t.*, count(*) OVER () AS "count" FROM t'],
    [
      'SELECT DISTINCT a, upper(b) FROM t',
      'SELECT DISTINCT a AS "a", upper(b) AS "upper" FROM t',
    ],
    ['SELECT ALL upper(b) FROM t', 'SELECT ALL upper(b) AS "upper" FROM t'],
    // only the final SELECT of a CTE, the first arm of a compound; subqueries in FROM untouched
    [
      'WITH r AS (SELECT count(*) FROM t) SELECT max(n) FROM r',
      'WITH r AS (SELECT count(*) FROM t) SELECT max(n) AS "max" FROM r',
    ],
    [
      'SELECT count(*) FROM t UNION ALL SELECT sum(n) FROM u ORDER BY 1',
      'SELECT count(*) AS "count" FROM t UNION ALL SELECT sum(n) FROM u ORDER BY 1',
    ],
    ['(SELECT upper(a) FROM t)', '(SELECT upper(a) AS "upper" FROM t)'],
    [
      'SELECT n FROM (SELECT count(*) FROM t) s',
      'SELECT n AS "n" FROM (SELECT count(*) FROM t) s',
    ],
    ['SELECT * FROM (SELECT count(*) FROM t) s', 'SELECT * FROM (SELECT count(*) FROM t) s'],
    // SQLite names VALUES columns column1, column2 … as PostgreSQL does
    ['VALUES (1, 2), (3, 4)', 'VALUES (1, 2), (3, 4)'],
    ['WITH r AS (SELECT 1) VALUES (upper(a))', 'WITH r AS (SELECT 1) VALUES (upper(a))'],
    // an incomplete item is left alone, so its syntax error is reported where it was
    ['SELECT a, NOT FROM t', 'SELECT a AS "a", NOT FROM t'],
    ['SELECT CASE WHEN a THEN b FROM t', 'SELECT CASE WHEN a THEN b FROM t'],
  ]
  it.each(named)('names the columns of %s', (sql, expected) => {
    expect(inner(sql)).toBe(expected)
  })

  it('stays linear on nested CASE and subqueries', () => {
    // a quadratic walk would take seconds here
    const n = 5000
    const cases = `SELECT ${'CASE WHEN a THEN 1 ELSE '.repeat(n)}b${' END'.repeat(n)} FROM t`
    const casts = `SELECT ${'CASE WHEN a THEN '.repeat(n)}1${' END::int'.repeat(n)} FROM t`
    const subqueries = `SELECT ${'(SELECT '.repeat(900)}a${')'.repeat(900)} FROM t`
    const started = Date.now()
    // deeper than 100 levels PostgreSQL's name is not looked for
    expect(inner(cases).endsWith(' END AS "case" FROM t')).toBe(true)
    expect(inner(casts).endsWith(' END AS INTEGER) AS "int4" FROM t')).toBe(true)
    expect(inner(casts).split('CAST(').length).toBe(n + 1)
    expect(inner(subqueries).endsWith(') AS "?column?" FROM t')).toBe(true)
    expect(Date.now() - started).toBeLessThan(2000)
  })
})

describe('guardSql: refusals', () => {
  const SYSTEM = { kind: 'auth', message: 'Not authorized to access system tables' }
  const call = (name: string) => ({
    kind: 'auth',
    message: `Not authorized to call function ${name}`,
  })
  const query = (message: string) => ({ kind: 'query', message })
  const syntax = (message: string) => ({ kind: 'syntax', message })
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
    ['SELECT a FROM t WHERE end::int', query('syntax error at or near "::"')],
    ['SELECT a FROM t WHERE end END::int', query('syntax error at or near "::"')],
    ['SELECT x::constructor', query('type "constructor" does not exist')],
    ['SELECT ::int', query('syntax error at or near "::"')],
    // PostgreSQL reads a run of operator characters as one operator, which needs an operand
    ['SELECT ** FROM foobar', syntax('syntax error at or near "FROM"')],
    ['select a ** from t', syntax('syntax error at or near "from"')],
    ['SELECT count(**) FROM t', syntax('syntax error at or near ")"')],
    ['SELECT a +, b FROM t', syntax('syntax error at or near ","')],
    ['SELECT a FROM t WHERE a = ORDER BY a', syntax('syntax error at or near "ORDER"')],
    ['SELECT a *- FROM t', syntax('syntax error at or near "FROM"')],
    ['SELECT 1 +', syntax('syntax error at end of input')],
    ['SELECT 1 + ;', syntax('syntax error at or near ";"')],
    [`SELECT ${'('.repeat(1200)}1${')'.repeat(1200)}`, query('stack depth limit exceeded')],
    ["select load_extension('x')", call('load_extension')],
    ["SELECT LOAD_EXTENSION('x')", call('load_extension')],
    ['SELECT "load_extension"(\'x\')', call('load_extension')],
    ["SELECT [load_extension]('x')", call('load_extension')],
    ["SELECT load_extension /* */ ('x')", call('load_extension')],
    ['SELECT "COUNT"(*) FROM t', call('COUNT')],
    // PostgreSQL finds a quoted function name only with its exact case
    ['SELECT "Upper"(x) FROM t', call('Upper')],
    ['SELECT "String_Agg"(x, \',\') FROM t', call('String_Agg')],
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

  it('keeps operators that PostgreSQL reads as names or stars, and operators before operands', () => {
    const valid = [
      'SELECT * FROM t',
      'SELECT t.*, count(*) FROM t GROUP BY 1',
      'SELECT a FROM t ORDER BY a USING <',
      'SELECT a FROM t ORDER BY a USING >, b',
      'SELECT a * -b, a +-1, a ->> \'k\', a = ANY (b), - (a) FROM t',
      'SELECT a FROM t WHERE a = "from"',
      'SELECT a FROM t WHERE b = -- note\n 1',
    ]
    for (const sql of valid) expect(() => guardSql(sql, 1), sql).not.toThrow()
    // OPERATOR(…) names an operator; we refuse it as an unknown function, not as a syntax error
    expect(refusal('SELECT a OPERATOR(pg_catalog.+) 1 FROM t').kind).toBe('auth')
    expect(refusal('SELECT a + FROM t')).toEqual({
      kind: 'syntax',
      message: 'syntax error at or near "FROM"',
    })
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
