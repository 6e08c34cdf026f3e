// Writes to groups and organizations (create, update, delete, purge), each as one batch with its change-log rows.
import { apiAtLeast } from '../config/api-compat'
import { createIdError, extraIdError } from './create-id'
import { asText } from './package-validate'
import { z } from 'zod'
import { and, eq, ne, or } from 'drizzle-orm'
import type { BatchItem } from 'drizzle-orm/batch'
import {
  activities,
  followers,
  groupExtras,
  groups,
  members,
  packages,
  users,
} from '../db/schema'
import type { ActionContext } from '../context'
import { ValidationError, type ErrorDict } from '../errors'
import {
  MISSING,
  assertListsOfDicts,
  fail,
  field,
  idOrName,
  isMissing,
  nameField,
  optBool,
  optNameField,
  optString,
  reqString,
} from '../validation/fields'
import { activityRow } from './activity'
import { changeRow, groupDetail } from './changes'
import {
  descendantIds,
  findGroup,
  groupColumns,
  kindOf,
  type GroupRow,
} from './group'
import {
  activeMembers,
  changeSteps,
  commit,
  findByIdOrName,
  type MemberRow,
} from './member'
import { groupInput, groupSchemaFor } from '../scheming/dataset'
import { zodToErrorDict } from '../validation/zod-errors'

type Step = BatchItem<'sqlite'>


const LIST_KEYS = ['extras', 'users', 'groups', 'packages']

const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === null || v === '' ? undefined : v), z.array(item).optional())

const extraValue = field((v) =>
  v === undefined ? fail(MISSING) : v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v),
)

/** A reference to a group or dataset by `id` or `name`; neither → Missing value under `key`. */
const ref = (key: 'id' | 'name') =>
  z.object({ id: optString, name: optString, capacity: optString }).superRefine((v, c) => {
    if (!v.id && !v.name) c.addIssue({ code: 'custom', message: MISSING, path: [key] })
  })

/** Params of group/organization create (`create`) or update/patch. */
export function groupParams(create: boolean) {
  return z.preprocess(
    (input) => {
      // ckan: these keys must hold lists of objects, else a 400 Integrity Error
      if (input && typeof input === 'object')
        assertListsOfDicts(input as Record<string, unknown>, LIST_KEYS)
      return input
    },
    z.object({
      id: create ? optString : idOrName,
      name: create ? nameField : optNameField,
      title: optString,
      description: optString,
      image_url: optString,
      type: optString,
      state: optString,
      approval_status: optString,
      // ckan: an extra's id is read only to refuse it (2.11, create-id.ts); it is never stored
      extras: listOf(z.object({ id: z.unknown().optional(), key: reqString, value: extraValue, deleted: optBool })),
      users: listOf(z.object({ name: reqString, capacity: optString })),
      groups: listOf(ref('name')),
      packages: listOf(ref('id')),
    }),
  )
}

export type GroupParams = z.output<ReturnType<typeof groupParams>>

/**
 * The params through the organization or group type's schema (scheming), where the site has one:
 * its fields checked, the non-core ones kept as extras. `current`: reads the shown dict of the group a
 * patch changes (its schema fields and free extras are kept where the patch gives none, as CKAN's
 * patch is a show merged with the patch and updated).
 */
export async function withGroupSchema(
  ctx: ActionContext,
  o: { isOrg: boolean; type: string; create: boolean; current?: () => Promise<Record<string, unknown>> },
  input: Record<string, unknown>,
  params: GroupParams,
): Promise<GroupParams> {
  const schema = groupSchemaFor(ctx.schemas, o.isOrg, o.type)
  if (!schema) return params
  const raw: Record<string, unknown> = { ...input }
  // read only where a schema applies: a patch of a group without one costs no extra read
  const current = o.current && (await o.current())
  if (current) {
    for (const f of schema.fields)
      if (!(f.name in raw) && current[f.name] !== undefined && current[f.name] !== null) raw[f.name] = current[f.name]
    // the kept extras without their stored ids: an id is checked only where the caller gave one
    if (raw.extras === undefined && Array.isArray(current.extras))
      raw.extras = (current.extras as Record<string, unknown>[]).map(({ id: _id, ...e }) => e)
  }
  const typed = groupInput(schema, raw, o.create ? 'create' : 'update')
  if (Object.keys(typed.errors).length) throw new ValidationError(typed.errors)
  const parsed = groupParams(o.create).safeParse(typed.raw)
  if (!parsed.success) throw new ValidationError(zodToErrorDict(parsed.error))
  return parsed.data
}

