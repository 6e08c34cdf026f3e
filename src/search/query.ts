// Reads package_search q / fq strings (dismax words, Lucene syntax) into an engine-neutral plan.
import { DateMathError, isDateField as schemaDateField, parseDateMath, solrDate } from './date-math'

/** Leaves with this field search the plan's `qf` fields (dismax); no real field has this name. */
export const DEFAULT_FIELDS = '*default*'
/** CKAN's dismax settings. */
export const CKAN_QF = 'name^4 title^4 tags^2 groups^2 text'
export const CKAN_MM = '2<-1 5<80%'

interface Boosted {
  boost?: number
}
/**
 * A query tree. A `bool` matches when every `must` matches, no `mustNot` matches and at least
 * `minShould` of `should` match (`should` beyond that only adds score); a bool with nothing but
 * `mustNot` matches every document except those. Leaf values are raw (unescaped, not analysed):
 * the engine analyses them per field type (see analysis.ts) and drops a leaf whose text analyses
 * to no token at all (`-` on a text field), as Solr does. On date fields terms become ranges and
 * every bound is already resolved to an ISO instant (`2020-01-01T00:00:00.000Z`).
 */
export type QueryNode =
  | { type: 'all' }
  | ({
      type: 'bool'
      must: QueryNode[]
      should: QueryNode[]
      mustNot: QueryNode[]
      minShould: number
      /** The dismax `mm` spec `minShould` was computed from (recompute if clauses drop out). */
      mm?: string
    } & Boosted)
  /** `fuzzy` = maximum edit distance (`roam~`, `roam~1`). */
  | ({ type: 'term'; field: string; value: string; fuzzy?: number } & Boosted)
  /** `slop` = allowed position distance (`"a b"~3`). On exact fields a phrase is one value. */
  | ({ type: 'phrase'; field: string; value: string; slop?: number } & Boosted)
  | ({ type: 'prefix'; field: string; value: string } & Boosted)
  /** `*` any run, `?` one character; a backslash makes the next character literal. */
  | ({ type: 'wildcard'; field: string; pattern: string } & Boosted)
  /** Lucene regular expression (whole-term match). */
  | ({ type: 'regexp'; field: string; pattern: string } & Boosted)
  /** null bound = open (`*`). */
  | ({
      type: 'range'
      field: string
      lower: string | null
      upper: string | null
      includeLower: boolean
      includeUpper: boolean
    } & Boosted)
  | { type: 'exists'; field: string }

type RangeNode = Extract<QueryNode, { type: 'range' }>

export interface QueryField {
  field: string
  boost: number
}

export interface QueryPlan {
  mode: 'dismax' | 'edismax' | 'lucene'
  root: QueryNode
  /** How to combine the several tokens one leaf's text analyses into. */
  defaultOperator: 'AND' | 'OR'
  /** Fields (and boosts) searched by `DEFAULT_FIELDS` leaves; empty in lucene mode. */
  qf: QueryField[]
  /** dismax tie breaker: score = best field + tie × the other matching fields. */
  tie: number
}

export interface ParseOptions {
  /** The instant `NOW` means (injectable for tests). */
  now?: Date
  /** Which fields hold dates (default: the CKAN schema's). */
  isDateField?: (field: string) => boolean
}

export interface QOptions extends ParseOptions {
  defType?: string
  qf?: string
  mm?: string
  tie?: string | number
}

/** Unreadable query syntax; package_search turns it into a Search Error. */
export class QueryParseError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'QueryParseError'
  }
}

/** The most words one `q` or `fq` may hold (Solr's default maxBooleanClauses), and its length. */
export const MAX_QUERY_TERMS = 1024
export const MAX_QUERY_CHARS = 100_000

