// Node: opens the DataStore database (its own file beside the catalogue, or a remote libSQL URL).
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { createClient, type InValue } from '@libsql/client'
import Database from 'libsql'
import {
  clientDatastore,
  clientDatastoreReader,
  fetchWithSignal,
  overHttp,
  type AbortableClient,
} from '../datastore/client-store'
import { mutex, type DatastoreDb, type DatastoreReader } from '../datastore/store'
import { ensureRegistry } from '../datastore/registry'
import { planMayTakeLong } from '../datastore/search'
import { statementCache, syncExecutor, WAL_LIMIT_BYTES } from './node-db'
import { openNodeSqlRunner, readOnlyUri } from './node-sql-runner'

/** The DataStore URL: an explicit one, else `datastore.db` beside an embedded catalogue file. */
export function datastoreUrl(explicit: string | undefined, catalogueUrl: string): string {
  if (explicit) return explicit
  if (catalogueUrl.startsWith('file:')) {
    const path = catalogueUrl.slice(5).split('?')[0]!
    return `file:${resolve(dirname(path), 'datastore.db')}`
  }
  throw new Error('Set DATASTORE_URL (or service.datastore.write_url) for a remote catalogue database')
}

/** A server's client, and (for remote URLs) new ones whose requests a deadline can abort. */
function clientOf(url: string, authToken?: string) {
  const client = createClient({ url, authToken })
  const abortable: AbortableClient | undefined = url.startsWith('file:')
    ? undefined // an embedded file runs on this thread: nothing to abort
    : (signal) => createClient({ url: overHttp(url), authToken, fetch: fetchWithSignal(signal) })
  return { client, abortable }
}

type Reader = DatastoreReader & { close(): void }

/** The DataStore through the portable @libsql/client adapter (Workers' code path), prepared. */
export async function openClientDatastore(url: string, authToken?: string): Promise<DatastoreDb> {
  const { client, abortable } = clientOf(url, authToken)
  const store = clientDatastore(client, { abortable })
  await ensureRegistry(store)
  return store
}

/**
 * A prepared statement's column names, asked of the driver once (it builds the list anew on every
 * call: 5 % of a datastore_search) and remembered until the schema changes (`SELECT *` follows it).
 */
function columnNames(conn: Database.Database) {
  const version = conn.prepare('PRAGMA schema_version').pluck()
  let known = new WeakMap<Database.Statement, string[]>()
  let schema = -1
  return (st: Database.Statement): string[] => {
    const now = Number(version.get())
    if (now !== schema) {
      known = new WeakMap()
      schema = now
    }
    let names = known.get(st)
    if (!names) known.set(st, (names = (st.columns() as { name: string }[]).map((c) => c.name)))
    return names
  }
}

/** planMayTakeLong of each statement, remembered until the schema changes. */
function planJudge(conn: Database.Database) {
  const version = conn.prepare('PRAGMA schema_version').pluck()
  const judged = new Map<string, boolean>()
  let schema = -1
  return (sql: string): boolean => {
    const now = Number(version.get())
    if (now !== schema) {
      judged.clear()
      schema = now
    }
    let verdict = judged.get(sql)
    if (verdict === undefined) {
      try {
        const st = conn.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        const rows = st.all() as { detail: string }[]
        st.get() // leaves the statement reset: an un-reset EXPLAIN pins the read snapshot
        verdict = planMayTakeLong(rows.map((r) => String(r.detail)))
      } catch {
        verdict = true // the runner reports the statement's error as the direct path would
      }
      if (judged.size >= 500) judged.clear()
      judged.set(sql, verdict)
    }
    return verdict
  }
}

