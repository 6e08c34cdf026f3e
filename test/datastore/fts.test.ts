// Full-text search: cell text, `q` → FTS5 MATCH translation, and ranking, run against a real
// contentless FTS5 table in libSQL laid out as the DataStore creates it.
import Database from 'libsql'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cellText,
  ftsQuery,
  type FtsQuery,
  LanguageError,
  rankSql,
  TsQueryError,
} from '../../src/datastore/fts'
import { tempDir } from '../helpers/temp-dirs'

const TABLE = '"res-1"'
const FTS = '"_fts_res-1"'
// title (c0), notes (c1), extra (c2)
const ROWS: [number, unknown, unknown, unknown][] = [
  [1, 'The Running Man', 'a film about a man who runs', 52.56],
  [2, 'Run Lola Run', 'German film', '2005-03-01T00:00:00'],
  [3, 'War and Peace', 'novel by Tolstoy', 1869],
  [4, 'Anna Karenina', 'another novel by Tolstoy', true],
  [5, 'Crème brûlée', 'a French dessert', null],
  [6, 'well-known facts', 'trivia', { tags: ['quiz', 'pub'] }],
  [7, 'Bank of America', 'a bank in the US', 'DE'],
  [8, 'America first bank', 'slogan', 'UK'],
  [9, 'Supernovae stars', 'astronomy', 'DE'],
  [10, 'naïve café', 'a place', 'FR'],
  [11, '52 and 56', 'two numbers', 56],
  [12, 'NEAR(a b) c0 : x', 'odd "quoted" text * and {c1}', 'injection'],
  [13, 'the and of', 'to be or not to be', 'stop'],
  [14, 'Kafka on the shore', 'novel, novel!', ['tag1', 'tag2']],
  [15, 'Runners', 'runner runner', 'marathon'],
]
const ALL = ROWS.map((r) => r[0])
const except = (...ids: number[]) => ALL.filter((id) => !ids.includes(id))

let dir: string
let db: Database.Database

beforeAll(() => {
  dir = tempDir('fts-')
  db = new Database(join(dir, 'ds.db'))
  db.exec(`CREATE TABLE ${TABLE} (_id INTEGER PRIMARY KEY AUTOINCREMENT, title, notes, extra)`)
  db.exec(`CREATE VIRTUAL TABLE ${FTS} USING fts5(c0, c1, c2, content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2')`)
  const row = db.prepare(`INSERT INTO ${TABLE} (_id, title, notes, extra) VALUES (?, ?, ?, ?)`)
  const fts = db.prepare(`INSERT INTO ${FTS} (rowid, c0, c1, c2) VALUES (?, ?, ?, ?)`)
  // the libsql driver aborts the process when given a JS boolean, so store what SQLite keeps
  const stored = (v: unknown) =>
    typeof v === 'boolean' ? Number(v) : typeof v === 'object' && v ? JSON.stringify(v) : v
  for (const [id, ...cells] of ROWS) {
    row.run(id, ...cells.map(stored))
    fts.run(id, ...cells.map(cellText))
  }
})

