// The app over a given catalogue, DataStore and uploads (a restored backup, libSQL servers), with
// an action caller: the backup tests' way of looking at what a restore put back.
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps } from '../../src/runtime/deps'
import { openDatastore } from '../../src/runtime/node-datastore'
import { openCatalogDb } from '../../src/runtime/node-db'
import { nodeBlobStore } from '../../src/runtime/node-blob-store'
import { TEST_PROFILE } from './setup'

export async function appOn(catalogueUrl: string, datastoreUrl: string, storage: string) {
  const opened = await openCatalogDb(catalogueUrl)
  const datastore = await openDatastore(datastoreUrl)
  const deps = buildDeps(loadConfig(TEST_PROFILE), opened.db, { writeExecutor: opened.writeExecutor, readExecutor: opened.readExecutor, datastore, blobs: nodeBlobStore(storage) })
  return { deps, app: createApp(deps), close: () => (deps.search.stop(), datastore.close(), opened.close()) }
}

/** POSTs an action as the holder of `key`; the envelope. */
export const caller = (app: ReturnType<typeof createApp>, key: string) => async (name: string, body: object) => {
  const res = await app.request(`/api/3/action/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: key }, body: JSON.stringify(body) })
  return (await res.json()) as { success: boolean; result: any; error?: unknown }
}