/** Why a query text is too big to parse and run (a Validation Error on its parameter). */
export function queryTooBig(text: string): string | undefined {
  if (text.length > MAX_QUERY_CHARS) return `Must be a maximum of ${MAX_QUERY_CHARS} characters long`
  let n = 0
  for (const _ of text.matchAll(/[^\s():"+\-!]+/g)) if (++n > MAX_QUERY_TERMS) break
  return n > MAX_QUERY_TERMS ? `Must have at most ${MAX_QUERY_TERMS} search terms` : undefined
}

/** True when a parameter value uses Solr local-parameter syntax (`{!...}`), which is refused. */
export const hasLocalParams = (value: string) => value.includes('{!')
export const localParamsMessage = (param: string) =>
  `Local parameters are not supported in param '${param}'.`

// ckan: these spellings of q mean "everything"
const ALL_Q = new Set(['', '""', "''", '*:*'])

/** Parses `q`: dismax when it has no colon (CKAN's rule), Lucene standard syntax otherwise. */
export function parseQ(q: string | null | undefined, opts: QOptions = {}): QueryPlan {
  const qf = parseQf(opts.qf ?? CKAN_QF)
  const tie = opts.tie === undefined ? 0.1 : Number(opts.tie) || 0
  const text = (q ?? '').trim()
  if (ALL_Q.has(text)) return { mode: 'lucene', root: ALL, defaultOperator: 'AND', qf: [], tie }
  const mm = opts.mm ?? CKAN_MM
  if (opts.defType === 'edismax') {
    const { node, usedOr } = new Parser(text, DEFAULT_FIELDS, 'OR', opts).parse()
    return { mode: 'edismax', root: applyMm(node, mm, usedOr), defaultOperator: 'OR', qf, tie }
  }
  if (!text.includes(':')) {
    return { mode: 'dismax', root: parseDismax(text, mm, opts), defaultOperator: 'OR', qf, tie }
  }
  return { mode: 'lucene', root: parseLucene(text, opts), defaultOperator: 'AND', qf: [], tie }
}

/** Parses one `fq` / `fq_list` item (Lucene syntax, default field `text`, operator AND). */
export function parseFilter(fq: string | null | undefined, opts: ParseOptions = {}): QueryPlan {
  const text = (fq ?? '').trim()
  const root = text === '' ? ALL : parseLucene(text, opts)
  return { mode: 'lucene', root, defaultOperator: 'AND', qf: [], tie: 0 }
}

/** Lucene standard syntax with Solr's defaults: default field `text`, default operator AND. */
export function parseLucene(input: string, opts: ParseOptions = {}): QueryNode {
  if (input.trim() === '') return ALL
  return new Parser(input, 'text', 'AND', opts).parse().node
}

/**
 * dismax: words, "phrases", +required and -excluded clauses over the qf fields; other syntax
 * characters are literal. `mm` decides how many optional clauses must match.
 */
export function parseDismax(input: string, mm = CKAN_MM, opts: ParseOptions = {}): QueryNode {
  const text = stripIllegalOperators(partialEscape(stripUnbalancedQuotes(input)))
  if (text.trim() === '') return ALL
  let parsed
  try {
    parsed = new Parser(text, DEFAULT_FIELDS, 'OR', opts).parse()
  } catch (e) {
    if (!(e instanceof QueryParseError)) throw e
    // a stray operator: read every word literally instead of failing (edismax does the same)
    const literal = text.replace(/(^|\s)(AND|OR|NOT|&&|\|\||[+-])/g, '$1\\$2')
    parsed = new Parser(literal, DEFAULT_FIELDS, 'OR', opts).parse()
  }
  return applyMm(parsed.node, mm, parsed.usedOr)
}

/** `name^4 title^4 text` → fields with boosts (1 when none). */
export function parseQf(qf: string): QueryField[] {
  return qf
    .split(/\s+/)
    .filter((f) => f !== '')
    .map((f) => {
      const [field, boost] = f.split('^')
      return { field: field!, boost: boost === undefined ? 1 : Number(boost) || 1 }
    })
}

/** Solr's minimum-should-match for `optional` optional clauses (`2<-1 5<80%`, `75%`, `-1`, `3`). */
export function minShouldMatch(spec: string, optional: number): number {
  const s = spec.trim().replace(/\s*<\s*/g, '<')
  let result = optional
  if (s.includes('<')) {
    for (const cond of s.split(/\s+/)) {
      const [upper, value] = cond.split('<')
      if (!upper || !value || !/^\d+$/.test(upper)) {
        throw new QueryParseError(`Invalid 'mm' spec: '${cond}'`)
      }
      if (optional <= Number(upper)) return result
      result = minShouldMatch(value, optional)
    }
    return result
  }
  const m = /^(-?\d+)(%?)$/.exec(s)
  if (!m) throw new QueryParseError(`Invalid 'mm' spec: '${spec}'`)
  const n = Number(m[1])
  const calc = m[2] ? Math.trunc((optional * n) / 100) : n
  result = calc < 0 ? optional + calc : calc
  return Math.max(0, Math.min(optional, result))
}

const ALL: QueryNode = { type: 'all' }

function applyMm(node: QueryNode, mm: string, usedOr: boolean): QueryNode {
  // An explicit OR asks for "any of": mm would turn it into AND, so it is not applied then.
  if (node.type !== 'bool' || usedOr || node.should.length === 0) return node
  return { ...node, minShould: minShouldMatch(mm, node.should.length), mm }
}

// ---- dismax input clean-up (Solr's DisMax does the same before parsing) ----------------------

const stripUnbalancedQuotes = (s: string) =>
  (s.match(/"/g)?.length ?? 0) % 2 === 0 ? s : s.replaceAll('"', '')
const partialEscape = (s: string) => s.replace(/[\\!():^[\]{}~*?/]/g, '\\$&')
const stripIllegalOperators = (s: string) =>
  s.replace(/\s+[+-](?:\s*[+-]+)+/g, ' ').replace(/\s+[-+\s]+$/, '')

// ---- lexer ----------------------------------------------------------------------------------

type Tok =
  | {
      k: 'AND' | 'OR' | 'NOT' | 'PLUS' | 'LPAREN' | 'RPAREN' | 'COLON' | 'STRAY' | 'EOF'
      at: number
    }
  | { k: 'TERM'; raw: string; at: number }
  | { k: 'QUOTED' | 'REGEXP'; text: string; at: number }
  | { k: 'FUZZY'; value?: number; at: number }
  | { k: 'CARAT'; value: number; at: number }
  | { k: 'RANGE'; lo: Bound; hi: Bound; incLo: boolean; incHi: boolean; at: number }
interface Bound {
  text: string
  quoted: boolean
}

const WS = /[ \t\n\r\u3000]/
const TERM_BREAK = /[ \t\n\r\u3000!():^[\]"{}~/]/
const NUMBER = /^\d+(?:\.\d+)?/

function lex(input: string): Tok[] {
  const toks: Tok[] = []
  const err = (what: string, at: number): never => {
    throw new QueryParseError(
      `Cannot parse '${input}': Lexical error at line 1, column ${at + 1}. ${what}`,
    )
  }
  let i = 0
  const skipWs = () => {
    while (i < input.length && WS.test(input[i]!)) i++
  }
  // from an opening quote (or slash) to its unescaped twin; escapes are kept for the caller
  const readQuoted = (close: string): string => {
    const at = i
    let out = ''
    for (i++; i < input.length && input[i] !== close; i++) {
      if (input[i] === '\\' && i + 1 < input.length) out += input[i++]
      out += input[i]
    }
    if (i >= input.length) err(`Encountered: <EOF> after: "${input.slice(at)}"`, input.length)
    i++
    return out
  }
  const bound = (): Bound => {
    skipWs()
    if (input[i] === '"') return { text: unescape(readQuoted('"'), input), quoted: true }
    const start = i
    while (i < input.length && !/[ \t\n\r\u3000\]}]/.test(input[i]!)) i++
    if (i === start) err(`Encountered: "${input[i] ?? '<EOF>'}" in range`, i)
    return { text: input.slice(start, i), quoted: false }
  }
  while (i < input.length) {
    const c = input[i]!
    const at = i
    if (WS.test(c)) i++
    else if (c === '(' || c === ')' || c === ':') {
      toks.push({ k: c === '(' ? 'LPAREN' : c === ')' ? 'RPAREN' : 'COLON', at })
      i++
    } else if (c === '+' || c === '-' || c === '!') {
      // an operator character followed by whitespace is an ordinary term (Lucene's BAREOPER)
      const bare = i + 1 < input.length && WS.test(input[i + 1]!)
      toks.push(bare ? { k: 'TERM', raw: `\\${c}`, at } : { k: c === '+' ? 'PLUS' : 'NOT', at })
      i++
    } else if (c === '"') toks.push({ k: 'QUOTED', text: unescape(readQuoted('"'), input), at })
    else if (c === '/') toks.push({ k: 'REGEXP', text: readQuoted('/').replaceAll('\\/', '/'), at })
    else if (c === '^' || c === '~') {
      i++
      if (c === '^') skipWs()
      const num = NUMBER.exec(input.slice(i))?.[0]
      i += num?.length ?? 0
      const value = num === undefined ? undefined : Number(num)
      if (c === '~') toks.push({ k: 'FUZZY', value, at })
      else toks.push(value === undefined ? { k: 'STRAY', at } : { k: 'CARAT', value, at })
    } else if (c === '[' || c === '{') {
      i++
      const lo = bound()
      skipWs()
      if (input.slice(i, i + 2) !== 'TO' || !/^[ \t\n\r\u3000\]}]?$/.test(input[i + 2] ?? '')) {
        err('Expected "TO" in range', i)
      }
      i += 2
      const hi = bound()
      skipWs()
      const close = input[i++]
      if (close !== ']' && close !== '}') err(`Encountered: "${close ?? '<EOF>'}" in range`, i - 1)
      toks.push({ k: 'RANGE', lo, hi, incLo: c === '[', incHi: close === ']', at })
    } else if (c === ']' || c === '}') {
      toks.push({ k: 'STRAY', at })
      i++
    } else {
      while (i < input.length && !TERM_BREAK.test(input[i]!)) {
        if (input[i] === '\\' && ++i >= input.length)
          err('Term can not end with escape character.', i)
        i++
      }
      const raw = input.slice(at, i)
      const op = raw === 'AND' || raw === '&&' ? 'AND' : raw === 'OR' || raw === '||' ? 'OR' : null
      toks.push(op ? { k: op, at } : raw === 'NOT' ? { k: 'NOT', at } : { k: 'TERM', raw, at })
    }
  }
  toks.push({ k: 'EOF', at: input.length })
  return toks
}

/** Removes backslash escapes; `\uXXXX` is a code unit (Lucene's discardEscapeChar). */
function unescape(s: string, input: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') out += s[i]
    else if (s[i + 1] === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
      out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16))
      i += 5
    } else if (s[i + 1] === 'u') {
      throw new QueryParseError(`Cannot parse '${input}': Truncated unicode escape sequence.`)
    } else out += s[++i] ?? ''
  }
  return out
}