// ---- saving a group -----------------------------------------------------------------------

const LOOP = 'This parent would create a loop in the hierarchy'

/** Desired memberships → insert/update/delete steps against the current active rows. */
function syncSteps(
  ctx: ActionContext,
  current: MemberRow[],
  desired: Map<string, string>,
  row: (tableId: string, capacity: string) => typeof members.$inferInsert,
  idOf: (m: MemberRow) => string,
): { steps: Step[]; touched: string[] } {
  const steps: Step[] = []
  const touched: string[] = []
  const seen = new Set<string>()
  for (const m of current) {
    const id = idOf(m)
    const want = desired.get(id)
    if (want === undefined || seen.has(id)) {
      steps.push(ctx.db.update(members).set({ state: 'deleted' }).where(eq(members.id, m.id)))
      touched.push(id)
    } else if (want !== m.capacity) {
      steps.push(ctx.db.update(members).set({ capacity: want }).where(eq(members.id, m.id)))
    }
    seen.add(id)
  }
  for (const [id, capacity] of desired) {
    if (seen.has(id)) continue
    steps.push(ctx.db.insert(members).values(row(id, capacity)))
    touched.push(id)
  }
  return { steps, touched }
}

/** Ids of the datasets whose dicts show this group or organization. */
export async function datasetsShowing(ctx: ActionContext, g: GroupRow): Promise<string[]> {
  if (g.is_organization) {
    const r = await ctx.db
      .select({ id: packages.id })
      .from(packages)
      .where(eq(packages.owner_org, g.id))
    return r.map((x) => x.id)
  }
  const r = await ctx.db
    .select({ id: members.table_id })
    .from(members)
    .where(
      and(
        eq(members.group_id, g.id),
        eq(members.table_name, 'package'),
        eq(members.state, 'active'),
      ),
    )
  return r.map((x) => x.id)
}

/**
 * Creates (no `existing`) or updates a group/organization with its extras and memberships, in
 * one batch. Update replaces users and parent groups (kept when `partial`), replaces datasets
 * of groups only when `packages` is given, and replaces extras only when a non-empty list is.
 */
