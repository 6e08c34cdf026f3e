// The portable DataStore adapter: a libSQL client (HTTP on Workers, or any URL on Node).
import type { Client, InValue, ResultSet } from '@libsql/client'
import {
  mutex,
  SqlTimeout,
  type DatastoreDb,
  type DatastoreReader,
  type DsResult,
  type SqlRunner,
} from './store'

const toResult = (rs: ResultSet): DsResult => ({
  columns: rs.columns,
  rows: rs.rows.map((r) => Array.from({ length: rs.columns.length }, (_, i) => r[i])),
})

/**
 * A new client to the same database whose HTTP requests carry `signal` (createClient's `fetch`
 * option). Aborting it closes the connection, and sqld then stops the statement running for it.
 */
export type AbortableClient = (signal: AbortSignal) => Client

/**
 * The URL an AbortableClient uses: `ws:`/`wss:` as `http:`/`https:` (sqld and Turso serve both on
 * one port), since createClient's `fetch` option carries only HTTP requests.
 */
export const overHttp = (url: string) => url.replace(/^ws(s?):/i, 'http$1:')

/** The given fetch with `signal` on every request: what an AbortableClient passes to createClient. */
export const fetchWithSignal =
  (signal: AbortSignal, base: typeof fetch = fetch) =>
  (input: RequestInfo | URL, init?: RequestInit) =>
    base(input, { ...init, signal })

/** Real tables a statement reads, from EXPLAIN: OpenRead root pages mapped to names. */
export async function explainTables(db: DatastoreReader, sql: string): Promise<string[]> {
  const plan = await db.query(`EXPLAIN ${sql}`)
  const op = plan.columns.indexOf('opcode')
  const p2 = plan.columns.indexOf('p2')
  const roots = new Set<number>()
  for (const r of plan.rows) if (r[op] === 'OpenRead') roots.add(Number(r[p2]))
  if (!roots.size) return []
  const { rows } = await db.query('SELECT tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0')
  const names = new Set<string>()
  for (const r of rows) if (roots.has(Number(r[1]))) names.add(String(r[0]))
  return [...names]
}

/**
 * datastore_search_sql over HTTP. libSQL's HTTP protocol has no per-query time limit, but sqld
 * stops a statement whose client went away (its progress handler checks for a dropped request
 * every 100 VM steps). So each query gets its own client and request, aborted at the deadline:
 * the caller gets SqlTimeout and the server stops working on it.
 */
function abortingSqlRunner(reader: DatastoreReader, open: AbortableClient): SqlRunner {
  return {
    tablesRead: (sql) => explainTables(reader, sql),
    async run(sql, { timeoutMs, maxRows, args = [] }) {
      const deadline = new AbortController()
      const timer = setTimeout(() => deadline.abort(new SqlTimeout('Query took too long')), timeoutMs)
      const client = open(deadline.signal)
      try {
        const rs = await client.execute({ sql, args })
        const { columns, rows } = toResult(rs)
        return {
          columns: columns.map((name) => ({ name, table: null, column: null })),
          rows: rows.slice(0, maxRows),
        }
      } catch (e) {
        if (deadline.signal.aborted) throw new SqlTimeout('Query took too long')
        throw e
      } finally {
        clearTimeout(timer)
        client.close()
      }
    },
    close() {},
  }
}

/**
 * Reads through a libSQL client; `abortable` (remote URLs only) adds the time-limited SQL runner.
 * As the read location its client should hold a read-only credential.
 */
export function clientDatastoreReader(
  client: Client,
  opts: { abortable?: AbortableClient } = {},
): DatastoreReader & { close(): void } {
  const reader: DatastoreReader & { close(): void } = {
    async query(sql, args = []) {
      return toResult(await client.execute({ sql, args }))
    },
    async queryBatch(stmts) {
      return (await client.batch(stmts, 'read')).map(toResult)
    },
    // No server-side cursor over HTTP: page with LIMIT/OFFSET (what CKAN's own dump does).
    async *stream(sql, args, chunkRows) {
      for (let offset = 0; ; offset += chunkRows) {
        const page = toResult(
          await client.execute({
            sql: `SELECT * FROM (${sql}) LIMIT ? OFFSET ?`,
            args: [...args, chunkRows, offset] as InValue[],
          }),
        )
        if (page.rows.length) yield page
        if (page.rows.length < chunkRows) return
      }
    },
    close: () => client.close(),
  }
  if (opts.abortable) reader.sql = abortingSqlRunner(reader, opts.abortable)
  return reader
}

/**
 * The DataStore through a libSQL client. `reader`: a separate read location for the pure read
 * actions (closed with this store).
 */
export function clientDatastore(
  client: Client,
  opts: { abortable?: AbortableClient; reader?: DatastoreReader & { close(): void } } = {},
): DatastoreDb {
  const { query, queryBatch, stream, sql } = clientDatastoreReader(client, opts)
  const { reader } = opts
  return {
    async write(stmts) {
      if (stmts.length) await client.batch(stmts, 'write')
    },
    async writeReturning(stmts, { rollback = false } = {}) {
      if (!stmts.length) return []
      if (!rollback) return (await client.batch(stmts, 'write')).map((rs) => toResult(rs).rows)
      // an interactive transaction: the statements' rows come back before it is undone
      const tx = await client.transaction('write')
      try {
        return (await tx.batch(stmts)).map((rs) => toResult(rs).rows)
      } finally {
        await tx.rollback().catch(() => {})
        tx.close()
      }
    },
    query,
    queryBatch,
    stream,
    sql,
    exclusive: mutex(),
    reader,
    close() {
      reader?.close()
      client.close()
    },
  }
}
