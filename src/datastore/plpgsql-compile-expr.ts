// Compiles trigger-function expressions to closures, inferring types as PostgreSQL resolves them.
import { PlpgsqlSyntaxError } from './plpgsql-lex'
import type { Expr } from './plpgsql-parse-expr'
import { BUILTINS } from './plpgsql-functions'
import { and3, arithmetic, COMPARE_TESTS, isDistinct, negate, not3, or3 } from './plpgsql-ops'
import {
  castLenient,
  castTo,
  checkLength,
  columnType,
  compare,
  KIND_NAMES,
  likeMatcher,
  textOut,
  type Kind,
  type SqlType,
} from './plpgsql-values'

/** A row as the DataStore reads and writes it: column name → JSON value. */
export type Row = Record<string, unknown>

export interface TriggerContext {
  op: 'INSERT' | 'UPDATE'
  table: string
  /** the stored row, for UPDATE */
  old?: Row
  /** now(), current_date: pass one constant time per write, as PostgreSQL's transaction time */
  now: () => string
  /**
   * CKAN type per column (int4, text, numeric...). When given, NEW.x reads as that type,
   * NEW.x := v converts v the way PostgreSQL assigns to the column, and integer columns divide
   * as integers. Without it, values keep their JSON type. Pass the same object for every row of
   * a write: the function is specialised once per object.
   */
  columnTypes?: Record<string, string>
}

/** One run's state: the row being written and the variables' slots. */
export interface Env {
  row: Row
  old: Row | null
  vars: unknown[]
  ctx: TriggerContext
}
export type Ev = (env: Env) => unknown
export interface Compiled {
  ev: Ev
  kind: Kind
}
export interface Variable {
  slot: number
  name: string
  type: SqlType
  constant: boolean
  notNull: boolean
}

const BOOL: SqlType = { kind: 'bool', name: 'boolean' }
const UNTYPED: SqlType = { kind: 'any', name: 'unknown' }
export const TG_VARS: Record<string, (env: Env) => string> = {
  tg_op: (env) => env.ctx.op,
  tg_table_name: (env) => env.ctx.table,
  tg_relname: (env) => env.ctx.table,
  tg_table_schema: () => 'public',
  tg_when: () => 'BEFORE',
  tg_level: () => 'ROW',
}

export const fail = (message: string) => new PlpgsqlSyntaxError(message)
/** A condition's value: NULL, or a boolean (strings such as 'true' and numbers convert). */
export const bool3 = (v: unknown) => (v === null ? null : (castTo(BOOL, v) as boolean))
const sameKind = (kinds: Kind[]): Kind =>
  kinds.length && kinds.every((k) => k === kinds[0]) ? kinds[0]! : 'any'

export class ExprCompiler {
  /** innermost block last */
  protected readonly scope: Map<string, Variable>[] = []
  private readonly types?: Map<string, SqlType>

  constructor(columnTypes?: Record<string, string>) {
    if (columnTypes)
      this.types = new Map(Object.entries(columnTypes).map(([k, v]) => [k, columnType(v)]))
  }

  /** An expression used as a condition: its static type must be boolean or unknown. */
  protected condition(e: Expr, where: string): Ev {
    const c = this.expr(e)
    if (c.kind !== 'bool' && c.kind !== 'any')
      throw fail(`argument of ${where} must be type boolean, not type ${KIND_NAMES[c.kind]}`)
    return c.ev
  }

  protected fieldType(rec: 'new' | 'old', name: string): SqlType {
    if (!this.types) return UNTYPED
    const type = this.types.get(name)
    if (!type) throw fail(`record "${rec}" has no field "${name}"`)
    return type
  }

  protected lookup(name: string): Variable | undefined {
    for (let i = this.scope.length - 1; i >= 0; i--) {
      const found = this.scope[i]!.get(name)
      if (found) return found
    }
    return undefined
  }

