// Parses the SQL expressions and type names inside trigger functions, with PostgreSQL's precedence.
import { syntaxErrorAt, TokenStream } from './plpgsql-lex'
import { isTypeName, parseTypeName, type SqlType } from './plpgsql-values'

export type Expr =
  | { k: 'lit'; v: null | string | number | boolean; int?: boolean }
  | { k: 'field'; rec: 'new' | 'old'; name: string }
  | { k: 'name'; name: string }
  | { k: 'neg' | 'not'; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'is'; e: Expr; test: 'null' | 'true' | 'false' | 'unknown'; not: boolean }
  | { k: 'distinct'; l: Expr; r: Expr; not: boolean }
  | { k: 'in'; e: Expr; list: Expr[]; not: boolean }
  | { k: 'like'; e: Expr; pat: Expr; ci: boolean; not: boolean }
  | { k: 'between'; e: Expr; lo: Expr; hi: Expr; not: boolean }
  | { k: 'case'; subject?: Expr; whens: { when: Expr; then: Expr }[]; else?: Expr }
  | { k: 'cast'; e: Expr; type: SqlType }
  | { k: 'call'; name: string; args: Expr[] }

/** Words that cannot start or stand for an operand. */
export const RESERVED = new Set(
  (
    'and or not is in like ilike between then else elsif elseif end when from for as if ' +
    'begin declare return raise distinct using loop'
  ).split(' '),
)
const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>='])
const NEGATABLE = ['like', 'ilike', 'in', 'between']
const TYPE_STOPS = new Set(['not', 'default', 'collate', 'constant'])
const NIL_ARY = new Set(['current_date', 'current_timestamp', 'localtimestamp'])

export class ExprParser extends TokenStream {
  /** Lowest precedence first, in PostgreSQL's order. */
  parseExpr(): Expr {
    return this.nested(() => this.parseOr())
  }

  /** A type name: words (double precision, character varying...), (modifiers), []. */
  protected parseType(): SqlType {
    const start = this.tok
    const words: string[] = []
    // "timestamp with time zone" is several words, but "x int not null" must stop at NOT.
    while (
      this.tok.type === 'word' &&
      !RESERVED.has(this.tok.text) &&
      !TYPE_STOPS.has(this.tok.text)
    )
      words.push(this.next().text)
    if (!words.length) throw syntaxErrorAt(start)
    if (this.eatOp('(')) {
      while (!this.eatOp(')')) {
        if (this.tok.type !== 'num' && !this.isOp(',')) throw syntaxErrorAt(this.tok)
        this.next()
      }
    }
    let array = false
    while (this.eatOp('[')) {
      if (this.tok.type === 'num') this.next()
      this.expectOp(']')
      array = true
    }
    return parseTypeName(words.join(' '), array)
  }

  /** A column name after NEW. / OLD. (keywords allowed). */
  protected fieldName(): string {
    const t = this.next()
    if (t.type !== 'word' && t.type !== 'qword') throw syntaxErrorAt(t)
    return t.text
  }

  /**
   * operand (op operand)*, left-associative. Each link makes the tree one level deeper, so it
   * counts toward the nesting limit too.
   */
  private chain(operand: () => Expr, op: () => string | undefined): Expr {
    let l = operand()
    let links = 0
    try {
      for (let o = op(); o !== undefined; o = op()) {
        this.deepen(1)
        links++
        l = { k: 'bin', op: o, l, r: operand() }
      }
    } finally {
      this.shallower(links)
    }
    return l
  }

  private parseOr(): Expr {
    return this.chain(
      () => this.parseAnd(),
      () => (this.eatWord('or') ? 'or' : undefined),
    )
  }

  private parseAnd(): Expr {
    return this.chain(
      () => this.parseNot(),
      () => (this.eatWord('and') ? 'and' : undefined),
    )
  }

  private parseNot(): Expr {
    if (!this.eatWord('not')) return this.parseIs()
    return { k: 'not', e: this.nested(() => this.parseNot()) }
  }

  private parseIs(): Expr {
    const e = this.parseComparison()
    return this.isWord('is') ? this.nested(() => this.isTail(e)) : e
  }

  // e IS [NOT] {NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM x}, then maybe IS ... again
  private isTail(subject: Expr): Expr {
    this.expectWord('is')
    const not = this.eatWord('not')
    const t = this.next()
    const w = t.type === 'word' ? t.text : ''
    let e: Expr
    if (w === 'null' || w === 'true' || w === 'false' || w === 'unknown') {
      e = { k: 'is', e: subject, test: w, not }
    } else if (w === 'distinct') {
      this.expectWord('from')
      e = { k: 'distinct', l: subject, r: this.parseComparison(), not }
    } else throw syntaxErrorAt(t)
    return this.isWord('is') ? this.nested(() => this.isTail(e)) : e
  }

  private parseComparison(): Expr {
    const l = this.parseMembership()
    if (this.tok.type !== 'op' || !COMPARISONS.has(this.tok.text)) return l
    const op = this.next().text
    return { k: 'bin', op: op === '!=' ? '<>' : op, l, r: this.parseMembership() }
  }

  private parseMembership(): Expr {
    const e = this.parseConcat()
    const not = this.isWord('not') && NEGATABLE.some((w) => this.isWord(w, this.peek()))
    if (not) this.next()
    if (this.eatWord('like')) return { k: 'like', e, pat: this.parseConcat(), ci: false, not }
    if (this.eatWord('ilike')) return { k: 'like', e, pat: this.parseConcat(), ci: true, not }
    if (this.eatWord('between')) {
      const lo = this.parseConcat()
      this.expectWord('and')
      return { k: 'between', e, lo, hi: this.parseConcat(), not }
    }
    if (this.eatWord('in')) {
      this.expectOp('(')
      return { k: 'in', e, list: this.parseList(), not }
    }
    return e
  }

