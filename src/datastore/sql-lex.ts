// datastore_search_sql: reads a statement as PostgreSQL would (tokens, a tree of parenthesised
// groups, type names, the names of the result columns) and writes it back. Checks and rewrites
// (sql-guard.ts) look only at neighbours on one level of that tree, so any input costs linear
// time (this runs on the event loop, for anonymous callers too).

/** A refused statement: kind 'query' → 409 {"query": [message]}, kind 'auth' → 403 with the message. */
export class SqlRefused extends Error {
  constructor(
    message: string,
    readonly kind: 'auth' | 'query',
  ) {
    super(message)
  }
}

export type Kind = 'ws' | 'str' | 'ident' | 'qident' | 'num' | 'op'
/** s: the text we emit; v: identifier name (lower-cased unless quoted) or operator text. */
export interface Tok {
  k: Kind
  s: string
  v: string
}

export const tok = (k: Kind, s: string, v = s): Tok => ({ k, s, v })
const space = () => tok('ws', ' ')
export const word = (s: string) => tok('ident', s, s.toLowerCase())
export const sqlString = (value: string) => tok('str', `'${value.replaceAll("'", "''")}'`)
export const refuse = (message: string) => new SqlRefused(message, 'query')
const snippet = (input: string, at: number) => input.slice(at, at + 40)

// Only ASCII whitespace, as SQLite: anything else (U+00A0 …) is part of an identifier for SQLite too.
const WS = /[ \t\n\r\f\v]+/y
const IDENT = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y
const NUM = /0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y
const DOLLAR = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y
const OPS = '!~~* !~~ ~~* ->> !~* :: || <= >= <> != == -> << >> ~~ ~* !~'.split(' ')
const E_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

function sticky(re: RegExp, input: string, at: number): string | undefined {
  re.lastIndex = at
  return re.exec(input)?.[0]
}

/** Body of a quoted token starting at `at` (the quote), doubled quotes unescaped; null if unterminated. */
function quoted(input: string, at: number, close: string): { body: string; end: number } | null {
  let body = ''
  for (let i = at + 1; i < input.length; i++) {
    if (input[i] !== close) {
      body += input[i]
    } else if (input[i + 1] === close && close !== ']') {
      body += close
      i++
    } else return { body, end: i + 1 }
  }
  return null
}

/** PostgreSQL E'…' string: backslash escapes, '' or \' for a quote. */
function eString(input: string, at: number): { body: string; end: number } | null {
  let body = ''
  for (let i = at + 1; i < input.length; i++) {
    const c = input[i]!
    if (c === "'") {
      if (input[i + 1] !== "'") return { body, end: i + 1 }
      body += "'"
      i++
    } else if (c === '\\' && i + 1 < input.length) {
      const rest = input.slice(i + 1)
      const code = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3}))/.exec(
        rest,
      )
      if (code) {
        const point = parseInt(code[1] ?? code[2] ?? code[3] ?? code[4]!, code[4] ? 8 : 16)
        if (point === 0) throw refuse('invalid byte sequence for encoding "UTF8": 0x00')
        if (point > 0x10ffff) throw refuse('invalid Unicode escape value')
        body += String.fromCodePoint(point)
        i += code[0].length
      } else {
        body += E_ESCAPES[rest[0]!] ?? rest[0]
        i++
      }
    } else body += c
  }
  return null
}

