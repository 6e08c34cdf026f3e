// Resource views: rows ↔ CKAN dicts, lookups, and the checked fields of a create or an update.
import { asc, eq, inArray } from 'drizzle-orm'
import { resourceViews } from '../db/schema'
import type { RawStatement } from '../db/executor'
import type { ActionContext } from '../context'
import type { DataDict } from '../data-dict'
import { NotFound, ValidationError, type ErrorDict } from '../errors'
import { MISSING } from '../validation/fields'
import { asText } from './package-validate'
import { apiAtLeast } from '../config/api-compat'
import { createIdError } from './create-id'
import type { ResourceRow } from './resource'
import { loadResource } from './resource-write'
import { typesFor } from './default-views'
import {
  defaultConfig,
  defaultViewTypes,
  enabledViewType,
  viewableOf,
  viewEnv,
  type ViewType,
} from './view-types'

export type ResourceViewRow = typeof resourceViews.$inferSelect

/** ckan resource_view_dictize: the columns without `order`, the config flattened in, package_id. */
export function viewToDict(row: ResourceViewRow, packageId: string): Record<string, unknown> {
  return {
    id: row.id,
    resource_id: row.resource_id,
    title: row.title,
    description: row.description,
    view_type: row.view_type,
    ...parseConfig(row.config),
    package_id: packageId,
  }
}

function parseConfig(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The view with this id, or undefined; memoised per request (auth and run share it). */
export function findView(ctx: ActionContext, id: string): Promise<ResourceViewRow | undefined> {
  const key = `resource_view:${id}`
  let p = ctx.memo.get(key) as Promise<ResourceViewRow | undefined> | undefined
  if (!p) {
    p = ctx.db
      .select()
      .from(resourceViews)
      .where(eq(resourceViews.id, id))
      .limit(1)
      .then(([row]) => row)
    ctx.memo.set(key, p)
  }
  return p
}

/** A raw id parameter that must be there (CKAN's get_or_bust): a Validation Error otherwise. */
export function requiredParam(input: DataDict, key: string): string {
  const v = input[key]
  if (v === undefined || v === null) throw new ValidationError({ [key]: [MISSING] })
  return asText(v)
}

/** The view named by `input.id` with its resource: Validation Error when absent, else a bare 404. */
export async function loadView(ctx: ActionContext, input: DataDict) {
  const view = await findView(ctx, requiredParam(input, 'id'))
  const res = view && (await findActiveResource(ctx, view.resource_id))
  if (!view || !res) throw new NotFound()
  return { view, res }
}

/** An active resource, or undefined (deleted resources have no views). */
export async function findActiveResource(ctx: ActionContext, id: string): Promise<ResourceRow | undefined> {
  try {
    const res = await loadResource(ctx, id)
    return res.state === 'active' ? res : undefined
  } catch (e) {
    if (e instanceof NotFound) return undefined
    throw e
  }
}

/** The resource named by `input.id` (resource_view_list, _reorder): a bare 404 when unknown. */
export async function loadViewedResource(ctx: ActionContext, input: DataDict): Promise<ResourceRow> {
  const res = await findActiveResource(ctx, requiredParam(input, 'id'))
  if (!res) throw new NotFound()
  return res
}

/** A resource's views in their order. */
export function viewsOf(ctx: ActionContext, resourceId: string): Promise<ResourceViewRow[]> {
  return ctx.db
    .select()
    .from(resourceViews)
    .where(eq(resourceViews.resource_id, resourceId))
    .orderBy(asc(resourceViews.order), asc(resourceViews.id))
}

/** What a create or an update sets; `title`/`description` are absent when an update keeps them. */
export interface ViewFields {
  title?: string
  description?: string | null
  config: Record<string, unknown>
}

const CORE_KEYS = ['id', 'resource_id', 'title', 'description', 'view_type', 'package_id']
const EXTRAS = 'The input field __extras was not expected.'
const SAME_LENGTH = '"filter_fields" and "filter_values" should have the same length'

// ckan convert_to_list_if_string (other single values are wrapped too rather than failing)
const toList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v])
// ckan not_empty: absent, null and '' are missing
const empty = (v: unknown) => v === undefined || v === null || v === ''

/**
 * ckan default_create/update_resource_view_schema plus the type's own keys: core fields, plugin
 * keys with their defaults, the filters of filterable types, and `__extras` for any other key.
 * A `config` object (or JSON string) may carry the plugin keys too; keys given directly win.
 */