/** Reads of an embedded file on `conn`; streams on read-only connections of their own. */
function fileReads(path: string, conn: Database.Database): DatastoreReader {
  const prepare = statementCache(conn)
  const columnsOf = columnNames(conn)
  return {
    statementMayTakeLong: planJudge(conn),
    async query(sql, args = []) {
      const st = prepare(sql)
      const rows = st.raw(true).all(args as InValue[]) as unknown[][]
      return { columns: columnsOf(st), rows }
    },
    // A read-only connection per stream: its cursor survives the event-loop turns between chunks.
    async *stream(sql, args, chunkRows) {
      const ro = new Database(readOnlyUri(path))
      try {
        const st = ro.prepare(sql).raw(true)
        const columns = (st.columns() as { name: string }[]).map((c) => c.name)
        const it = st.iterate(args as InValue[])
        for (;;) {
          const rows: unknown[][] = []
          let r = it.next()
          while (!r.done) {
            rows.push(r.value as unknown[])
            if (rows.length >= chunkRows) break
            r = it.next()
          }
          if (rows.length) yield { columns, rows }
          if (r.done) return
          await nextTurn()
        }
      } finally {
        ro.close()
      }
    },
  }
}

/** DatastoreDb.writeReturning on an embedded file: one synchronous transaction, rows of RETURNING kept. */
function returningExecutor(conn: Database.Database): DatastoreDb['writeReturning'] {
  const prepare = statementCache(conn)
  return async (stmts, { rollback = false } = {}) => {
    conn.exec('BEGIN IMMEDIATE')
    try {
      const out = stmts.map((s) => {
        const st = prepare(s.sql)
        if (st.reader) return st.raw(true).all(s.args as InValue[]) as unknown[][]
        st.run(s.args as InValue[])
        return []
      })
      conn.exec(rollback ? 'ROLLBACK' : 'COMMIT')
      return out
    } catch (e) {
      if (conn.inTransaction) conn.exec('ROLLBACK')
      throw e
    }
  }
}

const filePath = (url: string) => resolve(url.slice(5).split('?')[0]!)

/**
 * Opens the DataStore's read location (service.datastore.read_url): an embedded file opened
 * read-only (`mode=ro`, with Node's SQL runner), or a libSQL server, which should be given a
 * read-only token (sqld refuses every write of a JWT with `"a": "ro"`).
 */
export async function openDatastoreReader(url: string, authToken?: string): Promise<Reader> {
  if (!url.startsWith('file:')) {
    const { client, abortable } = clientOf(url, authToken)
    return clientDatastoreReader(client, { abortable })
  }
  const path = filePath(url)
  const conn = new Database(readOnlyUri(path))
  const sql = openNodeSqlRunner(path)
  return {
    ...fileReads(path, conn),
    sql,
    close() {
      sql.close()
      conn.close()
    },
  }
}

/** A location and its token. */
export interface DatastoreLocation {
  url: string
  authToken?: string
}

/**
 * Opens (and prepares) the DataStore database. Embedded files get the synchronous fast paths.
 * `read`: the read location of the pure read actions (see openDatastoreReader), opened once the
 * write database is prepared and closed with it.
 */
export async function openDatastore(
  url: string,
  authToken?: string,
  read?: DatastoreLocation,
): Promise<DatastoreDb> {
  const withReader = async (store: DatastoreDb) => {
    if (!read) return store
    const reader = await openDatastoreReader(read.url, read.authToken)
    const closeStore = store.close
    store.reader = reader
    store.close = () => {
      reader.close()
      closeStore()
    }
    return store
  }
  if (!url.startsWith('file:')) return withReader(await openClientDatastore(url, authToken))
  const path = filePath(url)
  mkdirSync(dirname(path), { recursive: true })
  const conn = new Database(path)
  // a 16 MiB page cache holds the count index of a ~1M-row table (an unfiltered page with
  // include_total takes 3 ms instead of 6 ms with 4 MiB); it costs as much resident memory once full
  conn.exec(
    'PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000; ' +
      `PRAGMA cache_size=-16384; PRAGMA wal_autocheckpoint=8000; PRAGMA journal_size_limit=${WAL_LIMIT_BYTES}`,
  )
  const store: DatastoreDb = {
    write: syncExecutor(conn),
    writeReturning: returningExecutor(conn),
    ...fileReads(path, conn),
    exclusive: mutex(),
    close: () => conn.close(),
  }
  await ensureRegistry(store)
  // after the registry exists: the runner's read-only connections open the file as it is
  const sql = openNodeSqlRunner(path)
  store.sql = sql
  store.close = () => {
    sql.close()
    conn.close()
  }
  return withReader(store)
}
