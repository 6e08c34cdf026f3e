// Wildcard and Lucene regular-expression matching in time linear in the text (no backtracking).
// A JavaScript RegExp backtracks: `name:/(a+)+b/` or `*a*a*a*a*a*b` against a long term took
// exponential or high-polynomial time, with nothing able to interrupt it. These matchers take at
// most (text length × pattern size) steps, so a query's cost is bounded by what it scans.
import { QueryParseError } from './query'

const STAR = -1
const ONE = -2

/** A compiled Solr wildcard (`*` any run, `?` one character, `\` escapes). */
export function wildcardMatcher(pattern: string): (text: string) => boolean {
  const p: number[] = []
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.codePointAt(i)!
    if (c > 0xffff) i++
    if (c === 42) {
      if (p[p.length - 1] !== STAR) p.push(STAR) // `**` is `*`
    } else if (c === 63) p.push(ONE)
    else if (c === 92 && i + 1 < pattern.length) {
      const next = pattern.codePointAt(++i)!
      if (next > 0xffff) i++
      p.push(next)
    } else p.push(c)
  }
  return (text) => globMatch(p, codePoints(text))
}

function codePoints(s: string): number[] {
  const out: number[] = []
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i)!
    if (c > 0xffff) i++
    out.push(c)
  }
  return out
}

/** Greedy match that only ever backs up to the last `*`: O(text × pattern) at worst. */
function globMatch(p: number[], s: number[]): boolean {
  let i = 0
  let j = 0
  let star = -1
  let mark = 0
  while (i < s.length) {
    if (j < p.length && (p[j] === ONE || p[j] === s[i])) {
      i++
      j++
    } else if (j < p.length && p[j] === STAR) {
      star = j++
      mark = i
    } else if (star >= 0) {
      j = star + 1
      i = ++mark
    } else return false
  }
  while (j < p.length && p[j] === STAR) j++
  return j === p.length
}

// ---- Lucene regular expressions (what Solr's `field:/…/` means) ----
//
// Supported: literals, `\` escapes (and `\d \D \s \S \w \W`), `.`, `[…]` and `[^…]` classes with
// ranges, grouping `( )`, alternation `|`, `*` `+` `?` `{n}` `{n,}` `{n,m}`, `"…"` literal strings,
// `@` (any string) and `#` (the empty language). The match is anchored at both ends, as in Lucene.
// Lucene's complement `~`, intersection `&` and numeric intervals `<n-m>` need automata operations
// a backtracking-free simulation cannot do cheaply; they are refused with a query error.

/** States of a Thompson automaton; an NFA never holds more than MAX_STATES of them. */
const MAX_STATES = 10_000
const MAX_REPEAT = 1000

type CharTest = (c: number) => boolean
interface State {
  test: CharTest | null // null: a split (epsilon to out and alt) or the match state
  out: State | null
  alt: State | null
  match: boolean
  mark: number
}

type Node =
  | { k: 'char'; test: CharTest }
  | { k: 'cat'; parts: Node[] }
  | { k: 'alt'; parts: Node[] }
  | { k: 'rep'; node: Node; min: number; max: number } // max -1: unbounded
  | { k: 'empty' }
  | { k: 'none' }

const ANY: CharTest = () => true
const isDigit: CharTest = (c) => c >= 48 && c <= 57
const isSpace: CharTest = (c) => c === 32 || (c >= 9 && c <= 13)
const isWord: CharTest = (c) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const SHORTHAND: Record<string, CharTest> = {
  d: isDigit,
  D: (c) => !isDigit(c),
  s: isSpace,
  S: (c) => !isSpace(c),
  w: isWord,
  W: (c) => !isWord(c),
}

class RegexpParser {
  private i = 0
  private readonly cs: number[]
  constructor(private readonly src: string) {
    this.cs = codePoints(src)
  }