  protected expr(e: Expr): Compiled {
    switch (e.k) {
      case 'lit': {
        const v = e.v
        const kind: Kind =
          typeof v === 'number' ? (e.int ? 'int' : 'num') : typeof v === 'boolean' ? 'bool' : 'any'
        return { ev: () => v, kind }
      }
      case 'field':
        return this.field(e.rec, e.name)
      case 'name':
        return this.name(e.name)
      case 'neg': {
        const c = this.expr(e.e)
        const ev = c.ev
        const kind = c.kind === 'int' || c.kind === 'num' ? c.kind : 'any'
        const negated: Ev = (env) => {
          const v = ev(env)
          return v === null ? null : negate(v)
        }
        return { ev: negated, kind }
      }
      case 'not': {
        const ev = this.condition(e.e, 'NOT')
        return { ev: (env) => not3(bool3(ev(env))), kind: 'bool' }
      }
      case 'bin':
        return this.binary(e.op, e.l, e.r)
      case 'is':
        return this.isTest(e)
      case 'distinct': {
        const [l, r] = [this.expr(e.l).ev, this.expr(e.r).ev]
        const not = e.not
        return { ev: (env) => isDistinct(l(env), r(env)) !== not, kind: 'bool' }
      }
      case 'in':
        return this.inList(e)
      case 'like':
        return this.like(e)
      case 'between':
        return this.between(e)
      case 'case':
        return this.caseExpr(e)
      case 'cast': {
        const ev = this.expr(e.e).ev
        const type = e.type
        return { ev: (env) => castTo(type, ev(env)), kind: type.kind }
      }
      case 'call':
        return this.call(e.name, e.args)
    }
  }

  private field(rec: 'new' | 'old', name: string): Compiled {
    const type = this.fieldType(rec, name)
    const read: Ev =
      rec === 'new'
        ? (env) => env.row[name] ?? null
        : (env) => (env.old ? (env.old[name] ?? null) : null)
    if (type.kind === 'any') return { ev: read, kind: 'any' }
    return { ev: (env) => castLenient(type, read(env)), kind: type.kind }
  }

  private name(name: string): Compiled {
    const variable = this.lookup(name)
    if (variable) {
      const slot = variable.slot
      return { ev: (env) => env.vars[slot], kind: variable.type.kind }
    }
    const tg = TG_VARS[name]
    if (tg) return { ev: tg, kind: 'text' }
    throw fail(`column "${name}" does not exist`)
  }

  private binary(op: string, le: Expr, re: Expr): Compiled {
    if (op === 'and' || op === 'or') {
      const where = op.toUpperCase()
      const [l, r] = [this.condition(le, where), this.condition(re, where)]
      // Short-circuit: the right side runs only when the left does not decide.
      const ev: Ev =
        op === 'and'
          ? (env) => {
              const a = bool3(l(env))
              return a === false ? false : and3(a, bool3(r(env)))
            }
          : (env) => {
              const a = bool3(l(env))
              return a === true ? true : or3(a, bool3(r(env)))
            }
      return { ev, kind: 'bool' }
    }
    const lc = this.expr(le)
    const rc = this.expr(re)
    const test = COMPARE_TESTS[op]
    const { apply, kind } =
      op === '||'
        ? {
            apply: (a: unknown, b: unknown) => checkLength(textOut(a) + textOut(b)),
            kind: 'text' as const,
          }
        : test
          ? { apply: (a: unknown, b: unknown) => test(compare(a, b)!), kind: 'bool' as const }
          : arithmetic(op, lc.kind, rc.kind)
    const [l, r] = [lc.ev, rc.ev]
    return {
      ev: (env) => {
        const a = l(env)
        const b = a === null ? null : r(env)
        return b === null ? null : apply(a, b)
      },
      kind,
    }
  }

  private isTest(e: Extract<Expr, { k: 'is' }>): Compiled {
    const { test, not } = e
    const nullTest = test === 'null' || test === 'unknown'
    const ev = nullTest ? this.expr(e.e).ev : this.condition(e.e, 'IS')
    const want = test === 'true'
    const check = nullTest ? (v: unknown) => v === null : (v: unknown) => bool3(v) === want
    return { ev: (env) => check(ev(env)) !== not, kind: 'bool' }
  }

