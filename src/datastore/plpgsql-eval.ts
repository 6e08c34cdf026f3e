// Turns a parsed trigger function into closures, so a row costs no parsing or tree walking.
import type { Stmt } from './plpgsql-parse'
import {
  bool3,
  ExprCompiler,
  fail,
  TG_VARS,
  type Env,
  type Row,
  type TriggerContext,
  type Variable,
} from './plpgsql-compile-expr'
import { castTo, textOut, TriggerRaise } from './plpgsql-values'

export type { Row, TriggerContext }
export type Program = (newRow: Row, ctx: TriggerContext) => Row | null

/** 0: carry on; 1, 2, 3: RETURN NEW, OLD, NULL */
type Flow = 0 | 1 | 2 | 3
type Exec = (env: Env) => Flow
type StmtOf<K extends Stmt['k']> = Extract<Stmt, { k: K }>

const RETURNS: Record<string, Flow> = { new: 1, old: 2, null: 3 }
const carryOn: Exec = () => 0

class Compiler extends ExprCompiler {
  slots = 0
  assignsNew = false

  block(stmt: StmtOf<'block'>): Exec {
    const frame = new Map<string, Variable>()
    this.scope.push(frame)
    // PostgreSQL runs the initialisers each time the block is entered, in order.
    const inits = stmt.decls.map(({ init, ...decl }) => {
      const value = init && this.expr(init).ev
      const variable = { ...decl, slot: this.slots++ }
      frame.set(decl.name, variable)
      return (env: Env) => store(variable, env, value ? value(env) : null)
    })
    const body = this.list(stmt.body)
    this.scope.pop()
    return (env) => {
      for (const init of inits) init(env)
      return body(env)
    }
  }

  private list(stmts: Stmt[]): Exec {
    const execs = stmts.map((s) => this.stmt(s))
    return (env) => {
      for (const exec of execs) {
        const flow = exec(env)
        if (flow) return flow
      }
      return 0
    }
  }

  private stmt(s: Stmt): Exec {
    switch (s.k) {
      case 'block':
        return this.block(s)
      case 'null':
        return carryOn
      case 'return': {
        const flow = RETURNS[s.what]!
        return () => flow
      }
      case 'assign':
        return this.assign(s)
      case 'if':
        return this.ifStmt(s)
      case 'raise':
        return this.raise(s)
    }
  }

  private assign(s: StmtOf<'assign'>): Exec {
    if (s.rec === 'old') throw fail('OLD is read-only in DataStore trigger functions')
    const value = this.expr(s.e).ev
    if (s.rec === 'new') {
      const type = this.fieldType('new', s.name)
      const name = s.name
      this.assignsNew = true
      return (env) => {
        env.row[name] = castTo(type, value(env))
        return 0
      }
    }
    const variable = this.lookup(s.name)
    if (variable?.constant || (!variable && s.name in TG_VARS))
      throw fail(`variable "${s.name}" is declared CONSTANT`)
    if (!variable) throw fail(`"${s.name}" is not a known variable`)
    return (env) => {
      store(variable, env, value(env))
      return 0
    }
  }

  private ifStmt(s: StmtOf<'if'>): Exec {
    const branches = s.branches.map((b) => ({
      cond: this.condition(b.cond, 'IF'),
      body: this.list(b.body),
    }))
    const otherwise = s.else ? this.list(s.else) : carryOn
    return (env) => {
      for (const b of branches) if (bool3(b.cond(env)) === true) return b.body(env)
      return otherwise(env)
    }
  }

  private raise(s: StmtOf<'raise'>): Exec {
    const parts = s.format === undefined ? [] : splitFormat(s.format)
    const holes = Math.max(parts.length - 1, 0)
    if (s.args.length < holes) throw fail('too few parameters specified for RAISE')
    if (s.args.length > holes) throw fail('too many parameters specified for RAISE')
    const args = s.args.map((a) => this.expr(a).ev)
    const option = s.message ?? s.errcode
    const message = option ? this.expr(option).ev : () => 'P0001'
    // NOTICE and the other levels go to PostgreSQL's log; there is no such log here.
    if (s.level !== 'exception') return carryOn
    if (s.format === undefined)
      return (env) => {
        const v = message(env)
        if (v === null) throw new TriggerRaise('RAISE statement option cannot be null')
        throw new TriggerRaise(textOut(v))
      }
    return (env) => {
      let text = parts[0]!
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!(env)
        text += (v === null ? '<NULL>' : textOut(v)) + parts[i + 1]!
      }
      throw new TriggerRaise(text)
    }
  }
}

function store(variable: Variable, env: Env, v: unknown) {
  const value = castTo(variable.type, v)
  if (value === null && variable.notNull)
    throw new TriggerRaise(
      `null value cannot be assigned to variable "${variable.name}" declared NOT NULL`,
    )
  env.vars[variable.slot] = value
}

/** The format split at each lone % ("%%" is a literal %). */
function splitFormat(format: string): string[] {
  const parts = ['']
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!
    if (c !== '%') parts[parts.length - 1] += c
    else if (format[i + 1] === '%') {
      parts[parts.length - 1] += '%'
      i++
    } else parts.push('')
  }
  return parts
}

/** Compiles a parsed function; throws PlpgsqlSyntaxError for names or calls it cannot resolve. */
export function compileProgram(ast: Stmt, columnTypes?: Record<string, string>): Program {
  if (ast.k !== 'block') throw fail('a trigger function body must be a block')
  const compiler = new Compiler(columnTypes)
  const body = compiler.block(ast)
  const { assignsNew, slots } = compiler
  return (newRow, ctx) => {
    const env: Env = {
      // Copied only when the function assigns NEW.x, so the caller's row is never changed.
      row: assignsNew ? { ...newRow } : newRow,
      old: ctx.old ?? null,
      vars: new Array<unknown>(slots).fill(null),
      ctx,
    }
    const flow = body(env)
    if (flow === 0)
      throw new TriggerRaise('control reached end of trigger procedure without RETURN')
    return flow === 1 ? env.row : flow === 2 ? env.old : null
  }
}