export function checkViewFields(type: ViewType, raw: DataDict, mode: 'create' | 'update', opts: { idOnCreate?: boolean } = {}) {
  const errors: ErrorDict = {}
  const data: DataDict = { ...raw }
  delete data.config
  if (!empty(raw.config)) {
    const config = typeof raw.config === 'string' ? tryJson(raw.config) : raw.config
    if (!config || typeof config !== 'object' || Array.isArray(config))
      errors.config = ['Could not parse as valid JSON']
    else
      for (const [k, v] of Object.entries(config)) {
        if (CORE_KEYS.includes(k)) errors.__extras = [EXTRAS]
        else if (!(k in data)) data[k] = v
      }
  }
  const allowed = new Set([
    // ckan: 2.11 reads a new view's id (create-id.ts); 2.9 and 2.10 refuse it as an extra key
    ...CORE_KEYS.filter((k) => mode === 'update' || (k !== 'package_id' && (k !== 'id' || !!opts.idOnCreate))),
    ...Object.keys(type.keys),
    // ckan rejects `filters`; it is derived, so a view sent back as shown is accepted
    ...(type.filterable ? ['filter_fields', 'filter_values', 'filters'] : []),
  ])
  if (Object.keys(data).some((k) => !allowed.has(k))) errors.__extras = [EXTRAS]

  const fields: ViewFields = { config: {} }
  if (mode === 'create' && empty(data.title)) errors.title = [MISSING]
  else if (data.title !== undefined && data.title !== null) fields.title = asText(data.title)
  if (data.description !== undefined && data.description !== null)
    fields.description = asText(data.description)
  else if (mode === 'create') fields.description = null

  for (const [key, check] of Object.entries(type.keys)) {
    const v = check(data[key])
    if (v !== undefined) fields.config[key] = v
  }
  if (type.filterable) checkFilters(data, fields.config, errors)
  return { fields, errors }
}

