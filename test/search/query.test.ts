// Unit tests for the q / fq parser: dismax and Lucene syntax into query plans, and its errors.
import { describe, expect, it } from 'vitest'
import {
  CKAN_MM,
  DEFAULT_FIELDS,
  hasLocalParams,
  localParamsMessage,
  minShouldMatch,
  parseDismax,
  parseFilter,
  parseLucene,
  parseQ,
  parseQf,
  QueryParseError,
  type QueryNode,
} from '../../src/search/query'

const now = new Date('2024-03-15T10:20:30.456Z')
const D = DEFAULT_FIELDS

// compact builders for expected trees
const term = (field: string, value: string, extra: object = {}): QueryNode =>
  ({ type: 'term', field, value, ...extra }) as QueryNode
const phrase = (field: string, value: string, extra: object = {}): QueryNode =>
  ({ type: 'phrase', field, value, ...extra }) as QueryNode
const range = (
  field: string,
  lower: string | null,
  upper: string | null,
  includeLower = true,
  includeUpper = true,
): QueryNode => ({ type: 'range', field, lower, upper, includeLower, includeUpper })
const bool = (
  c: { must?: QueryNode[]; should?: QueryNode[]; mustNot?: QueryNode[] },
  minShould: number,
  extra: object = {},
): QueryNode =>
  ({ type: 'bool', must: [], should: [], mustNot: [], ...c, minShould, ...extra }) as QueryNode
const T = (v: string) => term('text', v)
const dm = (c: Parameters<typeof bool>[0], minShould: number) => bool(c, minShould, { mm: CKAN_MM })

describe('parseQ mode selection', () => {
  it.each([[undefined], [null], [''], ['   '], ['""'], ["''"], ['*:*'], [' *:* ']])(
    'treats q=%j as all documents',
    (q) => {
      expect(parseQ(q)).toMatchObject({ mode: 'lucene', root: { type: 'all' } })
    },
  )

  it('uses dismax over CKAN qf when q has no colon', () => {
    expect(parseQ('water')).toEqual({
      mode: 'dismax',
      root: term(D, 'water'),
      defaultOperator: 'OR',
      qf: [
        { field: 'name', boost: 4 },
        { field: 'title', boost: 4 },
        { field: 'tags', boost: 2 },
        { field: 'groups', boost: 2 },
        { field: 'text', boost: 1 },
      ],
      tie: 0.1,
    })
  })

  it('uses Lucene syntax with default field text and operator AND when q has a colon', () => {
    expect(parseQ('tags:economy water')).toEqual({
      mode: 'lucene',
      root: bool({ must: [term('tags', 'economy'), T('water')] }, 0),
      defaultOperator: 'AND',
      qf: [],
      tie: 0.1,
    })
  })

  it('counts an escaped or quoted colon as field syntax (CKAN checks the raw string)', () => {
    expect(parseQ('"a:b"').mode).toBe('lucene')
    expect(parseQ('"a:b"').root).toEqual(phrase('text', 'a:b'))
  })

  it('honours defType=edismax with qf and mm', () => {
    const plan = parseQ('water tags:economy river', {
      defType: 'edismax',
      qf: 'title^2 notes',
      mm: '100%',
    })
    expect(plan.mode).toBe('edismax')
    expect(plan.qf).toEqual([
      { field: 'title', boost: 2 },
      { field: 'notes', boost: 1 },
    ])
    expect(plan.root).toEqual(
      bool({ should: [term(D, 'water'), term('tags', 'economy'), term(D, 'river')] }, 3, {
        mm: '100%',
      }),
    )
  })

  it('takes tie from the parameters', () => {
    expect(parseQ('water', { tie: '0.3' }).tie).toBe(0.3)
  })
})

