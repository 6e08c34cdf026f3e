// Parses a trigger function body (the DataStore PL/pgSQL subset) into a small syntax tree.
import { PlpgsqlSyntaxError, syntaxErrorAt, tokenize } from './plpgsql-lex'
import { ExprParser, RESERVED, type Expr } from './plpgsql-parse-expr'
import type { SqlType } from './plpgsql-values'

export type { Expr }

export interface Decl {
  name: string
  type: SqlType
  constant: boolean
  notNull: boolean
  init?: Expr
}

export type RaiseLevel = 'debug' | 'log' | 'info' | 'notice' | 'warning' | 'exception'

export type Stmt =
  | { k: 'assign'; rec?: 'new' | 'old'; name: string; e: Expr }
  | { k: 'if'; branches: { cond: Expr; body: Stmt[] }[]; else?: Stmt[] }
  | { k: 'raise'; level: RaiseLevel; format?: string; args: Expr[]; message?: Expr; errcode?: Expr }
  | { k: 'return'; what: 'new' | 'old' | 'null' }
  | { k: 'null' }
  | { k: 'block'; decls: Decl[]; body: Stmt[] }

const LEVELS = new Set(['debug', 'log', 'info', 'notice', 'warning', 'exception'])
// Only MESSAGE and ERRCODE shape the error text; the others are accepted and ignored.
const RAISE_OPTIONS = new Set(
  'message detail hint errcode column constraint datatype table schema'.split(' '),
)
// PL/pgSQL statements outside the dialect get a clearer message than "syntax error".
const UNSUPPORTED = new Set(
  (
    'select insert update delete perform execute loop for foreach while exit continue case ' +
    'get open fetch move close call commit rollback assert exception with'
  ).split(' '),
)

class Parser extends ExprParser {
  parseFunction(): Stmt {
    if (!this.isWord('declare') && !this.isWord('begin')) throw syntaxErrorAt(this.tok)
    const block = this.parseBlock()
    this.eatOp(';')
    if (this.tok.type !== 'eof') throw syntaxErrorAt(this.tok)
    return block
  }

  private parseBlock(): Stmt {
    const decls: Decl[] = []
    if (this.eatWord('declare')) {
      while (!this.isWord('begin')) decls.push(this.parseDecl(decls))
    }
    this.expectWord('begin')
    const body = this.parseStmts(['end'])
    this.expectWord('end')
    return { k: 'block', decls, body }
  }

  // name [CONSTANT] type [NOT NULL] [{:= | = | DEFAULT} expr];
  private parseDecl(seen: Decl[]): Decl {
    const t = this.next()
    if ((t.type !== 'word' && t.type !== 'qword') || (t.type === 'word' && RESERVED.has(t.text)))
      throw syntaxErrorAt(t)
    if (seen.some((d) => d.name === t.text))
      throw new PlpgsqlSyntaxError(`duplicate declaration at or near "${t.raw}"`)
    const constant = this.eatWord('constant')
    const type = this.parseType()
    const notNull = this.isWord('not') && this.isWord('null', this.peek())
    if (notNull) this.i += 2
    let init: Expr | undefined
    if (this.eatOp(':=') || this.eatOp('=') || this.eatWord('default')) init = this.parseExpr()
    this.expectOp(';')
    if (notNull && !init)
      throw new PlpgsqlSyntaxError(
        `variable "${t.text}" must have a default value, since it's declared NOT NULL`,
      )
    return { name: t.text, type, constant, notNull, init }
  }

  private parseStmts(terminators: string[]): Stmt[] {
    const out: Stmt[] = []
    while (!terminators.some((w) => this.isWord(w))) {
      if (this.tok.type === 'eof') throw syntaxErrorAt(this.tok)
      out.push(this.parseStmt())
    }
    return out
  }

  private parseStmt(): Stmt {
    const t = this.tok
    const w = t.type === 'word' ? t.text : undefined
    const assignNext = this.isOp(':=', this.peek()) || this.isOp('=', this.peek())
    if ((w === 'new' || w === 'old') && this.isOp('.', this.peek())) return this.parseAssign()
    if ((t.type === 'word' || t.type === 'qword') && assignNext) return this.parseAssign()
    if (w === 'if') return this.nested(() => this.parseIf())
    if (w === 'raise') return this.parseRaise()
    if (w === 'return') return this.parseReturn()
    if (w === 'null') {
      this.next()
      this.expectOp(';')
      return { k: 'null' }
    }
    if (w === 'declare' || w === 'begin') {
      const block = this.nested(() => this.parseBlock())
      this.expectOp(';')
      return block
    }
    if (w && UNSUPPORTED.has(w))
      throw new PlpgsqlSyntaxError(
        `${w.toUpperCase()} is not supported in DataStore trigger functions`,
      )
    throw syntaxErrorAt(t)
  }