  /** Comma-separated expressions up to and including ")". */
  private parseList(): Expr[] {
    const list = [this.parseExpr()]
    while (this.eatOp(',')) list.push(this.parseExpr())
    this.expectOp(')')
    return list
  }

  private parseConcat(): Expr {
    return this.chain(
      () => this.parseAdditive(),
      () => (this.eatOp('||') ? '||' : undefined),
    )
  }

  private parseAdditive(): Expr {
    return this.chain(
      () => this.parseMultiplicative(),
      () => this.eatAnyOp(['+', '-']),
    )
  }

  private parseMultiplicative(): Expr {
    return this.chain(
      () => this.parseUnary(),
      () => this.eatAnyOp(['*', '/', '%']),
    )
  }

  private eatAnyOp(ops: string[]): string | undefined {
    const op = ops.find((o) => this.isOp(o))
    if (op) this.next()
    return op
  }

  private parseUnary(): Expr {
    if (this.eatOp('+')) return this.nested(() => this.parseUnary())
    if (!this.eatOp('-')) return this.parseCast()
    const e = this.nested(() => this.parseUnary())
    // A negated number stays a literal, keeping its integer/numeric type.
    return e.k === 'lit' && typeof e.v === 'number' ? { ...e, v: -e.v } : { k: 'neg', e }
  }

  private parseCast(): Expr {
    const e = this.parsePrimary()
    return this.eatOp('::') ? this.nested(() => this.castTail(e)) : e
  }

  private castTail(e: Expr): Expr {
    const cast: Expr = { k: 'cast', e, type: this.parseType() }
    return this.eatOp('::') ? this.nested(() => this.castTail(cast)) : cast
  }

  private parsePrimary(): Expr {
    const t = this.next()
    if (t.type === 'num') return { k: 'lit', v: Number(t.text), int: /^\d+$/.test(t.text) }
    if (t.type === 'str') return { k: 'lit', v: t.text }
    if (t.type === 'qword') return { k: 'name', name: t.text }
    if (this.isOp('(', t)) {
      const e = this.parseExpr()
      this.expectOp(')')
      return e
    }
    if (t.type !== 'word' || RESERVED.has(t.text)) throw syntaxErrorAt(t)
    if (t.text === 'null') return { k: 'lit', v: null }
    if (t.text === 'true' || t.text === 'false') return { k: 'lit', v: t.text === 'true' }
    if (t.text === 'case') return this.nested(() => this.parseCase())
    if (NIL_ARY.has(t.text)) return { k: 'call', name: t.text, args: [] }
    // SQL's typed literal: date '2024-01-31' is '2024-01-31'::date.
    if (this.tok.type === 'str' && isTypeName(t.text))
      return { k: 'cast', e: { k: 'lit', v: this.next().text }, type: parseTypeName(t.text, false) }
    if ((t.text === 'new' || t.text === 'old') && this.eatOp('.'))
      return { k: 'field', rec: t.text, name: this.fieldName() }
    if (!this.eatOp('(')) return { k: 'name', name: t.text }
    return this.parseCall(t.text)
  }

  private parseCase(): Expr {
    const subject = this.isWord('when') ? undefined : this.parseExpr()
    const whens: { when: Expr; then: Expr }[] = []
    while (this.eatWord('when')) {
      const when = this.parseExpr()
      this.expectWord('then')
      whens.push({ when, then: this.parseExpr() })
    }
    if (!whens.length) throw syntaxErrorAt(this.tok)
    const otherwise = this.eatWord('else') ? this.parseExpr() : undefined
    this.expectWord('end')
    return { k: 'case', subject, whens, else: otherwise }
  }

  /** After "name(": SQL's special argument syntaxes, then a plain argument list. */
  private parseCall(name: string): Expr {
    if (name === 'cast') {
      const e = this.parseExpr()
      this.expectWord('as')
      const type = this.parseType()
      this.expectOp(')')
      return { k: 'cast', e, type }
    }
    if (name === 'position') {
      const needle = this.parseConcat()
      this.expectWord('in')
      const haystack = this.parseConcat()
      this.expectOp(')')
      return { k: 'call', name: 'strpos', args: [haystack, needle] }
    }
    if (name === 'trim') return this.parseTrim()
    if (this.eatOp(')')) return { k: 'call', name, args: [] }
    const first = this.parseExpr()
    if (name === 'substring' && (this.isWord('from') || this.isWord('for'))) {
      const from: Expr = this.eatWord('from') ? this.parseExpr() : { k: 'lit', v: 1, int: true }
      const args = [first, from]
      if (this.eatWord('for')) args.push(this.parseExpr())
      this.expectOp(')')
      return { k: 'call', name, args }
    }
    return {
      k: 'call',
      name,
      args: this.eatOp(',') ? [first, ...this.parseList()] : this.close([first]),
    }
  }

  private close(args: Expr[]): Expr[] {
    this.expectOp(')')
    return args
  }

  // trim([both | leading | trailing] [chars] [from] string)
  private parseTrim(): Expr {
    const side = ['both', 'leading', 'trailing'].find((w) => this.eatWord(w)) ?? 'both'
    const name = side === 'leading' ? 'ltrim' : side === 'trailing' ? 'rtrim' : 'btrim'
    if (this.eatWord('from')) return { k: 'call', name, args: this.parseList() }
    const first = this.parseExpr()
    if (this.eatWord('from'))
      return { k: 'call', name, args: [this.parseExpr(), ...this.close([first])] }
    return {
      k: 'call',
      name,
      args: this.eatOp(',') ? [first, ...this.parseList()] : this.close([first]),
    }
  }
}