export async function saveGroup(
  ctx: ActionContext,
  args: { isOrg: boolean; existing?: GroupRow; params: GroupParams; partial: boolean },
): Promise<GroupRow> {
  const { isOrg, existing, params: p, partial } = args
  const now = ctx.now()
  const id = existing?.id ?? (p.id || ctx.newId())
  const type = existing?.type ?? (p.type || kindOf(isOrg))
  const errors: ErrorDict = {}

  const idError = !existing && p.id ? createIdError(ctx, p.id) : undefined
  if (idError) errors.id = [idError]
  else if (!existing && p.id && (await findGroup(ctx, p.id))?.id === p.id)
    // ckan: 2.11 words it as group_id_does_not_exist does; 2.9 had no such check
    errors.id = [apiAtLeast(ctx.config, '2.11') ? 'Id already exists' : 'Group id already exists']
  const extraIds = (p.extras ?? []).map((x) => (isMissing(x.id) ? undefined : extraIdError(ctx, asText(x.id))))
  if (extraIds.some(Boolean)) errors.extras = extraIds.map((e) => (e ? { id: [e] } : {}))
  if (p.name !== undefined && p.name !== existing?.name) {
    const clash = await ctx.db
      .select({ id: groups.id })
      .from(groups)
      .where(and(eq(groups.name, p.name), ne(groups.id, id)))
      .limit(1)
    if (clash.length) errors.name = ['Group name already exists in database']
  }
  // ckan: organizations ignore `packages` (datasets join them through owner_org)
  const pkgRefs = isOrg ? undefined : p.packages
  const pkgs = await findByIdOrName<{ id: string; name: string }>(
    ctx,
    packages,
    (pkgRefs ?? []).map((r) => (r.id || r.name)!),
  )
  if (pkgRefs?.some((r) => !pkgs.has((r.id || r.name)!))) {
    errors.packages = pkgRefs.map((r) =>
      pkgs.has((r.id || r.name)!) ? {} : { [r.id ? 'id' : 'name']: ['Not found: Dataset'] },
    )
  }
  const parents = await findByIdOrName<GroupRow>(
    ctx,
    groups,
    (p.groups ?? []).map((r) => (r.name || r.id)!),
  )
  if (p.groups?.length) {
    const below = existing ? await descendantIds(ctx, id) : new Set<string>()
    const bad = p.groups.map((r) => {
      const parent = parents.get((r.name || r.id)!)
      // ckan: a new group cannot be in a loop; unknown parents are skipped when creating
      if (!parent) return !!existing
      return (
        parent.id === id ||
        below.has(parent.id) ||
        parent.type !== type ||
        parent.state !== 'active'
      )
    })
    if (bad.some(Boolean)) errors.groups = bad.map((b) => (b ? { name: [LOOP] } : {}))
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)

  const steps: Step[] = []
  const changed: ReturnType<typeof changeRow>[] = [changeRow('group', id, 'upsert', groupDetail(existing ? 'updated' : 'created', isOrg))]
  const text = (v: string | null | undefined, old: string | undefined, def = '') =>
    v === undefined ? (old ?? def) : (v ?? '')
  const row: GroupRow = {
    id,
    name: p.name ?? existing!.name,
    title: text(p.title, existing?.title),
    description: text(p.description, existing?.description),
    image_url: text(p.image_url, existing?.image_url),
    type,
    is_organization: existing?.is_organization ?? isOrg,
    approval_status: text(p.approval_status, existing?.approval_status, 'approved'),
    // ckan: state is honoured for sysadmins on create and group admins (the only editors) on update
    state: p.state && (existing || ctx.user?.sysadmin) ? p.state : (existing?.state ?? 'active'),
    created: existing?.created ?? now,
  }
  if (existing) {
    steps.push(ctx.db.update(groups).set(row).where(eq(groups.id, id)))
    const cols = Object.keys(row) as (keyof GroupRow)[]
    // Dataset dicts embed the group's columns: re-index those datasets when any changed.
    if (cols.some((k) => row[k] !== existing[k]))
      for (const d of await datasetsShowing(ctx, existing)) changed.push(changeRow('package', d))
  } else {
    steps.push(ctx.db.insert(groups).values(row))
  }

  steps.push(...(await extraSteps(ctx, id, p.extras, !!existing)))

  const memberRow = (table_name: string) => (tableId: string, capacity: string) => ({
    id: ctx.newId(),
    group_id: id,
    table_id: tableId,
    table_name,
    capacity,
    state: 'active',
  })
  if (p.users !== undefined || !partial) {
    const found = await findByIdOrName<{ id: string; name: string }>(
      ctx,
      users,
      (p.users ?? []).map((u) => u.name),
    )
    const desired = new Map<string, string>()
    for (const u of p.users ?? []) {
      const user = found.get(u.name)
      if (user) desired.set(user.id, u.capacity || 'public') // ckan: the default capacity is 'public'
    }
    if (!existing && ctx.user) desired.set(ctx.user.id, 'admin') // the creator always becomes admin
    const current = existing
      ? await activeMembers(ctx, and(eq(members.group_id, id), eq(members.table_name, 'user')))
      : []
    steps.push(...syncSteps(ctx, current, desired, memberRow('user'), (m) => m.table_id).steps)
  }
  if (p.groups !== undefined || !partial) {
    const desired = new Map<string, string>()
    for (const r of p.groups ?? []) {
      const parent = parents.get((r.name || r.id)!)
      if (parent) desired.set(parent.id, r.capacity || 'parent')
    }
    const current = existing
      ? await activeMembers(ctx, and(eq(members.table_id, id), eq(members.table_name, 'group')))
      : []
    const parentRow = (parentId: string, capacity: string) => ({
      ...memberRow('group')(id, capacity),
      group_id: parentId,
    })
    const sync = syncSteps(ctx, current, desired, parentRow, (m) => m.group_id)
    steps.push(...sync.steps)
    for (const g of sync.touched) changed.push(changeRow('group', g))
  }
  if (pkgRefs !== undefined) {
    const desired = new Map<string, string>()
    for (const r of pkgRefs) desired.set(pkgs.get((r.id || r.name)!)!.id, 'public')
    const current = existing
      ? await activeMembers(ctx, and(eq(members.group_id, id), eq(members.table_name, 'package')))
      : []
    const sync = syncSteps(ctx, current, desired, memberRow('package'), (m) => m.table_id)
    steps.push(...sync.steps)
    for (const d of sync.touched) changed.push(changeRow('package', d))
  }

  const kind = kindOf(row.is_organization)
  const activity = !existing
    ? activityRow(ctx, `new ${kind}`, id, { group: groupColumns(row) })
    : activityRow(
        ctx,
        `${row.state === 'deleted' && existing.state !== 'deleted' ? 'deleted' : 'changed'} ${kind}`,
        id,
        {
          group: groupColumns(row),
        },
      )
  if (activity) steps.push(ctx.db.insert(activities).values(activity))
  steps.push(...changeSteps(ctx, changed))
  await commit(ctx, steps)
  return row
}