  private parseAssign(): Stmt {
    const t = this.next()
    let rec: 'new' | 'old' | undefined
    let name = t.text
    if (t.type === 'word' && (t.text === 'new' || t.text === 'old') && this.eatOp('.')) {
      rec = t.text
      name = this.fieldName()
    }
    if (!this.eatOp(':=') && !this.eatOp('=')) throw syntaxErrorAt(this.tok)
    const e = this.parseExpr()
    this.expectOp(';')
    return { k: 'assign', rec, name, e }
  }

  private parseIf(): Stmt {
    this.expectWord('if')
    const stops = ['elsif', 'elseif', 'else', 'end']
    const branches: { cond: Expr; body: Stmt[] }[] = []
    do {
      const cond = this.parseExpr()
      this.expectWord('then')
      branches.push({ cond, body: this.parseStmts(stops) })
    } while (this.eatWord('elsif') || this.eatWord('elseif'))
    const otherwise = this.eatWord('else') ? this.parseStmts(['end']) : undefined
    this.expectWord('end')
    this.expectWord('if')
    this.expectOp(';')
    return { k: 'if', branches, else: otherwise }
  }

  // RAISE [level] ['format' [, expr ...]] [USING option = expr [, ...]];
  private parseRaise(): Stmt {
    this.expectWord('raise')
    const isLevel = this.tok.type === 'word' && LEVELS.has(this.tok.text)
    const level = (isLevel ? this.next().text : 'exception') as RaiseLevel
    if (this.isOp(';'))
      throw new PlpgsqlSyntaxError(
        'RAISE without parameters cannot be used outside an exception handler',
      )
    let format: string | undefined
    const args: Expr[] = []
    if (this.tok.type === 'str') {
      format = this.next().text
      while (this.eatOp(',')) args.push(this.parseExpr())
    } else if (!this.isWord('using')) throw syntaxErrorAt(this.tok)
    const options = new Map<string, Expr>()
    if (this.eatWord('using')) {
      do {
        const opt = this.next()
        if (opt.type !== 'word' || !RAISE_OPTIONS.has(opt.text))
          throw new PlpgsqlSyntaxError(`unrecognized RAISE statement option "${opt.raw}"`)
        if (!this.eatOp('=') && !this.eatOp(':=')) throw syntaxErrorAt(this.tok)
        const taken = options.has(opt.text) || (opt.text === 'message' && format !== undefined)
        if (taken)
          throw new PlpgsqlSyntaxError(`RAISE option already specified: ${opt.text.toUpperCase()}`)
        options.set(opt.text, this.parseExpr())
      } while (this.eatOp(','))
    }
    this.expectOp(';')
    const [message, errcode] = [options.get('message'), options.get('errcode')]
    return { k: 'raise', level, format, args, message, errcode }
  }

  private parseReturn(): Stmt {
    this.expectWord('return')
    if (this.isOp(';')) throw new PlpgsqlSyntaxError('missing expression at or near ";"')
    const t = this.next()
    if (t.type !== 'word' || !['new', 'old', 'null'].includes(t.text) || !this.isOp(';'))
      throw new PlpgsqlSyntaxError('RETURN in a trigger function must be NEW, OLD or NULL')
    this.next()
    return { k: 'return', what: t.text as 'new' | 'old' | 'null' }
  }
}

/** The body as a block statement; throws PlpgsqlSyntaxError. */
export function parseFunction(definition: string): Stmt {
  return new Parser(tokenize(definition)).parseFunction()
}

/** NEW.x / OLD.x names in order of first use. */
export function collectFields(stmt: Stmt): string[] {
  const seen = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (!node || typeof node !== 'object') return
    const n = node as Record<string, unknown>
    if ((n.k === 'field' || (n.k === 'assign' && n.rec)) && typeof n.name === 'string')
      seen.add(n.name)
    // The type object of a cast or declaration holds no expressions.
    for (const [key, value] of Object.entries(n)) if (key !== 'type') visit(value)
  }
  visit(stmt)
  return [...seen]
}