  private inList(e: Extract<Expr, { k: 'in' }>): Compiled {
    const ev = this.expr(e.e).ev
    const list = e.list.map((x) => this.expr(x).ev)
    const not = e.not
    return {
      ev: (env) => {
        const v = ev(env)
        if (v === null) return null
        let sawNull = false
        for (const item of list) {
          const c = compare(v, item(env))
          if (c === 0) return !not
          if (c === null) sawNull = true
        }
        return sawNull ? null : not
      },
      kind: 'bool',
    }
  }

  private like(e: Extract<Expr, { k: 'like' }>): Compiled {
    const ev = this.expr(e.e).ev
    const pat = this.expr(e.pat).ev
    const { ci, not } = e
    // A literal pattern compiles once; computed ones are cached per distinct pattern.
    const literal = e.pat.k === 'lit' ? e.pat.v : null
    const fixed = typeof literal === 'string' ? likeMatcher(literal, ci) : null
    const cache = new Map<string, (value: string) => boolean>()
    const matcher = (p: string) => {
      let m = cache.get(p)
      if (!m) {
        if (cache.size >= 64) cache.clear()
        m = likeMatcher(p, ci)
        cache.set(p, m)
      }
      return m
    }
    return {
      ev: (env) => {
        const v = ev(env)
        const p = v === null ? null : pat(env)
        if (p === null) return null
        return (fixed ?? matcher(textOut(p)))(textOut(v)) !== not
      },
      kind: 'bool',
    }
  }

  private between(e: Extract<Expr, { k: 'between' }>): Compiled {
    const [v, lo, hi] = [this.expr(e.e).ev, this.expr(e.lo).ev, this.expr(e.hi).ev]
    const not = e.not
    return {
      ev: (env) => {
        const x = v(env)
        const a = compare(x, lo(env))
        const b = compare(x, hi(env))
        const within = and3(a === null ? null : a >= 0, b === null ? null : b <= 0)
        return not ? not3(within) : within
      },
      kind: 'bool',
    }
  }

  private caseExpr(e: Extract<Expr, { k: 'case' }>): Compiled {
    const subject = e.subject && this.expr(e.subject).ev
    const whens = e.whens.map((w) => ({
      when: subject ? this.expr(w.when).ev : this.condition(w.when, 'CASE/WHEN'),
      then: this.expr(w.then),
    }))
    const otherwise = e.else && this.expr(e.else)
    const kind = sameKind(
      [...whens, ...(otherwise ? [{ then: otherwise }] : [])].map((w) => w.then.kind),
    )
    const elseEv = otherwise?.ev ?? (() => null)
    const matches = subject
      ? (env: Env, w: Ev) => compare(subject(env), w(env)) === 0
      : (env: Env, w: Ev) => bool3(w(env)) === true
    return {
      ev: (env) => {
        for (const w of whens) if (matches(env, w.when)) return w.then.ev(env)
        return elseEv(env)
      },
      kind,
    }
  }

  private call(name: string, argExprs: Expr[]): Compiled {
    const args = argExprs.map((a) => this.expr(a))
    const evs = args.map((a) => a.ev)
    const kinds = args.map((a) => a.kind)
    if (name === 'coalesce' && evs.length) {
      // Lazy, as in PostgreSQL: later arguments run only when earlier ones are NULL.
      const ev: Ev = (env) => {
        for (const arg of evs) {
          const v = arg(env)
          if (v !== null) return v
        }
        return null
      }
      return { ev, kind: sameKind(kinds) }
    }
    const fn = Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined
    if (!fn || evs.length < fn.min || evs.length > fn.max)
      throw fail(`function ${name}(${kinds.map((k) => KIND_NAMES[k]).join(', ')}) does not exist`)
    const { strict, fn: impl } = fn
    const ev: Ev = (env) => {
      const values = evs.map((arg) => arg(env))
      return strict && values.includes(null) ? null : impl(values, env.ctx.now)
    }
    return { ev, kind: fn.kind(kinds) }
  }
}
