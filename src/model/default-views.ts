// Default views: the views a resource gets when it is created, changes format or gains a DataStore table.
import type { ActionContext } from '../context'
import type { RawStatement } from '../db/executor'
import { rawInsert } from '../db/raw-insert'
import { resourceViews } from '../db/schema'
import {
  defaultConfig,
  defaultViewTypes,
  viewableOf,
  viewEnv,
  type ViewableResource,
  type ViewEnv,
  type ViewType,
} from './view-types'

export interface PlannedView {
  resourceId: string
  type: ViewType
}

type Resource = Record<string, unknown>

/** ckan add_views_to_resource: the types that can show the resource, except those it has. */
export function typesFor(
  types: ViewType[],
  res: ViewableResource,
  env: ViewEnv,
  existing: ReadonlySet<string> = new Set(),
): ViewType[] {
  return types.filter((t) => !existing.has(t.name) && t.canView(res, env))
}

/**
 * The views a new DataStore table makes possible: the default types that need the DataStore, and
 * those that could not show the resource before its table existed (recline_view of a JSON file).
 */
function datastoreTypesFor(
  ctx: ActionContext,
  before: ViewableResource,
  after: ViewableResource,
  env: ViewEnv,
): ViewType[] {
  const flipped = defaultViewTypes(ctx.config, false).filter(
    (t) => !t.canView(before, env) && t.canView(after, env),
  )
  return [...typesFor(defaultViewTypes(ctx.config, true), after, env), ...flipped]
}

/**
 * Default views of a dataset write (package_create, package_update): resources that are new or
 * changed format get the default types that can show them. `before` is the dataset's resource
 * list before the write (none on create). Computed in memory, written by the same batch.
 */
export function datasetDefaultViews(
  ctx: ActionContext,
  resources: Resource[],
  before: Resource[] | undefined,
): RawStatement[] {
  const types = defaultViewTypes(ctx.config, false)
  if (!types.length || !resources.length) return []
  const env = viewEnv(ctx.config)
  const formats = new Map((before ?? []).map((r) => [r.id, r.format]))
  const planned: PlannedView[] = []
  for (const res of resources) {
    // ckan resource_update: a changed format may bring new default views
    if (formats.has(res.id) && formats.get(res.id) === res.format) continue
    for (const type of typesFor(types, viewableOf(res), env))
      planned.push({ resourceId: String(res.id), type })
  }
  // A new dataset's resources have no views: a plain insert does, without the checks.
  return before ? insertDefaultViews(ctx, planned) : insertNewViews(ctx, planned)
}

/**
 * Default views of one resource write (resource_create/_update/_patch, and the DataStore flag set
 * by datastore_create): a new resource or a changed format gets the default types; a resource that
 * just became datastore_active gets the DataStore ones. `before` is its dict before (none if new).
 */
export function resourceDefaultViews(
  ctx: ActionContext,
  before: Resource | undefined,
  after: Resource,
): RawStatement[] {
  const env = viewEnv(ctx.config)
  const now = viewableOf(after)
  const then = before && viewableOf(before)
  const types = new Set<ViewType>()
  if (!then || then.format !== now.format)
    for (const t of typesFor(defaultViewTypes(ctx.config, false), now, env)) types.add(t)
  if (then && !then.datastore_active && now.datastore_active)
    for (const t of datastoreTypesFor(ctx, then, now, env)) types.add(t)
  const resourceId = String(after.id)
  return insertDefaultViews(
    ctx,
    [...types].map((type) => ({ resourceId, type })),
  )
}

const CHUNK = 500

/** The views of resources that have none yet, in planned order. */
function insertNewViews(ctx: ActionContext, planned: PlannedView[]): RawStatement[] {
  const order = new Map<string, number>()
  const rows = planned.map(({ resourceId, type }) => {
    const n = order.get(resourceId) ?? 0
    order.set(resourceId, n + 1)
    return {
      id: ctx.newId(),
      resource_id: resourceId,
      title: type.defaultTitle,
      description: '',
      view_type: type.name,
      order: n,
      config: JSON.stringify(defaultConfig(type)),
    }
  })
  const out: RawStatement[] = []
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rawInsert(resourceViews, rows.slice(i, i + CHUNK)))
  return out
}

/**
 * INSERT … SELECT statements adding the planned views, each only if its resource has no view of
 * that type yet, placed after the resource's existing views: nothing is read before the write.
 */
export function insertDefaultViews(ctx: ActionContext, planned: PlannedView[]): RawStatement[] {
  const out: RawStatement[] = []
  for (let i = 0; i < planned.length; i += CHUNK) {
    const part = planned.slice(i, i + CHUNK)
    const offsets = new Map<string, number>()
    const args: RawStatement['args'] = []
    for (const { resourceId, type } of part) {
      const offset = offsets.get(resourceId) ?? 0
      offsets.set(resourceId, offset + 1)
      args.push(
        ctx.newId(),
        resourceId,
        type.defaultTitle,
        type.name,
        offset,
        JSON.stringify(defaultConfig(type)),
      )
    }
    out.push({
      sql: `INSERT INTO resource_view (id, resource_id, title, description, view_type, "order", config)
        SELECT v.column1, v.column2, v.column3, '', v.column4,
          v.column5 + COALESCE((SELECT MAX(e."order") + 1 FROM resource_view e WHERE e.resource_id = v.column2), 0),
          v.column6
        FROM (VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}) AS v
        WHERE NOT EXISTS (SELECT 1 FROM resource_view e
          WHERE e.resource_id = v.column2 AND e.view_type = v.column4)`,
      args,
    })
  }
  return out
}