export function lex(input: string): Tok[] {
  const out: Tok[] = []
  // Runs of whitespace and comments become one token, so every neighbour lookup is O(1).
  const push = (t: Tok) => {
    const last = out[out.length - 1]
    if (t.k === 'ws' && last?.k === 'ws') last.s += t.s
    else out.push(t)
  }
  let i = 0
  const unterminated = (what: string) =>
    refuse(`unterminated ${what} at or near "${snippet(input, i)}"`)
  while (i < input.length) {
    const c = input[i]!
    const two = input.slice(i, i + 2)
    let m: string | undefined
    if (c === '\0') throw refuse('invalid byte sequence for encoding "UTF8": 0x00')
    if ((m = sticky(WS, input, i))) {
      push(tok('ws', m))
      i += m.length
    } else if (two === '--') {
      const end = input.indexOf('\n', i)
      i = end < 0 ? input.length : end
      push(space())
    } else if (two === '/*') {
      // PostgreSQL block comments nest; SQLite never sees them, so the difference cannot be abused.
      let depth = 0
      let j = i
      do {
        if (j >= input.length) throw unterminated('/* comment')
        const pair = input.slice(j, j + 2)
        depth += pair === '/*' ? 1 : pair === '*/' ? -1 : 0
        j += pair === '/*' || pair === '*/' ? 2 : 1
      } while (depth > 0)
      i = j
      push(space())
    } else if (c === "'" || ((c === 'e' || c === 'E') && input[i + 1] === "'")) {
      const q = c === "'" ? quoted(input, i, "'") : eString(input, i + 1)
      if (!q) throw unterminated('quoted string')
      push(c === "'" ? tok('str', input.slice(i, q.end)) : sqlString(q.body))
      i = q.end
    } else if ((c === 'x' || c === 'X') && input[i + 1] === "'") {
      const q = quoted(input, i + 1, "'")
      if (!q) throw unterminated('quoted string')
      push(tok('str', input.slice(i, q.end)))
      i = q.end
    } else if (two === '[]') {
      push(tok('op', '[]')) // an array type suffix; SQLite would read an empty identifier
      i += 2
    } else if (c === '"' || c === '[' || c === '`') {
      const q = quoted(input, i, c === '[' ? ']' : c)
      if (!q) throw unterminated('quoted identifier')
      push(tok('qident', `"${q.body.replaceAll('"', '""')}"`, q.body))
      i = q.end
    } else if (c === '$' && (m = sticky(DOLLAR, input, i))) {
      const end = input.indexOf(m, i + m.length)
      if (end < 0) throw unterminated('dollar-quoted string')
      push(sqlString(input.slice(i + m.length, end)))
      i = end + m.length
    } else if ((m = sticky(IDENT, input, i))) {
      push(word(m))
      i += m.length
    } else if ((m = sticky(NUM, input, i))) {
      push(tok('num', m))
      i += m.length
    } else {
      m = OPS.find((op) => input.startsWith(op, i)) ?? c
      push(tok('op', m))
      i += m.length
    }
  }
  return out
}

// The statement as a tree: a parenthesised group is one node of the level around it.

export interface Group {
  k: 'group'
  items: Node[]
}
export type Node = Tok | Group

export const group = (items: Node[]): Group => ({ k: 'group', items })
export const isGroup = (n: Node | undefined): n is Group => n?.k === 'group'
export const isName = (n: Node | undefined): n is Tok => n?.k === 'ident' || n?.k === 'qident'
export const isWord = (n: Node | undefined, ...words: string[]) =>
  n?.k === 'ident' && words.includes((n as Tok).v)
export const isOp = (n: Node | undefined, op: string) => n?.k === 'op' && (n as Tok).v === op
export const significant = (items: Node[]) => items.filter((n) => n.k !== 'ws')

const MAX_DEPTH = 1000

// Words that continue a type name: double precision, character varying, timestamp with time zone.
const TYPE_TAILS = ['precision', 'varying', 'without', 'with', 'time', 'zone']

export interface TypeName {
  /** Its words, lower-cased unless quoted, one space apart; `[]` appended for an array. */
  name: string
  /** Index of its last node. */
  end: number
  /** Length or precision: `varchar(9)`, `float(24)`. */
  args?: Group
}

/** The type name at items[i] (after `::` or CAST's AS), whitespace skipped. */
export function readType(items: Node[], i: number): TypeName | undefined {
  const at = (j: number) => (items[j]?.k === 'ws' ? j + 1 : j)
  let end = at(i)
  if (!isName(items[end])) return undefined
  let name = (items[end] as Tok).v
  while (isWord(items[at(end + 1)], ...TYPE_TAILS)) {
    end = at(end + 1)
    name += ` ${(items[end] as Tok).v}`
  }
  const args = items[at(end + 1)]
  if (isGroup(args)) end = at(end + 1)
  if (isOp(items[at(end + 1)], '[]')) name += '[]'
  return { name, end, args: isGroup(args) ? args : undefined }
}