describe('parseDismax', () => {
  const cases: [string, QueryNode][] = [
    ['water', term(D, 'water')],
    ['"river levels"', phrase(D, 'river levels')],
    ['water quality', dm({ should: [term(D, 'water'), term(D, 'quality')] }, 2)],
    ['a b c', dm({ should: ['a', 'b', 'c'].map((v) => term(D, v)) }, 2)],
    ['a b c d e', dm({ should: ['a', 'b', 'c', 'd', 'e'].map((v) => term(D, v)) }, 4)],
    ['a b c d e f', dm({ should: ['a', 'b', 'c', 'd', 'e', 'f'].map((v) => term(D, v)) }, 4)],
    [
      '"river levels" +flood -drought',
      dm(
        {
          must: [term(D, 'flood')],
          should: [phrase(D, 'river levels')],
          mustNot: [term(D, 'drought')],
        },
        1,
      ),
    ],
    ['+a +b', bool({ must: [term(D, 'a'), term(D, 'b')] }, 0)],
    ['-water', bool({ mustNot: [term(D, 'water')] }, 0)],
    // characters with Lucene meaning are plain text in dismax
    ['water*', term(D, 'water*')],
    [
      '(flood) [x] {y} ~z ^w ?',
      dm({ should: ['(flood)', '[x]', '{y}', '~z', '^w', '?'].map((v) => term(D, v)) }, 4),
    ],
    ['"unbalanced quote', dm({ should: [term(D, 'unbalanced'), term(D, 'quote')] }, 2)],
    ['rock & roll', dm({ should: [term(D, 'rock'), term(D, '&'), term(D, 'roll')] }, 2)],
    // dangling and doubled operators are dropped, as Solr's dismax does
    ['water -', term(D, 'water')],
    ['water +- river', dm({ should: [term(D, 'water'), term(D, 'river')] }, 2)],
    // uppercase AND / OR / NOT work as operators (edismax behaviour)
    ['water AND river', bool({ must: [term(D, 'water'), term(D, 'river')] }, 0)],
    ['water OR river', bool({ should: [term(D, 'water'), term(D, 'river')] }, 1)],
    ['water NOT river', dm({ should: [term(D, 'water')], mustNot: [term(D, 'river')] }, 1)],
    ['water && river', bool({ must: [term(D, 'water'), term(D, 'river')] }, 0)],
    ['rock and roll', dm({ should: ['rock', 'and', 'roll'].map((v) => term(D, v)) }, 2)],
    // a stray operator is read as a word instead of failing
    ['water AND', dm({ should: [term(D, 'water'), term(D, 'AND')] }, 2)],
    ['OR water', dm({ should: [term(D, 'OR'), term(D, 'water')] }, 2)],
    ['+', term(D, '+')],
    ['', { type: 'all' }],
  ]

  it.each(cases)('parses %j', (q, expected) => {
    expect(parseDismax(q)).toEqual(expected)
  })

  it('keeps slashes and colons-free punctuation literal', () => {
    expect(parseDismax('24/7 a\\b')).toEqual(dm({ should: [term(D, '24/7'), term(D, 'a\\b')] }, 2))
  })

  it('applies a caller mm', () => {
    expect(parseDismax('a b c', '1')).toEqual(
      bool({ should: ['a', 'b', 'c'].map((v) => term(D, v)) }, 1, { mm: '1' }),
    )
  })
})

describe('minShouldMatch', () => {
  it.each([
    [CKAN_MM, 1, 1],
    [CKAN_MM, 2, 2],
    [CKAN_MM, 3, 2],
    [CKAN_MM, 5, 4],
    [CKAN_MM, 6, 4],
    [CKAN_MM, 10, 8],
    ['2 < -1  5 < 80%', 4, 3],
    ['100%', 3, 3],
    ['75%', 3, 2],
    ['-25%', 4, 3],
    ['-1', 3, 2],
    ['2', 3, 2],
    ['5', 3, 3],
    ['-5', 3, 0],
    ['0', 3, 0],
  ])('mm %j with %i optional clauses requires %i', (spec, n, expected) => {
    expect(minShouldMatch(spec, n)).toBe(expected)
  })

  it.each([['abc'], ['x<1'], ['3<']])('rejects the spec %j', (spec) => {
    expect(() => minShouldMatch(spec, 3)).toThrow(QueryParseError)
  })
})

