// The portable DataStore adapter: a libSQL client (HTTP on Workers, or any URL on Node).
import type { Client, InValue, ResultSet } from '@libsql/client'
import { mutex, type DatastoreDb, type DsResult } from './store'

const toResult = (rs: ResultSet): DsResult => ({
  columns: rs.columns,
  rows: rs.rows.map((r) => Array.from({ length: rs.columns.length }, (_, i) => r[i])),
})

export function clientDatastore(client: Client): DatastoreDb {
  const exclusive = mutex()
  return {
    async write(stmts) {
      if (stmts.length) await client.batch(stmts, 'write')
    },
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
    exclusive,
    close: () => client.close(),
  }
}
