// DataStore full-text search: the text a cell contributes to a table's FTS5 index, and CKAN's `q`
// (PostgreSQL plainto_tsquery / to_tsquery syntax) translated into an FTS5 MATCH expression.
//
// Everything taken from the user reaches FTS5 only as a double-quoted string of one token, so no
// FTS5 operator, column filter or NEAR group can be smuggled in through `q`. Deviations from
// PostgreSQL, all because the index is FTS5 'porter unicode61' over every token:
// - the index keeps stop words, so phrases keep inner stop words literally ("bank of america");
// - `language: 'simple'` drops no stop words but the index is still Porter-stemmed;
// - numbers split at '.' ("52.56" is the phrase "52" + "56"); weights (`word:A`) are ignored;
// - `a <N> b` with N ≠ 1 becomes NEAR(a b, N-1), which also accepts the reverse order.

/** Text of one output value for indexing (the JSON output value of a cell, see values.ts
 *  fromStored): strings as is, numbers String(v), booleans 'true'/'false', objects/arrays their
 *  JSON text, null → null. An ISO timestamp's 'T' becomes a space so its date parts stay tokens
 *  of their own ('2005-03-01T00:00:00' would otherwise index '01t00', not '01'). */
export function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v.replace(/^(\d{4}-\d\d-\d\d)T(?=\d\d:\d\d)/, '$1 ')
  if (typeof v === 'number' || typeof v === 'bigint') return String(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  return JSON.stringify(v)
}

/** A `q` PostgreSQL would reject; the message is PostgreSQL's (CKAN puts it under info.orig). */
export class TsQueryError extends Error {
  override name = 'TsQueryError'
}

/** An unknown `language`: PostgreSQL's `text search configuration "<x>" does not exist`. A
 *  TsQueryError too, because CKAN reports both the same way (409 Invalid query). */
export class LanguageError extends TsQueryError {
  override name = 'LanguageError'
}

export interface FtsQuery {
  /** FTS5 MATCH expression; null matches no row (PostgreSQL's empty query). */
  match: string | null
  /** true: the query matches the rows that `match` does NOT match (`rowid NOT IN (...)`). */
  negate?: boolean
}