export function tree(toks: Tok[]): Group {
  const stack: Group[] = [group([])]
  for (const t of toks) {
    if (isOp(t, '(')) {
      if (stack.length > MAX_DEPTH) throw refuse('stack depth limit exceeded')
      const g = group([])
      stack[stack.length - 1]!.items.push(g)
      stack.push(g)
    } else if (isOp(t, ')')) {
      if (stack.length === 1) throw refuse('syntax error at or near ")"')
      stack.pop()
    } else stack[stack.length - 1]!.items.push(t)
  }
  if (stack.length > 1) throw refuse('syntax error at end of input')
  return stack[0]!
}

/** The SQL text; iterative, as cast chains nest CAST( groups arbitrarily deep. */
export function emit(items: Node[]): string {
  const parts: string[] = []
  const stack: (Node | ')')[] = [...items].reverse()
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n === ')' || !isGroup(n)) {
      parts.push(n === ')' ? n : n.s)
      continue
    }
    parts.push('(')
    stack.push(')')
    for (let i = n.items.length - 1; i >= 0; i--) stack.push(n.items[i]!)
  }
  return parts.join('')
}

// Words that may precede '(' without being a function call. None is a SQLite function name, so
// skipping them cannot let a call through.
export const NOT_CALLS = new Set(
  (
    'in exists values as over filter using on join from select where and or not when then else case ' +
    'is between all any some with recursive union intersect except by having limit offset distinct ' +
    'escape materialized within lateral ilike window partition rows range groups returning'
  ).split(' '),
)
/** A name that calls a function when a group follows it. */
export const isCallName = (n: Node | undefined): n is Tok =>
  isName(n) && !(n.k === 'ident' && NOT_CALLS.has(n.v))

// ---------------------------------------------------------------------------------------------------
// Result column names as PostgreSQL gives them (its FigureColname, as of version 15), read from the
// statement as written, before any rewrite.

/** A name for the item ending there; alias: it replaces the item's alias rather than follows it. */
export interface ColumnName {
  name: string
  alias: boolean
}

/** A name and its strength: a column or call (2) beats a cast's type (1), which beats none (0). */
interface Named {
  name: string
  strength: number
}
const UNNAMED: Named = { name: '?column?', strength: 0 }
// Constants are unnamed (up to PostgreSQL 14 true and false were named bool).
const CONSTANTS = ['null', 'true', 'false']
// Words after which a name is an operand, not a bare alias (`a AND b`, `rank() OVER w`).
const OPERATORS = new Set(
  'and or not is in like ilike between distinct from collate as over escape'.split(' '),
)
// Words that end an expression, so never a bare alias (`x IS NULL`, `CASE … END`).
const ENDINGS = ['null', 'true', 'false', 'end', 'isnull', 'notnull']
// Where a select list ends (`IS DISTINCT FROM` and `WITHIN GROUP` do not end it).
const LIST_ENDS = new Set(
  (
    'from where group having window order limit offset fetch union intersect except ' +
    'into for'
  ).split(' '),
)
const PG_TYPES = new Map(
  (
    'int=int4,integer=int4,smallint=int2,bigint=int8,boolean=bool,real=float4,float=float8,' +
    'double precision=float8,decimal=numeric,char=bpchar,character=bpchar,' +
    'character varying=varchar,timestamp without time zone=timestamp,' +
    'timestamp with time zone=timestamptz,time without time zone=time'
  )
    .split(',')
    .map((pair) => pair.split('=') as [string, string]),
)
// Parentheses, CASE in ELSE and subqueries nested deeper than this are left unnamed.
const MAX_NAME_DEPTH = 100

/** PostgreSQL's name of a type: int → int4, float(24) → float4, varchar(9) → varchar. */
function pgTypeName({ name, args }: TypeName): string {
  const precision = args && significant(args.items)[0]
  if (name === 'float' && precision?.k === 'num') {
    return Number(precision.s) <= 24 ? 'float4' : 'float8'
  }
  return PG_TYPES.get(name) ?? name
}

type CaseBounds = Map<number, { end: number; otherwise?: number }>

/** Each CASE's END and ELSE on one level, found in one pass so that nested CASEs stay linear. */
function caseBounds(sig: Node[]): CaseBounds {
  const bounds: CaseBounds = new Map()
  const open: { end: number; otherwise?: number }[] = []
  sig.forEach((n, i) => {
    if (isWord(n, 'case')) {
      open.push({ end: -1 })
      bounds.set(i, open[open.length - 1]!)
    } else if (isWord(n, 'else') && open.length) open[open.length - 1]!.otherwise = i
    else if (isWord(n, 'end') && open.length) open.pop()!.end = i
  })
  return bounds
}