// ---- parser ---------------------------------------------------------------------------------

type Occur = 'must' | 'should' | 'mustNot'
type Conj = 'AND' | 'OR' | null
type Mod = 'PLUS' | 'NOT' | null

class Parser {
  private toks: Tok[]
  private p = 0
  private usedOr = false
  private now: Date
  private isDate: (f: string) => boolean

  constructor(
    private input: string,
    private defaultField: string,
    private operator: 'AND' | 'OR',
    opts: ParseOptions,
  ) {
    this.toks = lex(input)
    this.now = opts.now ?? new Date()
    this.isDate = opts.isDateField ?? schemaDateField
  }

  parse(): { node: QueryNode; usedOr: boolean } {
    const node = this.query(this.defaultField, 0)
    this.expect('EOF')
    return { node, usedOr: this.usedOr }
  }

  private peek(offset = 0): Tok {
    return this.toks[Math.min(this.p + offset, this.toks.length - 1)]!
  }

  private fail(tok: Tok): never {
    const end = this.toks[this.toks.indexOf(tok) + 1]?.at ?? this.input.length
    const shown = tok.k === 'EOF' ? '<EOF>' : this.input.slice(tok.at, end).trim()
    const where = `at line 1, column ${tok.at + 1}.`
    throw new QueryParseError(`Cannot parse '${this.input}': Encountered "${shown}" ${where}`)
  }