/** ckan filter_fields_and_values_*: same length, both given, grouped into `filters`. */
function checkFilters(data: DataDict, config: Record<string, unknown>, errors: ErrorDict) {
  const { filter_fields: ff, filter_values: fv } = data
  if (fv !== undefined && fv !== null) config.filter_values = toList(fv)
  if (ff === undefined || ff === null) return
  const fields = toList(ff)
  const values = fv === undefined || fv === null ? [] : toList(fv)
  const add = (k: string, msg: string) => ((errors[k] as string[] | undefined) ?? (errors[k] = [])).push(msg)
  if (fields.length !== values.length) {
    add('filter_fields', SAME_LENGTH)
    add('filter_values', SAME_LENGTH)
  }
  if (!fields.length) add('filter_fields', '"filter_fields" is required when "filter_values" is filled')
  if (!values.length) add('filter_values', '"filter_values" is required when "filter_fields" is filled')
  const filters: Record<string, unknown[]> = {}
  fields.forEach((f, i) => {
    if (i < values.length) (filters[asText(f)] ??= []).push(values[i])
  })
  config.filter_fields = fields
  config.filters = filters
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * resource_view_create's checks in CKAN's order: resource_id and view_type present, the type's
 * plugin enabled (a string message), then the fields and the resource (`Not found: Resource`).
 */
export async function checkViewCreate(ctx: ActionContext, raw: DataDict) {
  const resourceId = requiredParam(raw, 'resource_id')
  const typeName = requiredParam(raw, 'view_type')
  const type = enabledViewType(ctx.config, typeName)
  if (!type) throw new ValidationError({ view_type: `No plugin found for view_type ${typeName}` })
  const idOnCreate = apiAtLeast(ctx.config, '2.11')
  const { fields, errors } = checkViewFields(type, raw, 'create', { idOnCreate })
  // ckan 2.11: an id (an empty one is none) from sysadmins only, a UUID, and no view's yet
  const id = idOnCreate && raw.id !== undefined && raw.id !== null && raw.id !== '' ? asText(raw.id) : undefined
  if (id !== undefined) {
    const idError =
      createIdError(ctx, id) ??
      ((await ctx.db.select({ id: resourceViews.id }).from(resourceViews).where(eq(resourceViews.id, id)).limit(1)).length
        ? 'ResourceView id already exists'
        : undefined)
    if (idError) errors.id = [idError]
  }
  const res = resourceId === '' ? undefined : await findActiveResource(ctx, resourceId)
  if (resourceId === '') errors.resource_id = [MISSING]
  else if (!res) errors.resource_id = ['Not found: Resource']
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return { res: res!, type, fields, id }
}

/**
 * resource_view_update's checks: the view exists (404), its type's plugin is enabled, the fields;
 * a given resource_id must exist but the view stays on its resource, and view_type cannot change.
 */
export async function checkViewUpdate(ctx: ActionContext, raw: DataDict) {
  const { view, res } = await loadView(ctx, raw)
  const type = enabledViewType(ctx.config, view.view_type)
  if (!type) throw new ValidationError({ view_type: `No plugin found for view_type ${view.view_type}` })
  const { fields, errors } = checkViewFields(type, raw, 'update')
  if (raw.resource_id !== undefined && raw.resource_id !== null) {
    const other = await findActiveResource(ctx, asText(raw.resource_id))
    if (!other) errors.resource_id = ['Not found: Resource']
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return { view, res, type, fields }
}

/** The insert of a new view placed after the resource's others (its order computed in the statement). */
export function insertViewStatement(row: Omit<ResourceViewRow, 'order'>): RawStatement {
  return {
    sql: `INSERT INTO resource_view (id, resource_id, title, description, view_type, "order", config)
      VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX("order") + 1, 0) FROM resource_view WHERE resource_id = ?), ?)`,
    args: [row.id, row.resource_id, row.title, row.description, row.view_type, row.resource_id, row.config],
  }
}

/** Writes an update of a view (title/description kept when not given, config replaced). */
export async function saveViewUpdate(ctx: ActionContext, view: ResourceViewRow, fields: ViewFields) {
  const next: ResourceViewRow = {
    ...view,
    title: fields.title ?? view.title,
    description: fields.description !== undefined ? fields.description : view.description,
    config: JSON.stringify(fields.config),
  }
  const { title, description, config } = next
  await ctx.writer.write([
    ctx.db.update(resourceViews).set({ title, description, config }).where(eq(resourceViews.id, view.id)),
  ])
  ctx.memo.delete(`resource_view:${view.id}`)
  return next
}

/**
 * ckan add_views_to_resource for the default-view actions: each resource gets the default types
 * of the pass (`datastore`: only those needing the DataStore, else only the others) that can show
 * it and it lacks. `resources` are dicts as the dataset shows them. Returns the new view dicts.
 */
export async function createDefaultViews(
  ctx: ActionContext,
  packageId: string,
  resources: Record<string, unknown>[],
  datastore: boolean,
): Promise<Record<string, unknown>[]> {
  const types = defaultViewTypes(ctx.config, datastore)
  if (!types.length || !resources.length) return []
  const ids = resources.map((r) => String(r.id))
  const existing = await ctx.db
    .select({ resource_id: resourceViews.resource_id, view_type: resourceViews.view_type })
    .from(resourceViews)
    .where(inArray(resourceViews.resource_id, ids))
  const env = viewEnv(ctx.config)
  const rows: ResourceViewRow[] = []
  for (const res of resources) {
    const has = new Set(existing.filter((e) => e.resource_id === res.id).map((e) => e.view_type))
    for (const type of typesFor(types, viewableOf(res), env, has))
      rows.push({
        id: ctx.newId(),
        resource_id: String(res.id),
        title: type.defaultTitle,
        description: '',
        view_type: type.name,
        order: 0,
        config: JSON.stringify(defaultConfig(type)),
      })
  }
  if (rows.length) await ctx.writer.write(rows.map(insertViewStatement))
  return rows.map((r) => viewToDict(r, packageId))
}

/** Deletes a view. */
export async function deleteView(ctx: ActionContext, view: ResourceViewRow) {
  await ctx.writer.write([ctx.db.delete(resourceViews).where(eq(resourceViews.id, view.id))])
  ctx.memo.delete(`resource_view:${view.id}`)
}

/**
 * ckan resource_view_reorder: the given views first, in the given order, then the others as they
 * were; orders become 1, 2, ... Throws CKAN's string message for an id that is not a view of it.
 */
export async function reorderViews(ctx: ActionContext, res: ResourceRow, order: string[]) {
  const rest = (await viewsOf(ctx, res.id)).map((v) => v.id)
  for (const id of order) {
    const at = rest.indexOf(id)
    if (at < 0) throw new ValidationError({ order: `View ${id} does not exist` })
    rest.splice(at, 1)
  }
  const all = [...order, ...rest]
  if (all.length)
    await ctx.writer.write([
      {
        sql: `UPDATE resource_view SET "order" = CASE id ${all.map(() => 'WHEN ? THEN ?').join(' ')}
          ELSE "order" END WHERE resource_id = ?`,
        args: [...all.flatMap((id, i) => [id, i + 1]), res.id],
      },
    ])
  return all
}

/** Deletes every view, or every view of the given types (resource_view_clear). */
export async function clearViews(ctx: ActionContext, viewTypes: string[]) {
  const del = ctx.db.delete(resourceViews)
  await ctx.writer.write([viewTypes.length ? del.where(inArray(resourceViews.view_type, viewTypes)) : del])
}