  private fail(why: string): never {
    throw new QueryParseError(`invalid regular expression /${this.src}/: ${why}`)
  }
  private peek(): number | undefined {
    return this.cs[this.i]
  }
  private eat(c: string): boolean {
    if (this.cs[this.i] === c.codePointAt(0)) {
      this.i++
      return true
    }
    return false
  }

  parse(): Node {
    const n = this.union()
    if (this.i < this.cs.length) this.fail(`unexpected '${String.fromCodePoint(this.cs[this.i]!)}'`)
    return n
  }

  private union(): Node {
    const parts = [this.concat()]
    while (this.eat('|')) parts.push(this.concat())
    return parts.length === 1 ? parts[0]! : { k: 'alt', parts }
  }

  private concat(): Node {
    const parts: Node[] = []
    for (;;) {
      const c = this.peek()
      if (c === undefined || c === 124 /* | */ || c === 41 /* ) */) break
      if (c === 38 /* & */) this.fail("intersection '&' is not supported")
      parts.push(this.repeat())
    }
    return parts.length === 1 ? parts[0]! : { k: 'cat', parts }
  }

  private repeat(): Node {
    let n = this.simple()
    for (;;) {
      if (this.eat('*')) n = { k: 'rep', node: n, min: 0, max: -1 }
      else if (this.eat('+')) n = { k: 'rep', node: n, min: 1, max: -1 }
      else if (this.eat('?')) n = { k: 'rep', node: n, min: 0, max: 1 }
      else if (this.peek() === 123 /* { */) {
        this.i++
        const min = this.number()
        let max = min
        if (this.eat(',')) max = this.peek() === 125 ? -1 : this.number()
        if (!this.eat('}')) this.fail("expected '}'")
        if (max !== -1 && max < min) this.fail('repetition bounds out of order')
        if (min > MAX_REPEAT || max > MAX_REPEAT) this.fail(`repetition above ${MAX_REPEAT}`)
        n = { k: 'rep', node: n, min, max }
      } else return n
    }
  }

  private number(): number {
    let s = ''
    while (this.peek() !== undefined && isDigit(this.peek()!)) s += String.fromCodePoint(this.cs[this.i++]!)
    if (!s) this.fail('expected a number')
    return Number(s.slice(0, 7))
  }

  private simple(): Node {
    const c = this.cs[this.i++]
    switch (c) {
      case undefined:
        return this.fail('unexpected end')
      case 40: {
        // (
        if (this.eat(')')) return { k: 'empty' }
        const n = this.union()
        if (!this.eat(')')) this.fail("expected ')'")
        return n
      }
      case 91: // [
        return this.charClass()
      case 46: // .
        return { k: 'char', test: ANY }
      case 64: // @
        return { k: 'rep', node: { k: 'char', test: ANY }, min: 0, max: -1 }
      case 35: // #
        return { k: 'none' }
      case 34: {
        // "literal"
        const parts: Node[] = []
        while (this.peek() !== 34) {
          if (this.peek() === undefined) this.fail('unterminated string')
          const ch = this.cs[this.i++]!
          parts.push({ k: 'char', test: (x) => x === ch })
        }
        this.i++
        return { k: 'cat', parts }
      }
      case 126: // ~
        return this.fail("complement '~' is not supported")
      case 60: // <
        return this.fail("numeric intervals '<n-m>' are not supported")
      case 92: {
        // \
        const e = this.cs[this.i++]
        if (e === undefined) this.fail('trailing backslash')
        const short = SHORTHAND[String.fromCodePoint(e)]
        return { k: 'char', test: short ?? ((x) => x === e) }
      }
      case 42: // *
      case 43: // +
      case 63: // ?
      case 123: // {
        return this.fail(`nothing to repeat before '${String.fromCodePoint(c)}'`)
      default:
        return { k: 'char', test: (x) => x === c }
    }
  }