  private expect(k: Tok['k']): Tok {
    const tok = this.peek()
    if (tok.k !== k) this.fail(tok)
    this.p++
    return tok
  }

  private query(field: string, depth: number): QueryNode {
    const clauses: { occur: Occur; node: QueryNode }[] = []
    for (let first = true; ; first = false) {
      const t = this.peek()
      if (!first && (t.k === 'EOF' || (t.k === 'RPAREN' && depth > 0))) break
      let conj: Conj = null
      if (!first && (t.k === 'AND' || t.k === 'OR')) {
        conj = t.k
        if (conj === 'OR' && depth === 0) this.usedOr = true
        this.p++
      }
      const m = this.peek().k
      const mod: Mod = m === 'PLUS' || m === 'NOT' ? m : null
      if (mod) this.p++
      this.addClause(clauses, conj, mod, this.clause(field, depth))
    }
    const [only] = clauses
    if (clauses.length === 1 && only!.occur !== 'mustNot') return only!.node
    const pick = (o: Occur) => clauses.filter((c) => c.occur === o).map((c) => c.node)
    const [must, should, mustNot] = [pick('must'), pick('should'), pick('mustNot')]
    return {
      type: 'bool',
      must,
      should,
      mustNot,
      minShould: must.length === 0 && should.length ? 1 : 0,
    }
  }

