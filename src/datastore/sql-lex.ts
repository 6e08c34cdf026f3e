// datastore_search_sql: reads a statement as PostgreSQL would (tokens, a tree of parenthesised
// groups, type names) and writes it back; sql-names.ts names the result columns from that tree.
// Checks and rewrites (sql-guard.ts) look only at neighbours on one level of that tree, so any
// input costs linear time (this runs on the event loop, for anonymous callers too).

/** A refused statement: kind 'query' → 409 {"query": [message]}, kind 'syntax' → the same with
 *  the statement under info (as CKAN reports the database's errors), kind 'auth' → 403. */
export class SqlRefused extends Error {
  constructor(
    message: string,
    readonly kind: 'auth' | 'query' | 'syntax',
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