  private charClass(): Node {
    const negate = this.eat('^')
    const tests: CharTest[] = []
    let first = true
    while (first || this.peek() !== 93 /* ] */) {
      first = false
      const lo = this.classChar()
      if (typeof lo === 'function') {
        tests.push(lo)
        continue
      }
      if (this.peek() === 45 /* - */ && this.cs[this.i + 1] !== 93 && this.cs[this.i + 1] !== undefined) {
        this.i++
        const hi = this.classChar()
        if (typeof hi === 'function') this.fail('a range cannot end in a class')
        if (hi < lo) this.fail('character range out of order')
        tests.push((x) => x >= lo && x <= hi)
      } else tests.push((x) => x === lo)
    }
    this.i++
    const inClass: CharTest = (x) => tests.some((t) => t(x))
    return { k: 'char', test: negate ? (x) => !inClass(x) : inClass }
  }

  private classChar(): number | CharTest {
    const c = this.cs[this.i++]
    if (c === undefined) this.fail("expected ']'")
    if (c !== 92) return c
    const e = this.cs[this.i++]
    if (e === undefined) this.fail('trailing backslash')
    return SHORTHAND[String.fromCodePoint(e)] ?? e
  }
}

/** Builds the automaton; each call of `build` on a node makes fresh states (repetitions copy). */
class Builder {
  count = 0
  constructor(private readonly src: string) {}

  state(test: CharTest | null, out: State | null = null, alt: State | null = null): State {
    if (++this.count > MAX_STATES) {
      throw new QueryParseError(`invalid regular expression /${this.src}/: too large`)
    }
    return { test, out, alt, match: false, mark: -1 }
  }

  /** The automaton of `n` followed by `next`; returns its start. */
  build(n: Node, next: State): State {
    switch (n.k) {
      case 'char':
        return this.state(n.test, next)
      case 'empty':
        return next
      case 'none':
        return this.state(() => false, next)
      case 'cat': {
        let s = next
        for (let i = n.parts.length - 1; i >= 0; i--) s = this.build(n.parts[i]!, s)
        return s
      }
      case 'alt': {
        const starts = n.parts.map((p) => this.build(p, next))
        let s = starts[starts.length - 1]!
        for (let i = starts.length - 2; i >= 0; i--) s = this.state(null, starts[i]!, s)
        return s
      }
      case 'rep': {
        let tail: State
        if (n.max === -1) {
          // a loop: split → (node → split) | next
          const loop = this.state(null, null, next)
          loop.out = this.build(n.node, loop)
          tail = loop
        } else {
          tail = next
          for (let k = n.max - n.min; k > 0; k--) tail = this.state(null, this.build(n.node, tail), next)
        }
        for (let k = n.min; k > 0; k--) tail = this.build(n.node, tail)
        return tail
      }
    }
  }
}

/** A compiled Lucene regular expression, anchored at both ends. */
export function luceneRegexpMatcher(pattern: string): (text: string) => boolean {
  const ast = new RegexpParser(pattern).parse()
  const b = new Builder(pattern)
  const final = b.state(null)
  final.match = true
  const start = b.build(ast, final)
  let generation = 0
  const add = (list: State[], s: State | null, gen: number) => {
    // iterative epsilon closure (a deep chain of splits must not overflow the stack)
    const stack: (State | null)[] = [s]
    while (stack.length) {
      const st = stack.pop()!
      if (!st || st.mark === gen) continue
      st.mark = gen
      if (st.test || st.match) list.push(st)
      else stack.push(st.alt, st.out)
    }
  }
  return (text) => {
    let cur: State[] = []
    add(cur, start, ++generation)
    for (let i = 0; i < text.length && cur.length; i++) {
      const c = text.codePointAt(i)!
      if (c > 0xffff) i++
      const next: State[] = []
      const gen = ++generation
      for (const st of cur) if (st.test?.(c)) add(next, st.out, gen)
      cur = next
    }
    return cur.some((st) => st.match)
  }
}
