// The DataStore benchmark's HTTP side: setting up the table on a running server, the timed
// datastore_upsert and datastore_search calls, and the CSV dump read to its end.
import { createHash } from 'node:crypto'
import { loadConfig } from '../../src/config/load'
import { addSysadmin } from '../../src/model/sysadmin'
import { buildDeps } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { DS_FIELDS, type DsRecord } from './ds-rows'
import type { RunningServer } from './server'

export async function action(url: string, name: string, body: unknown, apikey?: string): Promise<string> {
  const res = await fetch(`${url}/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apikey ? { authorization: apikey } : {}) },
    body: typeof body === 'string' || body instanceof Buffer ? body : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${name}: ${res.status} ${text.slice(0, 500)}`)
  return text
}

export const result = (text: string) => (JSON.parse(text) as { result: any }).result

/**
 * A sysadmin (made out of band, as `npm run admin -- sysadmin add` does), an organization and a
 * dataset named `name`; the sysadmin's API key and the dataset's id.
 */
export async function adminAndDataset(server: RunningServer, name: string) {
  const { db, client } = await openCatalogDb(server.dbUrl)
  const admin = await addSysadmin(buildDeps(loadConfig({}), db), 'bench-admin')
  client.close()
  const key = admin.apikey!
  const org = result(await action(server.url, 'organization_create', { name }, key))
  const pkg = result(await action(server.url, 'package_create', { name, owner_org: org.id }, key))
  return { key, packageId: pkg.id as string }
}

/** adminAndDataset, then the table: datastore_create with a new resource, typed fields, `category` indexed. */
export async function createTable(server: RunningServer) {
  const { key, packageId } = await adminAndDataset(server, 'ds-bench')
  const pkg = { id: packageId }
  const body = { resource: { package_id: pkg.id, name: 'bench rows' }, force: true, fields: DS_FIELDS, indexes: 'category' }
  const created = result(await action(server.url, 'datastore_create', body, key))
  return { key, id: created.resource_id as string }
}

/** datastore_upsert method insert of one batch; milliseconds from sending to the whole answer. */
export async function httpInsert(url: string, key: string, id: string, records: DsRecord[]): Promise<number> {
  const body = Buffer.from(JSON.stringify({ resource_id: id, method: 'insert', force: true, records }))
  const started = performance.now()
  await action(url, 'datastore_upsert', body, key)
  return performance.now() - started
}

export async function httpSearch(url: string, id: string, body: object) {
  const started = performance.now()
  const text = await action(url, 'datastore_search', { resource_id: id, ...body })
  const ms = performance.now() - started
  return { ms, total: Number(result(text).total) }
}

/** GET /datastore/dump/<id> (csv) read to the end: rows (lines less the header), bytes, seconds, the body's SHA-256. */
/** A dump over HTTP: its rows (counted by newlines: a json dump has four besides its records), bytes, SHA-256. */
export async function httpDump(url: string, id: string, format: 'csv' | 'tsv' | 'json' = 'csv') {
  const started = performance.now()
  const res = await fetch(`${url}/datastore/dump/${id}${format === 'csv' ? '' : `?format=${format}`}`)
  if (res.status !== 200 || !res.body) throw new Error(`dump: ${res.status} ${await res.text()}`)
  let bytes = 0
  let lines = 0
  const hash = createHash('sha256')
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length
    hash.update(chunk)
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++
  }
  const seconds = (performance.now() - started) / 1000
  const rows = lines - (format === 'json' ? 4 : 1)
  return { rows, bytes, seconds, rate: rows / seconds, sha256: hash.digest('hex') }
}
