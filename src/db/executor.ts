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