async function extraSteps(
  ctx: ActionContext,
  groupId: string,
  extras: GroupParams['extras'],
  update: boolean,
): Promise<Step[]> {
  // ckan: on update, extras change only when a non-empty list is given
  if (!extras?.length) return []
  const current = update
    ? await ctx.db
        .select()
        .from(groupExtras)
        .where(and(eq(groupExtras.group_id, groupId), eq(groupExtras.state, 'active')))
    : []
  const byKey = new Map(current.map((e) => [e.key, e]))
  const wanted = new Map<string, string>()
  for (const x of extras) {
    if (x.deleted) wanted.delete(x.key)
    else wanted.set(x.key, x.value)
  }
  const steps: Step[] = []
  for (const e of current) {
    if (!wanted.has(e.key)) steps.push(ctx.db.delete(groupExtras).where(eq(groupExtras.id, e.id)))
  }
  for (const [key, value] of wanted) {
    const old = byKey.get(key)
    if (!old)
      steps.push(
        ctx.db.insert(groupExtras).values({ id: ctx.newId(), group_id: groupId, key, value }),
      )
    else if (old.value !== value)
      steps.push(ctx.db.update(groupExtras).set({ value }).where(eq(groupExtras.id, old.id)))
  }
  return steps
}

// ---- delete and purge ---------------------------------------------------------------------

/**
 * Marks a group deleted (or purges it) and ends every membership it is part of. An
 * organization's datasets become unowned; the caller checks whether that is allowed.
 */
export async function removeGroup(ctx: ActionContext, g: GroupRow, purge: boolean) {
  const linked = await ctx.db
    .select()
    .from(members)
    .where(
      or(
        eq(members.group_id, g.id),
        and(eq(members.table_id, g.id), eq(members.table_name, 'group')),
      ),
    )
  const live = linked.filter((m) => m.state === 'active')
  const changed = [changeRow('group', g.id, purge ? 'purge' : 'delete', groupDetail(purge ? 'purged' : 'deleted', g.is_organization))]
  for (const m of live) {
    if (m.table_name === 'package') changed.push(changeRow('package', m.table_id))
    if (m.table_name === 'group')
      changed.push(changeRow('group', m.group_id === g.id ? m.table_id : m.group_id))
  }
  const steps: Step[] = []
  if (g.is_organization) {
    // seed: a purged organization's datasets all remain, unowned; deletion frees the live ones
    const owned = purge
      ? eq(packages.owner_org, g.id)
      : and(eq(packages.owner_org, g.id), ne(packages.state, 'deleted'))
    const rows = await ctx.db.select({ id: packages.id }).from(packages).where(owned)
    if (rows.length) steps.push(ctx.db.update(packages).set({ owner_org: null }).where(owned))
    for (const r of rows) changed.push(changeRow('package', r.id))
  }
  const linkCond = or(
    eq(members.group_id, g.id),
    and(eq(members.table_id, g.id), eq(members.table_name, 'group')),
  )
  if (purge) {
    steps.push(
      ctx.db.delete(members).where(linkCond),
      ctx.db.delete(groupExtras).where(eq(groupExtras.group_id, g.id)),
      ctx.db
        .delete(followers)
        .where(and(eq(followers.object_id, g.id), eq(followers.object_type, 'group'))),
      ctx.db.delete(groups).where(eq(groups.id, g.id)),
    )
  } else {
    steps.push(
      ctx.db
        .update(members)
        .set({ state: 'deleted' })
        .where(and(linkCond, eq(members.state, 'active'))),
      ctx.db.update(groups).set({ state: 'deleted' }).where(eq(groups.id, g.id)),
    )
    // ckan: "deleted group" is recorded once, not again for a group deleted before
    const activity =
      g.state === 'deleted'
        ? null
        : activityRow(ctx, `deleted ${kindOf(g.is_organization)}`, g.id, {
            group: groupColumns({ ...g, state: 'deleted' }),
          })
    if (activity) steps.push(ctx.db.insert(activities).values(activity))
  }
  steps.push(...changeSteps(ctx, changed))
  await commit(ctx, steps)
}

/** Whether the organization still owns datasets that are not deleted. */
export async function ownsLiveDatasets(ctx: ActionContext, orgId: string): Promise<boolean> {
  const r = await ctx.db
    .select({ id: packages.id })
    .from(packages)
    .where(and(eq(packages.owner_org, orgId), ne(packages.state, 'deleted')))
    .limit(1)
  return r.length > 0
}

// ---- single memberships -------------------------------------------------------------------