  // Lucene's rules for how AND / OR / + / - / NOT and the default operator make clauses
  // required, optional or prohibited (`a AND b OR c` → +a b c, as Solr reads it).
  private addClause(
    clauses: { occur: Occur; node: QueryNode }[],
    conj: Conj,
    mod: Mod,
    node: QueryNode,
  ) {
    const prev = clauses[clauses.length - 1]
    if (prev && conj === 'AND' && prev.occur !== 'mustNot') prev.occur = 'must'
    if (prev && conj === 'OR' && this.operator === 'AND' && prev.occur !== 'mustNot')
      prev.occur = 'should'
    let occur: Occur
    if (this.operator === 'OR') {
      occur = mod === 'NOT' ? 'mustNot' : mod === 'PLUS' || conj === 'AND' ? 'must' : 'should'
    } else {
      occur = mod === 'NOT' ? 'mustNot' : conj !== 'OR' ? 'must' : 'should'
    }
    clauses.push({ occur, node })
  }

  private clause(field: string, depth: number): QueryNode {
    const t = this.peek()
    if (t.k === 'TERM' && this.peek(1).k === 'COLON') {
      if (t.raw !== '*' && hasWildcard(t.raw)) this.fail(this.peek(1))
      field = t.raw === '*' ? '*' : unescape(t.raw, this.input)
      this.p += 2
    }
    if (this.peek().k === 'LPAREN') {
      this.p++
      const node = this.query(field, depth + 1)
      this.expect('RPAREN')
      return this.boosted(node, this.optBoost())
    }
    return this.term(field)
  }

  private optBoost(): number | undefined {
    const t = this.peek()
    if (t.k !== 'CARAT') return undefined
    this.p++
    return t.value
  }

  private optFuzzy(): { value?: number } | undefined {
    const t = this.peek()
    if (t.k !== 'FUZZY') return undefined
    this.p++
    return { value: t.value }
  }

  private boosted(node: QueryNode, boost: number | undefined): QueryNode {
    if (boost === undefined || node.type === 'all' || node.type === 'exists') return node
    return { ...node, boost: (node.boost ?? 1) * boost }
  }

