// Who may read and write DataStore tables: the rights on their resource's dataset (CKAN's datastore auth).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized, NotFound, ValidationError } from '../errors'
import type { DataDict } from '../data-dict'
import { loadPackage } from '../model/package'
import type { ResourceRow } from '../model/resource'
import { datastoreReaderOf, findResource, findResourceToRead } from '../datastore/access'
import { findTableByName } from '../datastore/registry'
import { resourceIdOf } from '../datastore/params'
import type { SqlSearchRules } from '../datastore/sql-search'
import { canEditPackage, canReadPackage } from './package'

/** The table of a resource may be read by whoever may read its dataset. */
export async function canReadTable(ctx: ActionContext, res: ResourceRow): Promise<boolean> {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return true
  return canReadPackage(ctx, await loadPackage(ctx, res.package_id))
}

/** resource_update's rule: the caller may edit the resource's dataset. */
export async function requireCanEditTable(ctx: ActionContext, res: ResourceRow) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return
  const pkg = await loadPackage(ctx, res.package_id)
  if (!(await canEditPackage(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit resource ${res.id}`)
}

/**
 * The auth rule of table writes (datastore_upsert, datastore_delete): the resource exists (else a
 * bare 404, as CKAN) and the caller may edit it. A missing id is left to the params check.
 */
export async function authorizeTableWrite(ctx: ActionContext, input: DataDict) {
  const id = resourceIdOf(input)
  if (!id) return
  const res = await findResource(ctx, id)
  if (!res) throw new NotFound()
  await requireCanEditTable(ctx, res)
}

/**
 * datastore_create auth: with a new `resource`, edit rights on the dataset it goes into;
 * otherwise the resource must exist and the caller may edit it.
 */
export async function authorizeTableCreate(ctx: ActionContext, input: DataDict) {
  if (input.resource && typeof input.resource === 'object' && !resourceIdOf(input)) {
    const ref = (input.resource as Record<string, unknown>).package_id
    if (typeof ref !== 'string' || !ref)
      throw ValidationError.message('Missing id, can not get Resource object')
    const pkg = await loadPackage(ctx, ref)
    if (!(await canEditPackage(ctx, pkg)))
      throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit package ${pkg.id}`)
    return
  }
  const id = resourceIdOf(input)
  if (!id) throw ValidationError.message('Missing id, can not get Resource object')
  const res = await findResource(ctx, id)
  if (!res) throw ValidationError.field('resource_id', 'Not found: Resource')
  await requireCanEditTable(ctx, res)
}

const SYSTEM_TABLES = `{'permissions': ['Not authorized to access system tables']}`

/** datastore_search_sql: a table the guard refused on permission grounds (CKAN's wording). */
export const sqlPermissionRefused = (message: string) =>
  new NotAuthorized(`{'permissions': ['${message}']}`)

/**
 * datastore_search_sql: every table a query reads must be a DataStore table (`isTable`, else the
 * system-table refusal) of a resource the caller may read.
 */
export async function requireCanReadTables(
  ctx: ActionContext,
  tables: { name: string; isTable: boolean }[],
) {
  for (const t of tables) {
    if (!t.isTable) throw new NotAuthorized(SYSTEM_TABLES)
    const res = await findResourceToRead(ctx, t.name)
    if (!res || !(await canReadTable(ctx, res)))
      throw new NotAuthorized('Not authorized to read resource.')
  }
}

/**
 * xloader_submit / xloader_status (and the datapusher_* aliases): ckanext-xloader's datastore
 * auth, resource_update's rights on the resource named by resource_id (or id). A private
 * dataset's load status is thus never shown to callers who may not edit it.
 */
export async function authorizeLoader(ctx: ActionContext, input: DataDict) {
  const raw = input.resource_id ?? input.id
  if (typeof raw !== 'string' || !raw) throw ValidationError.field('resource_id', 'Missing value')
  const res = await findResource(ctx, raw)
  if (!res) throw new NotFound('Resource was not found.')
  if (!ctx.user && !ctx.ignoreAuth) throw new NotAuthorized(`User not authorized to edit resource ${res.id}`)
  await requireCanEditTable(ctx, res)
}

/** The rules datastore_search_sql's run asks once it knows the tables a query reads. */
export const sqlSearchRules = (ctx: ActionContext): SqlSearchRules => ({
  permissionRefused: sqlPermissionRefused,
  readTables: (tables) => requireCanReadTables(ctx, tables),
})

/**
 * datastore_search's read rule for actions over one table by `resource_id` (an id or alias):
 * the table and its resource exist (else Not Found) and the caller may read its dataset. A
 * missing id is left to the params check.
 */
export async function authorizeTableRead(ctx: ActionContext, input: DataDict) {
  const name = resourceIdOf(input)
  if (!name) return
  const t = await findTableByName(datastoreReaderOf(ctx), name)
  const res = t && (await findResourceToRead(ctx, t.id))
  if (!res) throw new NotFound(`Resource "${name}" was not found.`)
  if (!(await canReadTable(ctx, res)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read resource ${res.id}`)
}