describe('parseFilter / parseLucene', () => {
  const cases: [string, QueryNode][] = [
    // all documents
    ['*:*', { type: 'all' }],
    ['', { type: 'all' }],
    // field terms
    ['tags:economy', term('tags', 'economy')],
    ['res_format:CSV', term('res_format', 'CSV')],
    ['name:my-dataset', term('name', 'my-dataset')],
    ['organization:org-a', term('organization', 'org-a')],
    ['title: water', term('title', 'water')],
    // field phrases
    ['title:"water quality"', phrase('title', 'water quality')],
    ['tags:"air quality"', phrase('tags', 'air quality')],
    // bare terms and phrases go to text
    ['water', T('water')],
    ['"river levels"', phrase('text', 'river levels')],
    ['water river', bool({ must: [T('water'), T('river')] }, 0)],
    // boolean operators
    ['a AND b', bool({ must: [T('a'), T('b')] }, 0)],
    ['a OR b', bool({ should: [T('a'), T('b')] }, 1)],
    ['NOT a', bool({ mustNot: [T('a')] }, 0)],
    ['a && b', bool({ must: [T('a'), T('b')] }, 0)],
    ['a || b', bool({ should: [T('a'), T('b')] }, 1)],
    ['!a', bool({ mustNot: [T('a')] }, 0)],
    ['a NOT b', bool({ must: [T('a')], mustNot: [T('b')] }, 0)],
    ['a AND NOT b', bool({ must: [T('a')], mustNot: [T('b')] }, 0)],
    ['a !b', bool({ must: [T('a')], mustNot: [T('b')] }, 0)],
    ['and or not', bool({ must: [T('and'), T('or'), T('not')] }, 0)],
    ['ANDROID ORACLE NOTES', bool({ must: [T('ANDROID'), T('ORACLE'), T('NOTES')] }, 0)],
    ['a&&b', T('a&&b')],
    // Lucene's clause rules: OR makes its left neighbour optional too
    ['a b OR c', bool({ must: [T('a')], should: [T('b'), T('c')] }, 0)],
    ['a AND b OR c', bool({ must: [T('a')], should: [T('b'), T('c')] }, 0)],
    ['a OR b AND c', bool({ must: [T('b'), T('c')], should: [T('a')] }, 0)],
    ['-a OR b', bool({ should: [T('b')], mustNot: [T('a')] }, 1)],
    // required / prohibited
    [
      '+tags:x -res_format:PDF',
      bool({ must: [term('tags', 'x')], mustNot: [term('res_format', 'PDF')] }, 0),
    ],
    ['-res_format:PDF', bool({ mustNot: [term('res_format', 'PDF')] }, 0)],
    ['+res_format:CSV', term('res_format', 'CSV')],
    // grouping
    ['tags:(a OR b)', bool({ should: [term('tags', 'a'), term('tags', 'b')] }, 1)],
    ['tags:(a b)', bool({ must: [term('tags', 'a'), term('tags', 'b')] }, 0)],
    ['tags:(a name:b)', bool({ must: [term('tags', 'a'), term('name', 'b')] }, 0)],
    ['(x OR y) AND z', bool({ must: [bool({ should: [T('x'), T('y')] }, 1), T('z')] }, 0)],
    ['((a))', T('a')],
    ['a (-b)', bool({ must: [T('a'), bool({ mustNot: [T('b')] }, 0)] }, 0)],
    ['id:("a" OR "b")', bool({ should: [phrase('id', 'a'), phrase('id', 'b')] }, 1)],
    // wildcards and existence
    ['name:water*', { type: 'prefix', field: 'name', value: 'water' }],
    ['title:rive?', { type: 'wildcard', field: 'title', pattern: 'rive?' }],
    ['title:*ater', { type: 'wildcard', field: 'title', pattern: '*ater' }],
    ['title:w*t?r', { type: 'wildcard', field: 'title', pattern: 'w*t?r' }],
    ['name:a\\*b*', { type: 'prefix', field: 'name', value: 'a*b' }],
    ['name:a\\?b?', { type: 'wildcard', field: 'name', pattern: 'a\\?b?' }],
    ['name:a\\-b*', { type: 'prefix', field: 'name', value: 'a-b' }],
    ['name:a\\*b', term('name', 'a*b')],
    ['title:*', { type: 'exists', field: 'title' }],
    ['*', { type: 'exists', field: 'text' }],
    ['title:[* TO *]', { type: 'exists', field: 'title' }],
    ['*:[* TO *]', { type: 'all' }],
    // ranges
    ['num_resources:[1 TO *]', range('num_resources', '1', null)],
    ['num_resources:[* TO 5]', range('num_resources', null, '5')],
    ['name:{a TO b}', range('name', 'a', 'b', false, false)],
    ['name:[a TO b}', range('name', 'a', 'b', true, false)],
    ['name:{a TO b]', range('name', 'a', 'b', false, true)],
    ['name:["a b" TO "*"]', range('name', 'a b', '*')],
    ['name:[ a  TO  b ]', range('name', 'a', 'b')],
    ['name:[TO TO z]', range('name', 'TO', 'z')],
    ['[a TO b]', range('text', 'a', 'b')],
    // date fields: date math and instants resolved against NOW
    [
      'metadata_modified:[2020-01-01T00:00:00Z TO NOW]',
      range('metadata_modified', '2020-01-01T00:00:00.000Z', '2024-03-15T10:20:30.456Z'),
    ],
    [
      'metadata_modified:[NOW-1DAY TO *]',
      range('metadata_modified', '2024-03-14T10:20:30.456Z', null),
    ],
    [
      'metadata_modified:[NOW-7DAYS TO NOW/DAY]',
      range('metadata_modified', '2024-03-08T10:20:30.456Z', '2024-03-15T00:00:00.000Z'),
    ],
    [
      'metadata_created:{NOW-1YEAR/DAY TO NOW-6MONTHS]',
      range(
        'metadata_created',
        '2023-03-15T00:00:00.000Z',
        '2023-09-15T10:20:30.456Z',
        false,
        true,
      ),
    ],
    [
      'metadata_created:[* TO 2020-01-01T00:00:00.123456Z]',
      range('metadata_created', null, '2020-01-01T00:00:00.123Z'),
    ],
    [
      'metadata_modified:[NOW/DAY+1DAY TO "NOW+2DAYS"]',
      range('metadata_modified', '2024-03-16T00:00:00.000Z', '2024-03-17T10:20:30.456Z'),
    ],
    [
      'metadata_modified:"NOW/DAY"',
      range('metadata_modified', '2024-03-15T00:00:00.000Z', '2024-03-15T00:00:00.000Z'),
    ],
    [
      'metadata_modified:"2020-01-01T00:00:00Z"',
      range('metadata_modified', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z'),
    ],
    [
      'release_date:[2020-01-01T00:00:00Z TO *]',
      range('release_date', '2020-01-01T00:00:00.000Z', null),
    ],
    ['extras_release_date:[a TO b]', range('extras_release_date', 'a', 'b')],
    ['metadata_modified:*', { type: 'exists', field: 'metadata_modified' }],
    // boosts, fuzzy, proximity
    ['a^2', term('text', 'a', { boost: 2 })],
    ['a^0.5 b', bool({ must: [term('text', 'a', { boost: 0.5 }), T('b')] }, 0)],
    ['title:"a b"^3', phrase('title', 'a b', { boost: 3 })],
    ['(a b)^2', bool({ must: [T('a'), T('b')] }, 0, { boost: 2 })],
    ['title:(a)^2', term('title', 'a', { boost: 2 })],
    ['name:[a TO b]^4', { ...range('name', 'a', 'b'), boost: 4 } as QueryNode],
    ['roam~', term('text', 'roam', { fuzzy: 2 })],
    ['roam~1', term('text', 'roam', { fuzzy: 1 })],
    ['roam~0.8', term('text', 'roam', { fuzzy: 0 })],
    ['roaming~0.5', term('text', 'roaming', { fuzzy: 2 })],
    ['roam~1^2', term('text', 'roam', { fuzzy: 1, boost: 2 })],
    ['roam^2~1', term('text', 'roam', { fuzzy: 1, boost: 2 })],
    ['"a b"~3', phrase('text', 'a b', { slop: 3 })],
    ['"a b"~', phrase('text', 'a b')],
    ['"a b"~2^3', phrase('text', 'a b', { slop: 2, boost: 3 })],
    // regular expressions
    ['title:/wat.r/', { type: 'regexp', field: 'title', pattern: 'wat.r' }],
    ['name:/a\\/b/', { type: 'regexp', field: 'name', pattern: 'a/b' }],
    // escaping
    ['name:foo\\-bar', term('name', 'foo-bar')],
    ['url:http\\:\\/\\/x.org\\/a', term('url', 'http://x.org/a')],
    ['title:\\(a\\)\\[b\\]\\{c\\}', term('title', '(a)[b]{c}')],
    [
      'a\\+b \\!c \\^d \\"e\\" f\\~ g\\?',
      bool({ must: ['a+b', '!c', '^d', '"e"', 'f~', 'g?'].map(T) }, 0),
    ],
    ['a\\&\\&b c\\|\\|d \\\\', bool({ must: ['a&&b', 'c||d', '\\'].map(T) }, 0)],
    ['\\AND', T('AND')],
    ['field:\\u0041b', term('field', 'Ab')],
    ['my\\ field:x', term('my field', 'x')],
    ['title:"say \\"hi\\""', phrase('title', 'say "hi"')],
    ['a - b', bool({ must: [T('a'), T('-'), T('b')] }, 0)],
    // frequently used filter forms
    ['organization:org-a', term('organization', 'org-a')],
    [
      '+owner_org:"0b7c3f7e-1f2a-4c3d-9e8f-000000000001"',
      phrase('owner_org', '0b7c3f7e-1f2a-4c3d-9e8f-000000000001'),
    ],
    ['owner_org:0b7c3f7e', term('owner_org', '0b7c3f7e')],
    ['groups:group-a', term('groups', 'group-a')],
    ['license_id:cc-by', term('license_id', 'cc-by')],
    ['capacity:public', term('capacity', 'public')],
    ['dataset_type:dataset', term('dataset_type', 'dataset')],
    ['type:dataset', term('type', 'dataset')],
    ['id:8b8e1ad5-1f8d-4c2e-a1a0-2c2b9d55e7a1', term('id', '8b8e1ad5-1f8d-4c2e-a1a0-2c2b9d55e7a1')],
    ['creator_user_id:abc', term('creator_user_id', 'abc')],
    ['+state:draft', term('state', 'draft')],
    [
      '+state:(active OR draft)',
      bool({ should: [term('state', 'active'), term('state', 'draft')] }, 1),
    ],
    ['extras_theme:water', term('extras_theme', 'water')],
    ['theme:water', term('theme', 'water')],
    ['vocab_genre:fiction', term('vocab_genre', 'fiction')],
    ['private:true', term('private', 'true')],
    ['site_id:default', term('site_id', 'default')],
    ['no_such_field:x', term('no_such_field', 'x')],
  ]

  it.each(cases)('parses %j', (fq, expected) => {
    expect(parseFilter(fq, { now }).root).toEqual(expected)
  })

  it('returns a lucene plan with operator AND', () => {
    expect(parseFilter('tags:a', { now })).toEqual({
      mode: 'lucene',
      root: term('tags', 'a'),
      defaultOperator: 'AND',
      qf: [],
      tie: 0,
    })
  })

  it('lets the caller say which fields hold dates', () => {
    const isDateField = (f: string) => f === 'when'
    expect(parseLucene('when:"NOW/DAY"', { now, isDateField })).toEqual(
      range('when', '2024-03-15T00:00:00.000Z', '2024-03-15T00:00:00.000Z'),
    )
    expect(parseLucene('metadata_modified:NOW', { now, isDateField })).toEqual(
      term('metadata_modified', 'NOW'),
    )
  })

  it('produces a plain JSON tree', () => {
    const node = parseFilter('+tags:(a OR b) -res_format:PDF title:"x y"~2^3 num:[1 TO *]', {
      now,
    }).root
    expect(JSON.parse(JSON.stringify(node))).toEqual(node)
  })

  const errors: [string, string][] = [
    ['title:(water', `Cannot parse 'title:(water': Encountered "<EOF>" at line 1, column 13.`],
    ['(a', `Encountered "<EOF>"`],
    ['a)', `Encountered ")" at line 1, column 2.`],
    ['()', `Encountered ")"`],
    ['a AND', `Encountered "<EOF>"`],
    ['AND a', `Encountered "AND"`],
    ['a AND OR b', `Encountered "OR" at line 1, column 7.`],
    ['a OR', `Encountered "<EOF>"`],
    ['NOT', `Encountered "<EOF>"`],
    ['+-a', `Encountered "-" at line 1, column 2.`],
    ['a -', `Encountered "<EOF>"`],
    ['a:b:c', `Encountered ":" at line 1, column 4.`],
    [':a', `Encountered ":"`],
    ['url:http://x.org', `Encountered ":" at line 1, column 9.`],
    ['res_url:http\\://x.org/a', `Lexical error`],
    ['metadata_modified:NOW/DAY', `Lexical error`],
    ['metadata_created:2020-01-01T00:00:00Z', `Invalid Date String:'2020-01-01T00'`],
    ['x:-1', `Encountered "-" at line 1, column 3.`],
    ['na*me:x', `Encountered ":"`],
    ['title:"water', `Lexical error at line 1, column 13. Encountered: <EOF> after: ""water"`],
    ['title:/wat', `Lexical error`],
    ['foo\\', `Term can not end with escape character.`],
    ['x:[a b]', `Expected "TO" in range`],
    ['x:[a TO b', `Encountered: "<EOF>" in range`],
    ['x:[a TO]', `Encountered: "]" in range`],
    ['x:[a TOb]', `Expected "TO" in range`],
    ['x:]', `Encountered "]"`],
    ['x:}', `Encountered "}"`],
    ['a^', `Encountered "^"`],
    ['a^b', `Encountered "^"`],
    ['~a', `Encountered "~"`],
    ['a \\u00zz', `Truncated unicode escape sequence.`],
    ['metadata_modified:foo', `Invalid Date String:'foo'`],
    ['metadata_modified:[NOW-1FORTNIGHT TO NOW]', `Invalid Date Math String:'NOW-1FORTNIGHT'`],
    ['metadata_modified:[2020-01-01 TO junk]', `Invalid Date String:'junk'`],
    [
      'metadata_modified:2020*',
      `wildcard queries are not supported on date field 'metadata_modified'`,
    ],
    ['metadata_modified:/20.*/', `regular expression queries are not supported`],
  ]

  it.each(errors)('rejects %j', (fq, message) => {
    expect(() => parseFilter(fq, { now })).toThrow(QueryParseError)
    expect(() => parseFilter(fq, { now })).toThrow(message)
  })

  it('rejects Lucene syntax errors in q too', () => {
    expect(() => parseQ('title:(water', { now })).toThrow(QueryParseError)
  })
})

describe('parseQf', () => {
  it('reads fields with optional boosts', () => {
    expect(parseQf(' name^4  text title^x ')).toEqual([
      { field: 'name', boost: 4 },
      { field: 'text', boost: 1 },
      { field: 'title', boost: 1 },
    ])
  })
})

describe('local parameters', () => {
  it.each([
    ['{!bool must=test}', true],
    [' {!lucene}title:x', true],
    ['name:test OR {!bool must=test}', true],
    ['\\{!x}', true],
    ['name:{a TO b}', false],
    ['water!', false],
  ])('detects local params in %j: %s', (value, expected) => {
    expect(hasLocalParams(value)).toBe(expected)
  })

  it('words the refusal like CKAN', () => {
    expect(localParamsMessage('fq_list')).toBe(
      "Local parameters are not supported in param 'fq_list'.",
    )
  })
})