  private term(field: string): QueryNode {
    const t = this.peek()
    this.p++
    if (t.k === 'TERM') {
      let fuzzy = this.optFuzzy()
      const boost = this.optBoost()
      if (boost !== undefined && !fuzzy) fuzzy = this.optFuzzy()
      return this.boosted(this.termLeaf(field, t.raw, fuzzy), boost)
    }
    if (t.k === 'QUOTED') {
      const slop = this.optFuzzy()?.value
      const boost = this.optBoost()
      if (this.isDate(field)) return this.boosted(this.range(field, t.text, t.text), boost)
      const node: QueryNode =
        slop === undefined
          ? { type: 'phrase', field, value: t.text }
          : { type: 'phrase', field, value: t.text, slop: Math.trunc(slop) }
      return this.boosted(node, boost)
    }
    if (t.k === 'RANGE') return this.boosted(this.rangeLeaf(field, t), this.optBoost())
    if (t.k === 'REGEXP') {
      this.noDate(field, 'regular expression')
      return this.boosted({ type: 'regexp', field, pattern: t.text }, this.optBoost())
    }
    return this.fail(t)
  }

  private termLeaf(field: string, raw: string, fuzzy?: { value?: number }): QueryNode {
    if (raw === '*') return field === '*' ? ALL : { type: 'exists', field }
    if (hasWildcard(raw)) {
      this.noDate(field, 'wildcard')
      const pattern = wildcardPattern(raw, this.input)
      const prefix = /^((?:[^*?\\]|\\.)*)\*$/.exec(pattern)
      if (prefix) return { type: 'prefix', field, value: prefix[1]!.replace(/\\(.)/g, '$1') }
      return { type: 'wildcard', field, pattern }
    }
    const value = unescape(raw, this.input)
    if (this.isDate(field)) return this.range(field, value, value)
    if (!fuzzy) return { type: 'term', field, value }
    return { type: 'term', field, value, fuzzy: fuzzyEdits(fuzzy.value, value) }
  }

  private rangeLeaf(field: string, t: Extract<Tok, { k: 'RANGE' }>): QueryNode {
    const open = (b: Bound) => !b.quoted && b.text === '*'
    if (open(t.lo) && open(t.hi)) return field === '*' ? ALL : { type: 'exists', field }
    const value = (b: Bound) => (open(b) ? null : b.quoted ? b.text : unescape(b.text, this.input))
    return this.range(field, value(t.lo), value(t.hi), t.incLo, t.incHi)
  }

  /** A range; on date fields the bounds are resolved (date math, NOW) to ISO instants. */
  private range(
    field: string,
    lo: string | null,
    hi: string | null,
    incLo = true,
    incHi = true,
  ): RangeNode {
    const resolve = (v: string | null) => {
      if (v === null || !this.isDate(field)) return v
      try {
        return solrDate(parseDateMath(v, this.now))
      } catch (e) {
        if (e instanceof DateMathError) throw new QueryParseError(e.message)
        throw e
      }
    }
    const [lower, upper] = [resolve(lo), resolve(hi)]
    return { type: 'range', field, lower, upper, includeLower: incLo, includeUpper: incHi }
  }

  private noDate(field: string, what: string) {
    if (this.isDate(field)) {
      throw new QueryParseError(
        `Cannot parse '${this.input}': ${what} queries are not supported on date field '${field}'`,
      )
    }
  }
}

const hasWildcard = (raw: string) => /(^|[^\\])(\\\\)*[*?]/.test(raw)

/** Wildcard pattern from a raw term: escapes dropped except before `*`, `?` and `\`. */
function wildcardPattern(raw: string, input: string): string {
  let out = ''
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== '\\') out += raw[i]
    else {
      const ch = unescape(raw.slice(i, raw[i + 1] === 'u' ? i + 6 : i + 2), input)
      out += ch === '*' || ch === '?' || ch === '\\' ? `\\${ch}` : ch
      i += raw[i + 1] === 'u' ? 5 : 1
    }
  }
  return out
}

/** Lucene's fuzzy argument: an edit distance (max 2), or a legacy similarity below 1. */
function fuzzyEdits(value: number | undefined, term: string): number {
  if (value === undefined) return 2
  if (value >= 1) return Math.min(Math.trunc(value), 2)
  if (value === 0) return 0
  return Math.min(Math.trunc((1 - value) * [...term].length), 2)
}
