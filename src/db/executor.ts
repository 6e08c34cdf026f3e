// How write batches reach the database: one atomic transaction of plain SQL statements.
import type { Client, InValue } from '@libsql/client'

export interface RawStatement {
  sql: string
  args: InValue[]
}

/** Runs the statements in one transaction: all commit or none does. */
export type WriteExecutor = (stmts: RawStatement[]) => Promise<void>

/** The portable executor: a libSQL client batch (one round trip over HTTP). */
export function clientExecutor(client: Client): WriteExecutor {
  return async (stmts) => {
    await client.batch(stmts, 'write')
  }
}

/**
 * Runs one read-only statement and returns its rows as plain objects keyed by column name.
 * `many`, where the runtime has it (Node's synchronous driver), runs several in one read
 * transaction with prepared statements; see readMany() for the portable form.
 */
export type ReadExecutor = ((sql: string, args?: InValue[]) => Promise<Record<string, unknown>[]>) & {
  many?: (stmts: RawStatement[]) => Promise<Record<string, unknown>[][]>
}

/**
 * Several reads that must agree (one snapshot of the database): Node's synchronous reader runs
 * them in one read transaction; elsewhere the client's batch does, in one round trip.
 */
export async function readMany(read: ReadExecutor, client: Client, stmts: RawStatement[]) {
  if (read.many) return read.many(stmts)
  const results = await client.batch(stmts, 'read')
  return results.map((rs) =>
    rs.rows.map((r) => {
      const o: Record<string, unknown> = {}
      rs.columns.forEach((c, i) => (o[c] = r[i]))
      return o
    }),
  )
}

/** The portable reader: the libSQL client's execute. */
export function clientReader(client: Client): ReadExecutor {
  return async (sql, args = []) => {
    const rs = await client.execute({ sql, args })
    return rs.rows.map((r) => {
      const o: Record<string, unknown> = {}
      rs.columns.forEach((c, i) => (o[c] = r[i]))
      return o
    })
  }
}
