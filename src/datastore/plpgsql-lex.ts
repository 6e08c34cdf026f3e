// Splits a trigger function body into tokens the way PostgreSQL's scanner does (for our subset).

/** A definition the dialect cannot accept; the message follows PostgreSQL's wording. */
export class PlpgsqlSyntaxError extends Error {
  override name = 'PlpgsqlSyntaxError'
}

export type TokenType = 'word' | 'qword' | 'str' | 'num' | 'op' | 'eof'

export interface Token {
  type: TokenType
  /** word: lower-cased; qword/str: the decoded text; num/op: as written */
  text: string
  /** the source text, for error messages */
  raw: string
}

export const syntaxErrorAt = (tok: Token) =>
  new PlpgsqlSyntaxError(
    tok.type === 'eof' ? 'syntax error at end of input' : `syntax error at or near "${tok.raw}"`,
  )

const OPS = [':=', '::', '<>', '!=', '<=', '>=', '||', '=', '<', '>', '+', '-', '*', '/', '%']
const PUNCT = '(),;.[]'
const WORD_START = /[A-Za-z_\u0080-\uffff]/
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y
const DOLLAR_TAG = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y

// PostgreSQL folds only ASCII letters of unquoted identifiers.
const fold = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

const unterminated = (what: string, src: string, at: number) =>
  new PlpgsqlSyntaxError(`unterminated ${what} at or near "${src.slice(at, at + 40)}"`)

export function tokenize(src: string): Token[] {
  const out: Token[] = []
  let i = 0
  const push = (type: TokenType, text: string, start: number) =>
    out.push({ type, text, raw: src.slice(start, i) })
  while (i < src.length) {
    const c = src[i]!
    const start = i
    if (/\s/.test(c)) {
      i++
    } else if (src.startsWith('--', i)) {
      const nl = src.indexOf('\n', i)
      i = nl < 0 ? src.length : nl + 1
    } else if (src.startsWith('/*', i)) {
      i = skipBlockComment(src, i)
    } else if (c === "'") {
      const [text, end] = readQuoted(src, i, "'", 'quoted string')
      i = end
      push('str', text, start)
    } else if ((c === 'E' || c === 'e') && src[i + 1] === "'") {
      const [text, end] = readEscapeString(src, i + 1)
      i = end
      push('str', text, start)
    } else if (c === '"') {
      const [text, end] = readQuoted(src, i, '"', 'quoted identifier')
      i = end
      if (text === '')
        throw new PlpgsqlSyntaxError('zero-length delimited identifier at or near """"')
      push('qword', text, start)
    } else if (c === '$' && dollarTag(src, i)) {
      const tag = dollarTag(src, i)!
      const end = src.indexOf(tag, i + tag.length)
      if (end < 0) throw unterminated('dollar-quoted string', src, i)
      i = end + tag.length
      push('str', src.slice(start + tag.length, end), start)
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      NUMBER.lastIndex = i
      i += NUMBER.exec(src)![0].length
      if (i < src.length && WORD_PART.test(src[i]!)) {
        while (i < src.length && WORD_PART.test(src[i]!)) i++
        throw new PlpgsqlSyntaxError(
          `trailing junk after numeric literal at or near "${src.slice(start, i)}"`,
        )
      }
      push('num', src.slice(start, i), start)
    } else if (WORD_START.test(c)) {
      while (i < src.length && WORD_PART.test(src[i]!)) i++
      push('word', fold(src.slice(start, i)), start)
    } else {
      const op = OPS.find((o) => src.startsWith(o, i)) ?? (PUNCT.includes(c) ? c : undefined)
      if (!op) throw new PlpgsqlSyntaxError(`syntax error at or near "${c}"`)
      i += op.length
      push('op', op, start)
    }
  }
  out.push({ type: 'eof', text: '', raw: '' })
  return out
}

function dollarTag(src: string, at: number): string | undefined {
  DOLLAR_TAG.lastIndex = at
  return DOLLAR_TAG.exec(src)?.[0]
}

// PostgreSQL block comments nest.
function skipBlockComment(src: string, at: number): number {
  let depth = 0
  let i = at
  while (i < src.length) {
    if (src.startsWith('/*', i)) {
      depth++
      i += 2
    } else if (src.startsWith('*/', i)) {
      depth--
      i += 2
      if (depth === 0) return i
    } else i++
  }
  throw unterminated('/* comment', src, at)
}

