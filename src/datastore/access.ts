// Where DataStore actions meet the catalogue: the store handle, the table's resource, the read-only
// rule and the resource's datastore_active flag (permissions: src/auth/datastore.ts).
import type { ActionContext } from '../context'
import { NotFound, ValidationError } from '../errors'
import { loadPackage } from '../model/package'
import type { ResourceRow } from '../model/resource'
import { loadResource, saveResource, shownResource } from '../model/resource-write'
import type { DatastoreDb, DatastoreReader } from './store'

/** The DataStore database, or a clear error where none is configured (Workers without DATASTORE_URL). */
export function datastoreOf(ctx: ActionContext): DatastoreDb {
  if (!ctx.datastore) throw ValidationError.message('The DataStore is not configured (set DATASTORE_URL).')
  return ctx.datastore
}

/**
 * Where the pure read actions read: the read location (service.datastore.read_url) when one is
 * set, else the write database. Typed without any write method. Reads that must see a write of
 * the same request (upsert's returned records, create's table info) use datastoreOf instead.
 */
export function datastoreReaderOf(ctx: ActionContext): DatastoreReader {
  const db = datastoreOf(ctx)
  return db.reader ?? db
}

/** An active resource or undefined. */
export async function findResource(ctx: ActionContext, id: string): Promise<ResourceRow | undefined> {
  try {
    const res = await loadResource(ctx, id)
    return res.state === 'active' ? res : undefined
  } catch (e) {
    if (e instanceof NotFound) return undefined
    throw e
  }
}

/**
 * findResource for actions that only read (datastore_search, datastore_info, dumps, SQL): served
 * from the process's cache while no dataset has changed since it was read. Not for paths that
 * write: their own writes reach the cache only at the next catch-up.
 */
export async function findResourceToRead(ctx: ActionContext, id: string): Promise<ResourceRow | undefined> {
  const generation = ctx.caches.packageGeneration
  const hit = ctx.caches.resources.get(id)
  if (hit && hit.generation === generation) return hit.row
  const row = await findResource(ctx, id)
  if (row) ctx.caches.resources.set(id, { generation, row })
  return row
}

/** ckan: without force the read-only check looks the resource up; with force only the table must exist. */
export async function requireWritableUnlessForced(ctx: ActionContext, id: string, force: boolean) {
  if (force) return
  const res = await findResource(ctx, id)
  if (!res) throw new NotFound()
  requireWritable(res, false)
}

/** Only tables of resources with url_type "datastore" are writable without `force` (sic spacing). */
export function requireWritable(res: ResourceRow, force: boolean) {
  if (!force && res.url_type !== 'datastore')
    throw ValidationError.field(
      'read-only',
      'Cannot edit read-only resource. Either pass"force=True" or change url-type to "datastore"',
    )
}

/** Sets the resource's datastore_active flag when it changes (the dataset is re-indexed). */
export async function setDatastoreActive(ctx: ActionContext, resourceId: string, active: boolean) {
  const res = await findResource(ctx, resourceId)
  if (!res || res.datastore_active === active) return
  ctx.memo.delete(`resource:${resourceId}`)
  const { shown } = await shownResource(ctx, res)
  const pkg = await loadPackage(ctx, res.package_id)
  await saveResource(ctx, pkg, { ...shown, datastore_active: active }, res)
  ctx.memo.delete(`resource:${resourceId}`)
}