afterAll(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Row ids a translated query selects, the way datastore_search applies it. */
function rows(f: FtsQuery): number[] {
  if (f.match === null) return []
  const sql = f.negate
    ? `SELECT _id FROM ${TABLE} WHERE _id NOT IN (SELECT rowid FROM ${FTS} WHERE ${FTS} MATCH ?)`
    : `SELECT rowid AS _id FROM ${FTS} WHERE ${FTS} MATCH ?`
  const found = db.prepare(`${sql} ORDER BY 1`).all(f.match) as { _id: number }[]
  return found.map((r) => r._id)
}
const plain = (q: string, column?: number, language = 'english') =>
  ftsQuery(q, { plain: true, language, column })
const tsq = (q: string, column?: number, language = 'english') =>
  ftsQuery(q, { plain: false, language, column })

describe('cellText', () => {
  it('gives the text of each JSON output value', () => {
    expect(cellText('Crème brûlée')).toBe('Crème brûlée')
    expect(cellText(52.56)).toBe('52.56')
    expect(cellText(-3)).toBe('-3')
    expect(cellText(true)).toBe('true')
    expect(cellText(false)).toBe('false')
    expect(cellText({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}')
    expect(cellText(['p', 'q'])).toBe('["p","q"]')
    expect(cellText(null)).toBeNull()
    expect(cellText(undefined)).toBeNull()
  })

  it("indexes a timestamp's date and time as separate words", () => {
    expect(cellText('2005-03-01T00:00:00')).toBe('2005-03-01 00:00:00')
    expect(cellText('2005-03-01T10:20')).toBe('2005-03-01 10:20')
    expect(cellText('2005-03-01')).toBe('2005-03-01')
    expect(cellText('see 2005-03-01T00:00')).toBe('see 2005-03-01T00:00')
    expect(cellText('2005-03-01Tea')).toBe('2005-03-01Tea')
  })
})

describe('contentless FTS5 table with contentless_delete=1 (libSQL)', () => {
  const tmp = '"_fts_tmp"'
  beforeAll(() => {
    db.exec(`CREATE VIRTUAL TABLE ${tmp} USING fts5(c0, content='', contentless_delete=1,
      tokenize='porter unicode61 remove_diacritics 2')`)
  })
  const match = (q: string) =>
    (db.prepare(`SELECT rowid FROM ${tmp} WHERE ${tmp} MATCH ?`).all(q) as { rowid: number }[])
      .map((r) => r.rowid)
      .sort()

  it('deletes by rowid, and a row inserted again is indexed afresh', () => {
    db.prepare(`INSERT INTO ${tmp} (rowid, c0) VALUES (?, ?)`).run(1, 'alpha beta')
    db.prepare(`DELETE FROM ${tmp} WHERE rowid = ?`).run(1)
    expect(match('"alpha"')).toEqual([])
    db.prepare(`INSERT INTO ${tmp} (rowid, c0) VALUES (?, ?)`).run(1, 'gamma')
    expect(match('"gamma"')).toEqual([1])
    expect(match('"beta"')).toEqual([])
  })

  it('keeps the old words when a rowid is inserted twice without a DELETE (writers must delete)', () => {
    db.prepare(`INSERT INTO ${tmp} (rowid, c0) VALUES (?, ?)`).run(2, 'delta')
    db.prepare(`INSERT INTO ${tmp} (rowid, c0) VALUES (?, ?)`).run(2, 'epsilon')
    expect(match('"delta"')).toEqual([2])
    expect(match('"epsilon"')).toEqual([2])
  })

  it('replaces the words with INSERT OR REPLACE', () => {
    db.prepare(`INSERT INTO ${tmp} (rowid, c0) VALUES (?, ?)`).run(3, 'zeta')
    db.prepare(`INSERT OR REPLACE INTO ${tmp} (rowid, c0) VALUES (?, ?)`).run(3, 'theta')
    expect(match('"zeta"')).toEqual([])
    expect(match('"theta"')).toEqual([3])
  })

  it('stores no text: columns read back as NULL', () => {
    const row = db.prepare(`SELECT c0 FROM ${FTS} WHERE rowid = 1`).get() as { c0: unknown }
    expect(row.c0).toBeNull()
  })
})

describe('ftsQuery, plain (plainto_tsquery)', () => {
  it('ANDs the words as quoted FTS5 strings and drops English stop words', () => {
    expect(plain('The Running Man')).toEqual({ match: '("Running" AND "Man")' })
    expect(rows(plain('The Running Man'))).toEqual([1])
    expect(rows(plain('Tolstoy novel'))).toEqual([3, 4])
  })

  it('matches nothing when only stop words are left, or nothing at all', () => {
    expect(plain('the and of')).toEqual({ match: null })
    expect(plain('To be, or NOT to be?')).toEqual({ match: null })
    expect(plain('')).toEqual({ match: null })
    expect(plain(' -- ')).toEqual({ match: null })
  })

  it('stems English words', () => {
    expect(rows(plain('running'))).toEqual([1, 2])
    expect(rows(plain('runs'))).toEqual([1, 2])
    expect(rows(plain('star'))).toEqual([9])
  })

  it('ignores case and diacritics', () => {
    expect(rows(plain('creme BRULEE'))).toEqual([5])
    expect(rows(plain('NAIVE cafe'))).toEqual([10])
    expect(rows(plain('café'))).toEqual([10])
    expect(rows(plain('cafe\u0301 nai\u0308ve'))).toEqual([10])
    expect(rows(plain('de'))).toEqual([7, 9])
  })

  it('keeps numbers, dates and hyphenated words together as phrases', () => {
    expect(plain('well-known 52.56 2005-03-01')).toEqual({
      match: '("well" + "known" AND "52" + "56" AND "2005" + "03" + "01")',
    })
    expect(rows(plain('52.56'))).toEqual([1])
    expect(rows(plain('56'))).toEqual([1, 11])
    expect(rows(plain('2005-03-01'))).toEqual([2])
    expect(rows(plain('2005'))).toEqual([2])
    expect(rows(plain('well-known'))).toEqual([6])
    expect(rows(plain('known'))).toEqual([6])
    expect(rows(plain('state-of-the-art'))).toEqual([])
  })

  it('finds booleans and the keys and values of JSON cells', () => {
    expect(rows(plain('true'))).toEqual([4])
    expect(rows(plain('quiz'))).toEqual([6])
    expect(rows(plain('tags'))).toEqual([6])
    expect(rows(plain('tag2'))).toEqual([14])
  })

  it('treats tsquery operators as punctuation', () => {
    expect(plain('tolstoy & !anna')).toEqual({ match: '("tolstoy" AND "anna")' })
    expect(rows(plain('tolstoy | war'))).toEqual([3])
  })
})

describe('ftsQuery, plain=false (to_tsquery)', () => {
  it('translates & | and parentheses', () => {
    expect(tsq('DE | UK')).toEqual({ match: '("DE" OR "UK")' })
    expect(rows(tsq('DE | UK'))).toEqual([7, 8, 9])
    expect(rows(tsq('tolstoy & anna'))).toEqual([4])
    expect(tsq('(war | anna) & tolstoy')).toEqual({ match: '(("war" OR "anna") AND "tolstoy")' })
    expect(rows(tsq('(war | anna) & tolstoy'))).toEqual([3, 4])
    expect(rows(tsq('war | anna & tolstoy | kafka'))).toEqual([3, 4, 14])
  })

  it('turns a & !b into FTS5 a NOT b', () => {
    expect(tsq('novel & !tolstoy')).toEqual({ match: '("novel" NOT "tolstoy")' })
    expect(rows(tsq('novel & !tolstoy'))).toEqual([14])
    expect(rows(tsq('!tolstoy & novel'))).toEqual([14])
  })

  it('negates a query that is true for rows without any of its words', () => {
    expect(tsq('!tolstoy')).toEqual({ match: '"tolstoy"', negate: true })
    expect(rows(tsq('!tolstoy'))).toEqual(except(3, 4))
    expect(tsq('!tolstoy & !film')).toEqual({ match: '("tolstoy" OR "film")', negate: true })
    expect(rows(tsq('!tolstoy & !film'))).toEqual(except(1, 2, 3, 4))
    expect(rows(tsq('!(bank & america)'))).toEqual(except(7, 8))
    expect(rows(tsq('!!tolstoy'))).toEqual([3, 4])
  })

  it('keeps or-with-not exact by negating the complement', () => {
    expect(tsq('film | !tolstoy')).toEqual({ match: '("tolstoy" NOT "film")', negate: true })
    expect(rows(tsq('film | !tolstoy'))).toEqual(except(3, 4))
    expect(rows(tsq('(anna | !tolstoy) & !film'))).toEqual(except(1, 2, 3))
  })

  it('supports prefixes with :*', () => {
    expect(tsq('supern:*')).toEqual({ match: '"supern"*' })
    expect(rows(tsq('supern:*'))).toEqual([9])
    expect(rows(tsq('kaf:* | astro:*'))).toEqual([9, 14])
    expect(rows(tsq('runn:*'))).toEqual([15])
  })

  it('turns <-> into an FTS5 phrase', () => {
    expect(tsq('bank <-> of <-> america')).toEqual({ match: '"bank" + "of" + "america"' })
    expect(rows(tsq('bank <-> of <-> america'))).toEqual([7])
    expect(rows(tsq('bank <-> america'))).toEqual([])
    expect(rows(tsq('america <-> first'))).toEqual([8])
    expect(rows(tsq('war<->and<->peace'))).toEqual([3])
    expect(rows(tsq('(lola | war) <-> run'))).toEqual([2])
    expect(rows(tsq('!german <-> film'))).toEqual([1])
  })

  it('turns <N> into NEAR, which also accepts the reverse order', () => {
    expect(tsq('america <2> bank')).toEqual({ match: 'NEAR("america" "bank", 1)' })
    expect(rows(tsq('america <2> bank'))).toEqual([7, 8])
    expect(rows(tsq('kafka <3> shore'))).toEqual([14])
  })

  it('drops stop words with their operator', () => {
    expect(tsq('the & tolstoy')).toEqual({ match: '"tolstoy"' })
    expect(tsq('the')).toEqual({ match: null })
    expect(tsq('!the')).toEqual({ match: null })
    expect(tsq('on <-> the <-> shore')).toEqual({ match: '"shore"' })
    expect(rows(tsq('kafka <-> on <-> the <-> shore'))).toEqual([14])
  })

  it('reads quoted operands, escapes and weights as PostgreSQL does', () => {
    expect(tsq("'supernovae stars' & !crab")).toEqual({
      match: '("supernovae" + "stars" NOT "crab")',
    })
    expect(rows(tsq("'Bank of America'"))).toEqual([7])
    expect(rows(tsq('tolstoy:AB & anna:*d'))).toEqual([4])
    expect(tsq('bank\\&america')).toEqual({ match: '"bank" + "america"' })
    expect(tsq(`'kafka''s\\' shore'`)).toEqual({ match: '"kafka" + "s" + "shore"' })
    expect(tsq(`'a''' & kafka`)).toEqual({ match: '"kafka"' })
  })

  it('matches nothing for a blank query', () => {
    expect(tsq('')).toEqual({ match: null })
    expect(tsq(' \t ')).toEqual({ match: null })
  })
})

describe('ftsQuery errors', () => {
  const syntax = (q: string) => `syntax error in tsquery: "${q}"`
  const noOperand = (q: string) => `no operand in tsquery: "${q}"`
  it.each([
    ['fat & | cat', syntax('fat & | cat')],
    ['fat cat', syntax('fat cat')],
    ['(fat', syntax('(fat')],
    ['fat)', syntax('fat)')],
    ['()', syntax('()')],
    [':fat', syntax(':fat')],
    ['&fat', syntax('&fat')],
    ['fat !cat', syntax('fat !cat')],
    ['fat <- cat', syntax('fat <- cat')],
    ['fat <1 > cat', syntax('fat <1 > cat')],
    ['fat <->', syntax('fat <->')],
    ["''", syntax("''")],
    ["'fat", syntax("'fat")],
    ['NEAR(fat cat)', syntax('NEAR(fat cat)')],
    ['c0 : fat', syntax('c0 : fat')],
    ['fat &', noOperand('fat &')],
    ['!', noOperand('!')],
    ['fat & (', noOperand('fat & (')],
    ['fat\\', 'there is no escaped character: "fat\\"'],
    [`'fat\\`, `there is no escaped character: "'fat\\"`],
    [`'fat''`, syntax(`'fat''`)],
    [
      'fat <16385> cat',
      'distance in phrase operator must be an integer value between zero and 16384 inclusive',
    ],
  ])('rejects %j', (q, message) => {
    expect(() => tsq(q)).toThrow(TsQueryError)
    expect(() => tsq(q)).toThrow(new TsQueryError(message))
  })

  it('accepts the largest phrase distance', () => {
    expect(tsq('fat <16384> cat')).toEqual({ match: 'NEAR("fat" "cat", 16383)' })
  })

  it('refuses unknown languages with the PostgreSQL message', () => {
    const err = () => plain('tolstoy', undefined, 'klingon')
    expect(err).toThrow(LanguageError)
    expect(err).toThrow(TsQueryError)
    expect(err).toThrow('text search configuration "klingon" does not exist')
    expect(() => tsq('x', undefined, 'French')).toThrow(
      'text search configuration "french" does not exist',
    )
  })

  it('refuses queries too large to translate', () => {
    const big = Array.from({ length: 1001 }, (_, i) => `w${i}`).join(' | ')
    expect(() => tsq(big)).toThrow(new TsQueryError('tsquery is too large'))
    const deep = `${'('.repeat(101)}fat${')'.repeat(101)}`
    expect(() => tsq(deep)).toThrow(new TsQueryError('tsquery is too large'))
    // FTS5's own parser gives up on deep right-nesting, so that is refused before it gets there
    const nest = (n: number) =>
      Array.from({ length: n }, (_, i) => `w${i}`).reduce(
        (q, w, i) => `(${w} ${i % 2 ? '&' : '|'} ${q})`,
      )
    expect(rows(tsq(nest(30)))).toEqual([])
    expect(() => tsq(nest(32))).toThrow(new TsQueryError('tsquery is too large'))
    const spread = Array.from({ length: 12 }, (_, i) => `(a${i} | b${i})`).join(' <-> ')
    expect(() => tsq(spread)).toThrow(new TsQueryError('tsquery is too large'))
  })

  it('flattens long & | ! lists, which FTS5 would refuse as nested expressions', () => {
    const words = Array.from({ length: 900 }, (_, i) => `w${i}`)
    expect(rows(tsq([...words, 'kafka'].join(' | ')))).toEqual([14])
    expect(rows(tsq(['novel', ...words.map((w) => `!${w}`)].join(' & ')))).toEqual([3, 4, 14])
    expect(tsq('novel & !w1 & !w2')).toEqual({ match: '("novel" NOT ("w1" OR "w2"))' })
  })

  it('rejects a bad column index', () => {
    expect(() => plain('x', -1)).toThrow(RangeError)
    expect(() => plain('x', 1.5)).toThrow(RangeError)
  })
})

describe('ftsQuery languages and columns', () => {
  it("accepts 'english' in any case and 'simple', which keeps stop words", () => {
    expect(plain('the tolstoy', undefined, 'English')).toEqual({ match: '"tolstoy"' })
    expect(plain('the tolstoy', undefined, '')).toEqual({ match: '"tolstoy"' })
    expect(plain('the kafka', undefined, 'simple')).toEqual({ match: '("the" AND "kafka")' })
    expect(rows(plain('to be or not to be', undefined, 'simple'))).toEqual([13])
    expect(rows(tsq('the & kafka', undefined, 'simple'))).toEqual([14])
  })

  it('restricts the match to one column with an FTS5 column filter', () => {
    expect(plain('tolstoy', 1)).toEqual({ match: '{c1} : ("tolstoy")' })
    expect(rows(plain('tolstoy', 1))).toEqual([3, 4])
    expect(rows(plain('tolstoy', 0))).toEqual([])
    expect(rows(plain('DE', 2))).toEqual([7, 9])
    expect(rows(tsq('novel & !tolstoy', 1))).toEqual([14])
    expect(rows(tsq('bank <-> of <-> america', 0))).toEqual([7])
    expect(rows(tsq('america <2> bank', 0))).toEqual([7, 8])
  })

  it('negates within the column', () => {
    expect(tsq('!novel', 1)).toEqual({ match: '{c1} : ("novel")', negate: true })
    expect(rows(tsq('!novel', 1))).toEqual(except(3, 4, 14))
    expect(rows(tsq('!kafka', 1))).toEqual(ALL)
  })
})

describe('ftsQuery keeps user text inside FTS5 strings', () => {
  // What is left of a MATCH expression once its strings are blanked out: only our own syntax.
  const skeleton = (match: string) => match.replace(/"(?:[^"]|"")*"/g, 'S')
  const OURS = /^(?:S|\*| \+ | AND | OR | NOT |\(|\)|NEAR\(|, \d+|\{c\d+\} : | )*$/

  it.each([
    ['") OR 1=1 --', [] as number[]],
    ['NEAR(a b)', [12]],
    ['c0 : x', [12]],
    ['{c1}', [12]],
    ['"quoted"', [12]],
    ['*', []],
    ['"', []],
    ['- c0 : x', [12]],
    ["'; DROP TABLE t; --", []],
    ['x OR y AND NOT z', []],
    ['^odd', [12]],
  ])('plain q %j', (q, expected) => {
    const f = plain(q)
    expect(rows(f)).toEqual(expected)
    if (f.match) expect(skeleton(f.match)).toMatch(OURS)
  })

  it.each([
    ["'NEAR(a b)'", [12]],
    ["'c0 : x' & odd", [12]],
    ['\'"quoted"\' | kafka', [12, 14]],
  ])('to_tsquery q %j', (q, expected) => {
    const f = tsq(q as string)
    expect(rows(f)).toEqual(expected)
    expect(skeleton(f.match as string)).toMatch(OURS)
  })

  it('never produces an FTS5 syntax error for random input', () => {
    const words = ['novel', 'bank', 'tolstoy', 'the', 'c0', 'NEAR', 'NOT', 'OR', ' ', ' ', ' ']
    const tsquery = ['&', '|', '!', '(', ')', ':', '*', "'", '<->', '<2>', '<', '>', '\\']
    const fts5 = ['"', '-', '+', '^', '{', '}', ',', '.']
    const parts = [...words, ...words, ...tsquery, ...fts5]
    let seed = 42
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n)
    let translated = 0
    for (let n = 0; n < 600; n++) {
      const q = Array.from({ length: 1 + rand(8) }, () => parts[rand(parts.length)]).join('')
      for (const isPlain of [true, false]) {
        let f: FtsQuery
        try {
          f = ftsQuery(q, { plain: isPlain, language: 'english', column: rand(2) ? 1 : undefined })
        } catch (e) {
          expect(e, q).toBeInstanceOf(TsQueryError)
          continue
        }
        expect(() => rows(f), q).not.toThrow()
        if (f.match) translated++
      }
    }
    expect(translated).toBeGreaterThan(250)
  })

  it('matches exactly what random & | ! queries mean, NOT in any position', () => {
    const words = ['novel', 'tolstoy', 'bank', 'america', 'film', 'de', 'kafka', 'man']
    const has = new Map(words.map((w) => [w, new Set(rows(plain(w)))]))
    type Q = { text: string; holds: (id: number) => boolean }
    let seed = 7
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n)
    const gen = (depth: number): Q => {
      const pick = depth > 3 ? 0 : rand(5)
      if (pick <= 1) {
        const w = words[rand(words.length)] as string
        return { text: w, holds: (id) => has.get(w)?.has(id) ?? false }
      }
      if (pick === 2) {
        const a = gen(depth + 1)
        return { text: `!${a.text}`, holds: (id) => !a.holds(id) }
      }
      const [a, b] = [gen(depth + 1), gen(depth + 1)]
      return pick === 3
        ? { text: `(${a.text} & ${b.text})`, holds: (id) => a.holds(id) && b.holds(id) }
        : { text: `(${a.text} | ${b.text})`, holds: (id) => a.holds(id) || b.holds(id) }
    }
    for (let n = 0; n < 300; n++) {
      const q = gen(0)
      expect(rows(tsq(q.text)), q.text).toEqual(ALL.filter(q.holds))
    }
  })
})

describe('rankSql', () => {
  it('builds the mean of s/(s+1e-5) and s/(s+1) over bm25, with per-column weights when asked', () => {
    expect(rankSql(FTS, 3)).toBe(`((-bm25(${FTS}) / (0.00001 - bm25(${FTS})) - bm25(${FTS}) / (1.0 - bm25(${FTS}))) / 2.0)`)
    expect(rankSql(FTS, 3, 1)).toBe(`((-bm25(${FTS}, 0, 1, 0) / (0.00001 - bm25(${FTS}, 0, 1, 0)) - bm25(${FTS}, 0, 1, 0) / (1.0 - bm25(${FTS}, 0, 1, 0))) / 2.0)`)
  })

  it('accepts the FTS table under an alias, for a query that joins it more than once', () => {
    expect(rankSql(`f1.${FTS}`, 3, 0)).toBe(
      `((-bm25(f1.${FTS}, 1, 0, 0) / (0.00001 - bm25(f1.${FTS}, 1, 0, 0)) - bm25(f1.${FTS}, 1, 0, 0) / (1.0 - bm25(f1.${FTS}, 1, 0, 0))) / 2.0)`,
    )
    const sql = `SELECT t._id AS id, ${rankSql(`f1.${FTS}`, 3, 0)} AS r0,
        ${rankSql(`"f2".${FTS}`, 3, 1)} AS r1 FROM ${TABLE} t
      JOIN ${FTS} AS f1 ON f1.rowid = t._id JOIN ${FTS} AS "f2" ON "f2".rowid = t._id
      WHERE f1.${FTS} MATCH ? AND "f2".${FTS} MATCH ? ORDER BY t._id`
    const result = db.prepare(sql).all(plain('bank', 0).match, plain('bank', 1).match) as Record<
      string,
      number
    >[]
    expect(result.map((r) => r.id)).toEqual([7])
    expect(result[0]?.r0).toBeGreaterThan(0)
    expect(result[0]?.r1).toBeLessThan(1)
  })

  it('rejects an unquoted table name and bad column numbers', () => {
    expect(() => rankSql('_fts_x', 3)).toThrow('ftsTable must be quoted')
    expect(() => rankSql('"a" OR 1', 3)).toThrow('ftsTable must be quoted')
    expect(() => rankSql('f1 . "a"', 3)).toThrow('ftsTable must be quoted')
    expect(() => rankSql('"a"."b"."c"', 3)).toThrow('ftsTable must be quoted')
    expect(() => rankSql(FTS, 0)).toThrow('bad FTS column count: 0')
    expect(() => rankSql(FTS, 3, 3)).toThrow('bad FTS column index: 3')
    expect(() => rankSql(FTS, 3, -1)).toThrow('bad FTS column index: -1')
  })

  const ranked = (match: string, rank: string) =>
    db
      .prepare(
        `SELECT rowid AS id, ${rank} AS rank FROM ${FTS} WHERE ${FTS} MATCH ? ORDER BY rank DESC`,
      )
      .all(match) as { id: number; rank: number }[]

  it('ranks in (0, 1), better matches higher', () => {
    const result = ranked(plain('novel').match as string, rankSql(FTS, 3))
    expect(result.map((r) => r.id)).toEqual([14, 3, 4])
    for (const r of result) {
      expect(r.rank).toBeGreaterThan(0)
      expect(r.rank).toBeLessThan(1)
    }
    const runner = ranked(plain('runner').match as string, rankSql(FTS, 3))
    expect(runner.map((r) => r.id)).toEqual([15])
    expect(runner[0]?.rank).toBeGreaterThan(result[0]?.rank as number)
  })

  it('counts only the given column in a per-column rank', () => {
    const inNotes = ranked(plain('novel', 1).match as string, rankSql(FTS, 3, 1))
    expect(inNotes.map((r) => r.id)).toEqual([14, 3, 4])
    expect(inNotes.every((r) => r.rank > 0 && r.rank < 1)).toBe(true)
    const inTitles = ranked(plain('novel').match as string, rankSql(FTS, 3, 0))
    expect(inTitles.map((r) => r.rank)).toEqual([0, 0, 0])
  })
})
