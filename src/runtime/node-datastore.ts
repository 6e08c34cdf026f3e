// Node: opens the DataStore database (its own file beside the catalogue, or a remote libSQL URL).
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { createClient, type InValue } from '@libsql/client'
import Database from 'libsql'
import { clientDatastore } from '../datastore/client-store'
import { mutex, type DatastoreDb } from '../datastore/store'
import { ensureRegistry } from '../datastore/registry'
import { statementCache, syncExecutor } from './node-db'
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

/** The DataStore through the portable @libsql/client adapter (Workers' code path), prepared. */
export async function openClientDatastore(url: string, authToken?: string): Promise<DatastoreDb> {
  const store = clientDatastore(createClient({ url, authToken }))
  await ensureRegistry(store)
  return store
}

/** Opens (and prepares) the DataStore database. Embedded files get the synchronous fast paths. */
export async function openDatastore(url: string, authToken?: string): Promise<DatastoreDb> {
  if (!url.startsWith('file:')) return openClientDatastore(url, authToken)
  const path = resolve(url.slice(5).split('?')[0]!)
  mkdirSync(dirname(path), { recursive: true })
  const conn = new Database(path)
  // a 16 MiB page cache holds the count index of a ~1M-row table (an unfiltered page with
  // include_total takes 3 ms instead of 6 ms with 4 MiB); it costs as much resident memory once full
  conn.exec(
    'PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000; ' +
      'PRAGMA cache_size=-16384; PRAGMA wal_autocheckpoint=8000',
  )
  const prepare = statementCache(conn)
  const store: DatastoreDb = {
    write: syncExecutor(conn),
    async query(sql, args = []) {
      const st = prepare(sql)
      const rows = st.raw(true).all(args as InValue[]) as unknown[][]
      return { columns: (st.columns() as { name: string }[]).map((c) => c.name), rows }
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
    exclusive: mutex(),
    close: () => conn.close(),
  }
  await ensureRegistry(store)
  // after the registry exists: the runner's read-only connections open the file as it is
  const sql = openNodeSqlRunner(path)
  store.sql = sql
  const closeStore = store.close
  store.close = () => {
    sql.close()
    closeStore()
  }
  return store
}