// PostgreSQL's english.stop (the Snowball list).
const STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
  her hers herself it its itself they them their theirs themselves what which who whom this that
  these those am is are was were be been being have has had having do does did doing a an the and
  but if or because as until while of at by for with about against between into through during
  before after above below to from up down in out on off over under again further then once here
  there when where why how all any both each few more most other some such no nor not only own
  same so than too very s t can will just don should now`.split(/\s+/),
)

// unicode61's token characters (L* N* Co), plus combining marks inside a word: FTS5 re-tokenises
// each quoted string, so a character it treats as a separator only turns a token into a phrase.
const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu
// plain mode: tokens joined by one of these form one phrase (well-known, 52.56, 2005-03-01).
const JOINERS = new Set(['-', '.', "'", '’', '_', '/', ':', '@'])
const MAX_DISTANCE = 16384 // PostgreSQL's MAXENTRYPOS
const DISTANCE_ERROR =
  'distance in phrase operator must be an integer value between zero and 16384 inclusive'
/** The most words one datastore_search `q` (or one column's text of a dict `q`) may hold. */
export const MAX_QUERY_TERMS = 100
export const MAX_QUERY_CHARS = 10_000

/** Why `q` is too big for a full-text query (checked with the parameters), or undefined. */
export function queryTooBig(q: string): string | undefined {
  if (q.length > MAX_QUERY_CHARS) return `Must be a maximum of ${MAX_QUERY_CHARS} characters long`
  let n = 0
  for (const _ of q.matchAll(TOKEN)) if (++n > MAX_QUERY_TERMS) break
  return n > MAX_QUERY_TERMS ? `Must have at most ${MAX_QUERY_TERMS} search terms` : undefined
}

const MAX_TERMS = 1000 // bounds phrase distribution (exponential in nested ORs) and recursion
const MAX_NESTING = 100 // parentheses in q
// FTS5's parser stack overflows from 33 levels of right-nested parentheses (measured)
const MAX_FTS5_NESTING = 30

interface Item {
  tok: string
  prefix: boolean
  stop: boolean
  at: number // token position within its phrase
}
// Query tree. `chain` is a sequence of tokens at relative positions (a term or a phrase); `stop`
// is an operand without lexemes, which PostgreSQL removes together with its operator.
type Node =
  | { k: 'chain'; items: Item[] }
  | { k: 'stop' }
  | { k: 'not'; a: Node }
  | { k: 'and' | 'or'; a: Node; b: Node }
  | { k: 'phrase'; a: Node; b: Node; d: number }
const STOP: Node = { k: 'stop' }

/** Translates datastore_search `q` (see FtsQuery). `column`: 0-based FTS column to restrict the
 *  match to. Throws TsQueryError (syntax, PostgreSQL's messages) or LanguageError. */
export function ftsQuery(
  q: string,
  opts: { plain: boolean; language: string; column?: number },
): FtsQuery {
  const stops = stopWordsFor(opts.language)
  const column = opts.column
  if (column !== undefined && !(Number.isInteger(column) && column >= 0)) {
    throw new RangeError(`bad FTS column index: ${column}`)
  }
  const tree = opts.plain ? plainTree(q, stops) : parseTsQuery(q, stops)
  const budget = { left: MAX_TERMS }
  const cleaned = clean(expandPhrases(clean(tree, false), budget), true)
  if (cleaned.k === 'stop') return { match: null }
  const out = translate(cleaned)
  const expr = column === undefined ? render(out) : `{c${column}} : (${render(out)})`
  if (nesting(expr) > MAX_FTS5_NESTING) throw new TsQueryError('tsquery is too large')
  return out.zero ? { match: expr, negate: true } : { match: expr }
}

// "_fts_<id>", or f1."_fts_<id>" where the FTS table is joined under an alias
const QUALIFIED = /^(?:(?:"(?:[^"]|"")+"|[A-Za-z_]\w*)\.)?"(?:[^"]|"")+"$/

/** rank expression over bm25 for the output `rank` column, in [0, 1): with s = -bm25(...), the
 *  mean of s/(s+1e-5) and s/(s+1), which orders rows as bm25 does.
 *  For a per-column rank (`rank <col>`) pass the column index and the FTS column count: weights
 *  1 for it, 0 elsewhere. `ftsTable` is the quoted name, `"_fts_<id>"`, or `f1."_fts_<id>"` to
 *  use the FTS table joined as f1 (one MATCH per join); it must be MATCHed in the same SELECT.
 *  FTS5 floors a word's IDF at 1e-6 when it is in half the rows or more; s/(s+1) alone would
 *  then be about 1e-6 (printed 9.99999e-07 where ts_rank gives 0.06), so the first term keeps
 *  such ranks readable (0.05 for a one-word cell), under 0.5 and ordered; the second orders the
 *  rest. */
export function rankSql(ftsTable: string, columnCount: number, column?: number): string {
  if (!QUALIFIED.test(ftsTable)) throw new RangeError('ftsTable must be quoted')
  if (!Number.isInteger(columnCount) || columnCount < 1) {
    throw new RangeError(`bad FTS column count: ${columnCount}`)
  }
  let bm25 = `bm25(${ftsTable})`
  if (column !== undefined) {
    if (!Number.isInteger(column) || column < 0 || column >= columnCount) {
      throw new RangeError(`bad FTS column index: ${column}`)
    }
    const weights = Array.from({ length: columnCount }, (_, i) => (i === column ? '1' : '0'))
    bm25 = `bm25(${ftsTable}, ${weights.join(', ')})`
  }
  // bm25() is negative, larger magnitude = better; -b/(k-b) is s/(s+k) with s = -b.
  return `((-${bm25} / (0.00001 - ${bm25}) - ${bm25} / (1.0 - ${bm25})) / 2.0)`
}

function stopWordsFor(language: string): Set<string> {
  // ckan: an empty language falls back to the default; PostgreSQL folds the name's case.
  const name = (language || 'english').toLowerCase().replace(/^pg_catalog\./, '')
  if (name === 'english') return STOP_WORDS
  if (name === 'simple') return new Set()
  throw new LanguageError(`text search configuration "${name}" does not exist`)
}

function chain(tokens: string[], prefix: boolean, stops: Set<string>): Node {
  if (tokens.length === 0) return STOP
  const items = tokens.map((tok, at) => ({ tok, prefix, stop: stops.has(tok.toLowerCase()), at }))
  return { k: 'chain', items }
}

/** plainto_tsquery: every word AND-ed; operators are just punctuation. */
function plainTree(q: string, stops: Set<string>): Node {
  const groups: string[][] = []
  let lastEnd = -1
  for (const m of q.matchAll(TOKEN)) {
    const gap = lastEnd < 0 ? '' : q.slice(lastEnd, m.index)
    const group = groups[groups.length - 1]
    if (group && gap.length === 1 && JOINERS.has(gap)) group.push(m[0])
    else groups.push([m[0]])
    lastEnd = m.index + m[0].length
  }
  let tree = STOP
  for (const g of groups) {
    const node = chain(g, false, stops)
    tree = tree.k === 'stop' ? node : { k: 'and', a: tree, b: node }
  }
  return tree
}

type Token =
  | { t: 'val'; node: Node }
  | { t: 'not' | 'open' | 'close' }
  | { t: 'and' | 'or' }
  | { t: 'phrase'; d: number }

const PRECEDENCE = { or: 1, and: 2, phrase: 3 } as const // `!` binds tightest

/** to_tsquery: scans like PostgreSQL's gettoken_query (so the same inputs fail with the same
 *  messages), then builds the tree by precedence; binary operators are left-associative. */
function parseTsQuery(q: string, stops: Set<string>): Node {
  const tokens = scanTsQuery(q, stops)
  let i = 0
  const unary = (): Node => {
    const t = tokens[i++] as Token
    if (t.t === 'not') return { k: 'not', a: unary() }
    if (t.t === 'val') return t.node
    const inner = binary(1) // t is '(': the scanner has checked that its ')' follows
    i++
    return inner
  }
  const binary = (min: number): Node => {
    let left = unary()
    for (let op = tokens[i]; op; op = tokens[i]) {
      if (op.t !== 'and' && op.t !== 'or' && op.t !== 'phrase') break
      if (PRECEDENCE[op.t] < min) break
      i++
      const b = binary(PRECEDENCE[op.t] + 1)
      left = op.t === 'phrase' ? { k: 'phrase', a: left, b, d: op.d } : { k: op.t, a: left, b }
    }
    return left
  }
  return tokens.length > 0 ? binary(1) : STOP
}

function scanTsQuery(q: string, stops: Set<string>): Token[] {
  const syntax = () => new TsQueryError(`syntax error in tsquery: "${q}"`)
  const out: Token[] = []
  let i = 0
  let depth = 0
  let waitOperand = true
  while (true) {
    const c = q[i]
    if (c !== undefined && /\s/.test(c)) {
      i++
    } else if (out.length > 4 * MAX_TERMS || depth > MAX_NESTING) {
      throw new TsQueryError('tsquery is too large') // keeps the recursive steps below shallow
    } else if (waitOperand) {
      if (c === undefined) {
        if (out.length === 0) return out // blank: PostgreSQL's empty query
        throw new TsQueryError(`no operand in tsquery: "${q}"`)
      }
      if (c === ':') throw syntax()
      if (c === '!' || c === '(') {
        if (c === '(') depth++
        out.push({ t: c === '!' ? 'not' : 'open' })
        i++
        continue
      }
      const word = readOperand(q, i, syntax)
      const mods = readModifiers(q, word.end)
      const tokens = [...word.text.matchAll(TOKEN)].map((m) => m[0])
      out.push({ t: 'val', node: chain(tokens, mods.prefix, stops) })
      i = mods.end
      waitOperand = false
    } else if (c === undefined) {
      if (depth > 0) throw syntax()
      return out
    } else if (c === '&' || c === '|') {
      out.push({ t: c === '&' ? 'and' : 'or' })
      i++
      waitOperand = true
    } else if (c === '<') {
      const op = readPhraseOperator(q, i)
      if (!op) throw syntax()
      out.push({ t: 'phrase', d: op.d })
      i = op.end
      waitOperand = true
    } else if (c === ')') {
      if (--depth < 0) throw syntax()
      out.push({ t: 'close' })
      i++
    } else {
      throw syntax()
    }
  }
}

// Sticky patterns read at an offset: slicing q for each operand would be quadratic.
const QUOTED = /'((?:''|\\[^]|[^'\\])*)'/y
const UNQUOTED = /((?:\\[^]|[^\s:!&|()<\\])+)/y // PostgreSQL ends a bare word at ! & | ( ) <
const MODIFIERS = /:[abcdABCD*]*/y
const DIGITS = /\d+/y
const at = (re: RegExp, q: string, start: number) => ((re.lastIndex = start), re.exec(q))

/** One operand as PostgreSQL's tsvector parser reads it: a bare word up to a space, ':' or an
 *  operator, or a 'quoted string' ('' is a quote); a backslash escapes the next character. */
function readOperand(q: string, start: number, syntax: () => TsQueryError) {
  const quoted = q[start] === "'"
  const m = at(quoted ? QUOTED : UNQUOTED, q, start)
  const end = start + (m?.[0].length ?? 0)
  if (quoted ? !m && /^'(?:''|\\[^]|[^'\\])*\\$/.test(q.slice(start)) : q[end] === '\\') {
    throw new TsQueryError(`there is no escaped character: "${q}"`)
  }
  const escapes = quoted ? /''|\\([^])/g : /\\([^])/g
  const text = (m?.[1] ?? '').replace(escapes, (_, c: string | undefined) => c ?? "'")
  if (text === '') throw syntax()
  return { text, end }
}

/** `:*` (prefix) and weights `:ABCD` after an operand; weights are read and ignored. */
function readModifiers(q: string, start: number) {
  const mods = at(MODIFIERS, q, start)?.[0] ?? ''
  return { prefix: mods.includes('*'), end: start + mods.length }
}

/** `<->` (distance 1) or `<N>`; null when malformed (PostgreSQL: syntax error), which includes
 *  an operator that ends the query. */
function readPhraseOperator(q: string, start: number): { d: number; end: number } | null {
  if (q[start + 1] === '-') {
    return q[start + 2] === '>' && start + 3 < q.length ? { d: 1, end: start + 3 } : null
  }
  const digits = at(DIGITS, q, start + 1)?.[0]
  if (!digits) return null
  // PostgreSQL checks the range before it looks for the closing '>'
  if (Number(digits) > MAX_DISTANCE) throw new TsQueryError(DISTANCE_ERROR)
  const end = start + 1 + digits.length
  return q[end] === '>' && end + 1 < q.length ? { d: Number(digits), end: end + 1 } : null
}

/** Pushes phrase operators down to chains: FTS5 phrases and NEAR groups hold tokens only.
 *  (a|b) <-> c = (a<->c)|(b<->c); AND likewise (approximation); !a <-> b = b & !(a<->b). */
function expandPhrases(n: Node, budget: { left: number }): Node {
  if (n.k === 'chain' || n.k === 'stop') {
    if (--budget.left < 0) throw new TsQueryError('tsquery is too large')
    return n
  }
  if (n.k === 'not') return { k: 'not', a: expandPhrases(n.a, budget) }
  const a = expandPhrases(n.a, budget)
  const b = expandPhrases(n.b, budget)
  return n.k === 'phrase' ? combine(a, b, n.d, budget) : { k: n.k, a, b }
}

function combine(l: Node, r: Node, d: number, budget: { left: number }): Node {
  if (l.k === 'stop') return r // an operand without lexemes: PostgreSQL drops it
  if (r.k === 'stop') return l
  if (l.k === 'and' || l.k === 'or') {
    return { k: l.k, a: combine(l.a, r, d, budget), b: combine(l.b, r, d, budget) }
  }
  if (r.k === 'and' || r.k === 'or') {
    return { k: r.k, a: combine(l, r.a, d, budget), b: combine(l, r.b, d, budget) }
  }
  if (l.k === 'not') return { k: 'and', a: r, b: { k: 'not', a: combine(l.a, r, d, budget) } }
  if (r.k === 'not') return { k: 'and', a: l, b: { k: 'not', a: combine(l, r.a, d, budget) } }
  if (l.k !== 'chain' || r.k !== 'chain') throw new Error('unexpanded phrase') // unreachable
  if (--budget.left < 0) throw new TsQueryError('tsquery is too large')
  const end = Math.max(...l.items.map((it) => it.at)) + d
  return { k: 'chain', items: [...l.items, ...r.items.map((it) => ({ ...it, at: it.at + end }))] }
}

const isStop = (n: Node) => n.k === 'stop' || (n.k === 'chain' && n.items.every((it) => it.stop))

/** Removes stop words like PostgreSQL's cleanup: a stop word takes its operator with it. Before
 *  phrases are expanded (`trim` false) a stop word next to `<->` stays, as the index has it;
 *  after, chains lose their leading and trailing stop words (`the <-> cat` is `cat`). */
function clean(n: Node, trim: boolean): Node {
  switch (n.k) {
    case 'stop':
      return n
    case 'chain': {
      if (!trim) return n
      const first = n.items.findIndex((it) => !it.stop)
      if (first < 0) return STOP
      const last = n.items.findLastIndex((it) => !it.stop)
      const base = (n.items[first] as Item).at
      const items = n.items.slice(first, last + 1).map((it) => ({ ...it, at: it.at - base }))
      return { k: 'chain', items }
    }
    case 'not': {
      const a = clean(n.a, trim)
      return isStop(a) ? STOP : { k: 'not', a }
    }
    case 'phrase': {
      const [a, b] = [clean(n.a, trim), clean(n.b, trim)]
      return a.k === 'stop' ? b : b.k === 'stop' ? a : { ...n, a, b }
    }
    default: {
      const [a, b] = [clean(n.a, trim), clean(n.b, trim)]
      if (isStop(a)) return isStop(b) ? STOP : b
      return isStop(b) ? a : { k: n.k, a, b }
    }
  }
}

/** A translated subtree: the rows matching (`parts` joined by `op`) NOT (any of `minus`). FTS5
 *  has no unary NOT, so when the subtree is true for a row matching none of its terms (`zero`,
 *  e.g. `!a`) this describes the rows where it is false instead. NOTs and same-operator runs are
 *  gathered into flat lists: FTS5's parser overflows on deeply nested expressions. */
interface Fts {
  zero: boolean
  op: 'AND' | 'OR'
  parts: string[]
  minus: string[]
}

function translate(n: Node): Fts {
  if (n.k === 'chain') return { zero: false, op: 'AND', parts: [chainExpr(n.items)], minus: [] }
  if (n.k === 'not') {
    const a = translate(n.a)
    return { ...a, zero: !a.zero }
  }
  if (n.k !== 'and' && n.k !== 'or') throw new Error(`unexpected ${n.k} node`) // unreachable
  const a = translate(n.a)
  const b = translate(n.b)
  if (a.zero === b.zero) {
    // both describe where they are true: the same operator; both where false: De Morgan
    return (n.k === 'and') === !a.zero ? intersect(a, b) : union(a, b)
  }
  // a AND !b: a's rows minus b's; a OR !b is false where b is and a is not.
  const [pos, neg] = a.zero ? [b, a] : [a, b]
  return n.k === 'and'
    ? { ...pos, minus: [...pos.minus, ...orParts(neg)] }
    : { ...neg, minus: [...neg.minus, ...orParts(pos)] }
}

// (a − m1) ∩ (b − m2) = (a ∩ b) − (m1 ∪ m2), so the minus lists just add up
const intersect = (a: Fts, b: Fts): Fts => ({
  zero: a.zero,
  op: 'AND',
  parts: [a, b].flatMap((x) => (x.op === 'AND' || x.parts.length === 1 ? x.parts : [join(x)])),
  minus: [...a.minus, ...b.minus],
})
const union = (a: Fts, b: Fts): Fts => ({
  zero: a.zero,
  op: 'OR',
  parts: [a, b].flatMap(orParts),
  minus: [],
})
const orParts = (x: Fts) =>
  x.minus.length === 0 && (x.op === 'OR' || x.parts.length === 1) ? x.parts : [render(x)]
const join = (x: Fts) =>
  x.parts.length === 1 ? (x.parts[0] as string) : `(${x.parts.join(` ${x.op} `)})`
const render = (x: Fts) =>
  x.minus.length === 0 ? join(x) : `(${join(x)} NOT ${join({ ...x, op: 'OR', parts: x.minus })})`

/** Adjacent tokens → one FTS5 phrase ("a" + "b"*); gaps (`<N>`) → NEAR over the runs. */
function chainExpr(items: Item[]): string {
  const runs: Item[][] = []
  let slack = 0
  let prev: Item | undefined
  for (const it of items) {
    const run = runs[runs.length - 1]
    if (run && prev && it.at === prev.at + 1) run.push(it)
    else {
      if (prev) slack += Math.max(0, it.at - prev.at - 1)
      runs.push([it])
    }
    prev = it
  }
  const phrase = (run: Item[]) =>
    run.map((it) => quote(it.tok) + (it.prefix ? '*' : '')).join(' + ')
  if (runs.length === 1) return phrase(runs[0] as Item[])
  return `NEAR(${runs.map(phrase).join(' ')}, ${slack})`
}

/** Deepest parenthesis nesting of an FTS5 expression, outside its strings. */
function nesting(expr: string): number {
  let depth = 0
  let max = 0
  for (const c of expr.replace(/"(?:[^"]|"")*"/g, ''))
    max = Math.max(max, (depth += c === '(' ? 1 : c === ')' ? -1 : 0))
  return max
}

function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`
}
