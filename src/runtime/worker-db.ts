// Workers: one isolate's writes to the libSQL server go one at a time, each request waiting on its own timer.
import type { Client, InStatement, TransactionMode } from '@libsql/client/web'
import { retryBusy } from '../db/busy'

/**
 * Isolate-wide: until when a write of this isolate holds the gate (0: free). A lease rather than
 * a flag, so a request that never finishes (client gone, CPU limit) cannot close it for good.
 */
export interface WriteGate {
  until: number
}

const LEASE_MS = 30_000
const sqlOf = (s: InStatement) => (typeof s === 'string' ? s : s.sql)
const isRead = (sql: string) => /^\s*(select|with|explain|pragma\s+\w+\s*$)/i.test(sql)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The request's libSQL client, with every write (a batch or statement that is not a plain read)
 * passed through the isolate's gate: at most one write transaction of an isolate is open on the
 * server at a time (sqld 0.24 wedges its write lock under dozens of concurrent write
 * transactions), write batches take the lock up front (BEGIN IMMEDIATE: no lock upgrades), and a
 * batch refused with SQLITE_BUSY (by another isolate's write) is retried, as it committed nothing.
 * Waiting is a poll on this request's own timer: no promise is shared between requests.
 */
export function gatedClient(client: Client, gate: WriteGate): Client {
  async function exclusive<T>(run: () => Promise<T>): Promise<T> {
    for (let wait = 1; gate.until > Date.now(); wait = Math.min(wait * 2, 20)) await sleep(wait)
    gate.until = Date.now() + LEASE_MS
    try {
      return await retryBusy(run)
    } finally {
      gate.until = 0
    }
  }
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'batch')
        return (stmts: InStatement[], mode?: TransactionMode) =>
          stmts.every((s) => isRead(sqlOf(s)))
            ? target.batch(stmts, mode)
            : exclusive(() => target.batch(stmts, mode === 'read' ? mode : 'write'))
      if (prop === 'execute')
        return (stmt: InStatement, args?: unknown) => {
          const call = () => (args === undefined ? target.execute(stmt) : target.execute(stmt as string, args as never))
          return isRead(sqlOf(stmt)) ? call() : exclusive(call)
        }
      const v = Reflect.get(target, prop, receiver)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
}