/** The name of sig[from, to): a column, call, cast, CASE or parenthesised one; else ?column?. */
function nameOf(sig: Node[], from: number, to: number, cases: CaseBounds, depth: number): Named {
  const first = depth < MAX_NAME_DEPTH ? operand(sig, from, cases, depth) : undefined
  if (!first) return UNNAMED
  let { end, named } = first
  while (end < to) {
    const type = isOp(sig[end], '::') ? readType(sig, end + 1) : undefined
    if (type) {
      if (named.strength < 2) named = { name: pgTypeName(type), strength: 1 }
      end = type.end + 1
    } else if (isWord(sig[end], 'collate') && isName(sig[end + 1])) end += 2
    else return UNNAMED
  }
  return end === to ? named : UNNAMED
}

/** The operand at sig[i], its name and the index after it; undefined for an operator. */
function operand(sig: Node[], i: number, cases: CaseBounds, depth: number) {
  const n = sig[i]
  const args = sig[i + 1]
  if (isGroup(n)) return { end: i + 1, named: nameOfGroup(n, depth + 1) }
  if (n?.k === 'num' || n?.k === 'str' || isWord(n, ...CONSTANTS)) {
    return { end: i + 1, named: UNNAMED }
  }
  if (isWord(n, 'case')) return caseName(sig, i, cases, depth)
  if (isWord(n, 'cast') && isGroup(args)) return { end: i + 2, named: castName(args, depth + 1) }
  if (isWord(n, 'exists') && isGroup(args)) {
    return { end: i + 2, named: { name: 'exists', strength: 2 } }
  }
  if (!isName(n) || isWord(n, 'not')) return undefined
  let j = i
  while (isOp(sig[j + 1], '.') && isName(sig[j + 2])) j += 2
  const name = sig[j] as Tok
  const call = sig[j + 1]
  if (!isGroup(call)) return { end: j + 1, named: { name: name.v, strength: 2 } }
  let end = j + 2
  if (isWord(sig[end], 'within') && isWord(sig[end + 1], 'group') && isGroup(sig[end + 2])) end += 3
  if (isWord(sig[end], 'filter') && isGroup(sig[end + 1])) end += 2
  if (isWord(sig[end], 'over') && (isGroup(sig[end + 1]) || isName(sig[end + 1]))) end += 2
  return { end, named: { name: callName(name, call), strength: 2 } }
}

/** TRIM(…) is named after the function it stands for. */
function callName(name: Tok, args: Group): string {
  if (!isWord(name, 'trim')) return name.v
  const side = args.items.find((n) => n.k !== 'ws')
  return isWord(side, 'leading') ? 'ltrim' : isWord(side, 'trailing') ? 'rtrim' : 'btrim'
}

/** CASE is named after its ELSE branch when that is a column or call. */
function caseName(sig: Node[], i: number, cases: CaseBounds, depth: number) {
  const bounds = cases.get(i)
  if (!bounds || bounds.end < 0) return undefined
  const { otherwise, end } = bounds
  const branch =
    otherwise === undefined ? UNNAMED : nameOf(sig, otherwise + 1, end, cases, depth + 1)
  return { end: end + 1, named: branch.strength === 2 ? branch : { name: 'case', strength: 1 } }
}

/** CAST(x AS type): the name of x if it is strong, else the type's. */
function castName(g: Group, depth: number): Named {
  const sig = significant(g.items)
  let as = -1
  sig.forEach((n, i) => (as = isWord(n, 'as') ? i : as))
  const type = as < 0 ? undefined : readType(sig, as + 1)
  if (!type) return UNNAMED
  const inner = nameOf(sig, 0, as, caseBounds(sig), depth)
  return inner.strength === 2 ? inner : { name: pgTypeName(type), strength: 1 }
}