/** A '...' or "..." run where a doubled quote stands for one; returns [text, index after]. */
function readQuoted(src: string, at: number, q: string, what: string): [string, number] {
  let text = ''
  let i = at + 1
  for (;;) {
    const end = src.indexOf(q, i)
    if (end < 0) throw unterminated(what, src, at)
    text += src.slice(i, end)
    if (src[end + 1] !== q) return [text, end + 1]
    text += q
    i = end + 2
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/** E'...' with C-style backslash escapes (at = the opening quote). */
function readEscapeString(src: string, at: number): [string, number] {
  let text = ''
  let i = at + 1
  while (i < src.length) {
    const c = src[i]!
    if (c === "'") {
      if (src[i + 1] !== "'") return [text, i + 1]
      text += "'"
      i += 2
    } else if (c === '\\' && i + 1 < src.length) {
      const [ch, len] = decodeEscape(src, i + 1)
      text += ch
      i += 1 + len
    } else {
      text += c
      i++
    }
  }
  throw unterminated('quoted string', src, at - 1)
}

function decodeEscape(src: string, at: number): [string, number] {
  const c = src[at]!
  if (c in SIMPLE_ESCAPES) return [SIMPLE_ESCAPES[c]!, 1]
  const oct = /^[0-7]{1,3}/.exec(src.slice(at, at + 3))
  if (oct) return [String.fromCharCode(parseInt(oct[0], 8)), oct[0].length]
  const hex =
    (c === 'x' && /^[0-9a-fA-F]{1,2}/.exec(src.slice(at + 1, at + 3))) ||
    (c === 'u' && /^[0-9a-fA-F]{4}/.exec(src.slice(at + 1, at + 5))) ||
    (c === 'U' && /^[0-9a-fA-F]{8}/.exec(src.slice(at + 1, at + 9)))
  if (hex) {
    const code = parseInt(hex[0], 16)
    if (code > 0x10ffff) throw new PlpgsqlSyntaxError('invalid Unicode escape value')
    return [String.fromCodePoint(code), 1 + hex[0].length]
  }
  return [c, 1]
}

// How deep a definition may nest before it is refused, so that parsing, compiling and running it
// never exhaust the JS stack. A nested statement or parenthesis costs NEST (it recurses through
// every precedence level); each link of an operator chain (a + b + ...) costs 1.
const MAX_DEPTH = 1000
export const NEST = 10

/** Cursor over the tokens, shared by the expression and statement parsers. */
export class TokenStream {
  protected i = 0
  private depth = 0
  constructor(protected readonly toks: Token[]) {}

  protected get tok() {
    return this.toks[this.i]!
  }
  protected peek(n = 1) {
    return this.toks[Math.min(this.i + n, this.toks.length - 1)]!
  }
  protected next() {
    const t = this.tok
    if (t.type !== 'eof') this.i++
    return t
  }
  /** An unquoted word: keywords are never quoted. */
  protected isWord(w: string, t = this.tok) {
    return t.type === 'word' && t.text === w
  }
  protected isOp(o: string, t = this.tok) {
    return t.type === 'op' && t.text === o
  }
  protected eatWord(w: string) {
    if (!this.isWord(w)) return false
    this.i++
    return true
  }
  protected eatOp(o: string) {
    if (!this.isOp(o)) return false
    this.i++
    return true
  }
  protected expectWord(w: string) {
    if (!this.eatWord(w)) throw syntaxErrorAt(this.tok)
  }
  protected expectOp(o: string) {
    if (!this.eatOp(o)) throw syntaxErrorAt(this.tok)
  }
  /** Deeper in the syntax tree; deep enough to risk the JS stack is refused. */
  protected deepen(cost: number) {
    this.depth += cost
    if (this.depth > MAX_DEPTH) throw new PlpgsqlSyntaxError('stack depth limit exceeded')
  }
  protected shallower(cost: number) {
    this.depth -= cost
  }
  /** Runs a recursive step one nesting level deeper. */
  protected nested<T>(step: () => T): T {
    this.deepen(NEST)
    try {
      return step()
    } finally {
      this.shallower(NEST)
    }
  }
}
