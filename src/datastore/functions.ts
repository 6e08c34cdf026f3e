// Trigger functions (datastore_function_create) and how a table's triggers become one row transform.
import type { RawStatement } from '../db/executor'
import { ValidationError } from '../errors'
import { compileFunction, TriggerRaise, type CompiledFunction } from './plpgsql'
import type { Row, RowTransform } from './records'
import type { DsTable } from './registry'
import type { DatastoreDb, DatastoreReader } from './store'

export interface StoredFunction {
  name: string
  definition: string
  rettype: string
}

const compiled = new Map<string, CompiledFunction>()

function compiledOf(f: StoredFunction): CompiledFunction {
  const key = `${f.name}\u0000${f.definition}`
  let c = compiled.get(key)
  if (!c) {
    if (compiled.size > 200) compiled.clear()
    compiled.set(key, (c = compileFunction(f.definition)))
  }
  return c
}

export async function findFunction(db: DatastoreReader, name: string): Promise<StoredFunction | undefined> {
  const { rows } = await db.query('SELECT name, definition, rettype FROM _ds_function WHERE name = ?', [name])
  const r = rows[0]
  return r ? { name: String(r[0]), definition: String(r[1]), rettype: String(r[2]) } : undefined
}

export const noSuchFunction = (name: string) => `function ${name}() does not exist`

export function saveFunctionStmt(f: StoredFunction, args: unknown[], now: string): RawStatement {
  return {
    sql:
      'INSERT INTO _ds_function (name, definition, rettype, arguments, created) VALUES (?, ?, ?, ?, ?) ' +
      'ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, rettype = excluded.rettype, ' +
      'arguments = excluded.arguments',
    args: [f.name, f.definition, f.rettype, JSON.stringify(args), now],
  }
}

export const deleteFunctionStmt = (name: string): RawStatement => ({
  sql: 'DELETE FROM _ds_function WHERE name = ?',
  args: [name],
})

/**
 * The table's trigger functions applied in order, or undefined when it has none. A RAISE aborts
 * the write with the function's message (datastore.md §9).
 */
export async function tableTransform(
  db: DatastoreDb,
  t: DsTable,
  now: () => string,
): Promise<RowTransform | undefined> {
  if (!t.triggers.length) return undefined
  const fns: CompiledFunction[] = []
  for (const trig of t.triggers) {
    const f = await findFunction(db, trig.function)
    if (!f) throw ValidationError.field('triggers', noSuchFunction(trig.function))
    fns.push(compiledOf(f))
  }
  // one object per write: functions specialise on it; the clock stands still like a transaction's
  const columnTypes = Object.fromEntries(t.columns.map((c) => [c.id, c.type]))
  const stamp = now()
  const at = () => stamp
  return (row, op, old) => {
    let cur: Row | null = row
    for (const fn of fns) {
      try {
        cur = fn.run(cur, { op, table: t.id, old, now: at, columnTypes })
      } catch (e) {
        if (e instanceof TriggerRaise) throw ValidationError.field('records', e.message)
        throw e
      }
      if (!cur) return null
    }
    return cur
  }
}