/** A parenthesised expression is named as its content, a subquery after its first column. */
function nameOfGroup(g: Group, depth: number): Named {
  const sig = significant(g.items)
  const query =
    isWord(sig[0], 'select', 'with', 'values') ||
    sig.some((n) => isWord(n, 'union', 'intersect', 'except'))
  if (!query) return nameOf(sig, 0, sig.length, caseBounds(sig), depth)
  const head = queryHead(g)
  if (!head || isWord(head.g.items[head.at], 'values')) {
    return { name: head ? 'column1' : '?column?', strength: 2 }
  }
  const [from, to] = selectItems(head.g.items, head.at)[0]!
  const item = significant(head.g.items.slice(from, to))
  const alias = aliasOf(item)
  // SQLite also takes a string as an alias
  const name = alias?.k === 'str' ? alias.s.slice(1, -1).replaceAll("''", "'") : alias?.v
  return { name: name ?? nameOf(item, 0, item.length, caseBounds(item), depth).name, strength: 2 }
}

/** Where the query in g says SELECT or VALUES; a parenthesised first arm is looked into. */
function queryHead(g: Group): { g: Group; at: number } | undefined {
  const first = g.items.find((n) => n.k !== 'ws')
  if (isGroup(first)) return queryHead(first)
  const at = g.items.findIndex((n) => isWord(n, 'select', 'values'))
  return at < 0 ? undefined : { g, at }
}

/** Index ranges [from, to) in items of the select list after the SELECT at items[at]. */
function selectItems(items: Node[], at: number): [number, number][] {
  const next = (j: number) => (items[j]?.k === 'ws' ? j + 1 : j)
  let i = next(at + 1)
  if (isWord(items[i], 'all')) i = next(i + 1)
  else if (isWord(items[i], 'distinct')) {
    i = next(i + 1)
    if (isWord(items[i], 'on') && isGroup(items[next(i + 1)])) i = next(next(i + 1) + 1)
  }
  const ranges: [number, number][] = []
  let from = i
  let prev: Node | undefined
  for (; i < items.length; i++) {
    const n = items[i]!
    if (n.k === 'ws') continue
    if (isOp(n, ',')) {
      ranges.push([from, i])
      from = i + 1
    } else if (n.k === 'ident' && LIST_ENDS.has(n.v) && !isWord(prev, 'distinct', 'within')) break
    prev = n
  }
  ranges.push([from, i])
  return ranges
}

const isOperand = (n: Node | undefined): n is Tok | Group =>
  n?.k === 'group' || n?.k === 'num' || n?.k === 'str' || isName(n)

/** The alias of a select item: after AS, or a bare name following an operand. */
function aliasOf(item: Node[]): Tok | undefined {
  const last = item[item.length - 1]
  const before = item[item.length - 2]
  if (isWord(before, 'as')) return isGroup(last) ? undefined : last
  if (!isName(last) || isWord(last, ...ENDINGS) || isWord(before, ...OPERATORS)) return undefined
  // the last words of a type: double precision, character varying, with time zone
  const typeWords = isWord(before, 'double', 'character', 'char', 'time')
  if (typeWords && isWord(last, 'precision', 'varying', 'zone')) return undefined
  return isOperand(before) ? last : undefined
}

/**
 * Result column names to give in the outermost select list (of its first arm, if compound), by the
 * index in `g.items` where an item ends: PostgreSQL's name of an item without alias, or the
 * lower-cased spelling of an unquoted alias (`AS Total` is "total" for PostgreSQL) to replace it.
 * Undefined for VALUES, whose columns SQLite names as PostgreSQL does (column1, column2 …).
 */
export function columnNames(root: Group): { g: Group; names: Map<number, ColumnName> } | undefined {
  const head = queryHead(root)
  if (!head || !isWord(head.g.items[head.at], 'select')) return undefined
  const { items } = head.g
  const names = new Map<number, ColumnName>()
  for (const [from, to] of selectItems(items, head.at)) {
    const item = significant(items.slice(from, to))
    const last = item[item.length - 1]
    let end = to - 1
    while (items[end]?.k === 'ws') end--
    const alias = aliasOf(item)
    if (alias) {
      if (alias.k === 'ident' && alias.s !== alias.v) names.set(end, { name: alias.v, alias: true })
      continue
    }
    // `*`, `t.*`, and an incomplete item, whose syntax error stays where it was (`SELECT a + FROM`)
    if (!isOperand(last) || (last.k === 'ident' && NOT_CALLS.has(last.v))) continue
    const cases = caseBounds(item)
    if ([...cases.values()].some((b) => b.end < 0)) continue
    names.set(end, { name: nameOf(item, 0, item.length, cases, 0).name, alias: false })
  }
  return { g: head.g, names }
}
