// Groups and organizations (one code path): lookup, visibility, dataset counts and result dicts.
import { and, asc, count, desc, eq, inArray, or } from 'drizzle-orm'
import { apiAtLeast } from '../config/api-compat'
import { groupExtras, groups, members, packages, users } from '../db/schema'
import type { ActionContext } from '../context'
import { NotFound, ValidationError } from '../errors'
import { MISSING } from '../validation/fields'
import { roleHas, userCapacities } from './capacity'
import { collaborationIds } from './collaborator'
import { displayName, imageDisplayUrl } from './group-display'
import { followerCount } from './follower'
import { packageDicts } from './package'
import { userDicts } from './user'
import { groupOutput, groupSchemaFor } from '../scheming/dataset'

export type GroupRow = typeof groups.$inferSelect

/** 'group' or 'organization', as CKAN words it in messages and activity types. */
export const kindOf = (isOrg: boolean) => (isOrg ? 'organization' : 'group')

/** The group or organization with this id or name (ids tried first), or undefined. */
export async function findGroup(
  ctx: ActionContext,
  idOrName: string,
): Promise<GroupRow | undefined> {
  const rows = await ctx.db
    .select()
    .from(groups)
    .where(or(eq(groups.id, idOrName), eq(groups.name, idOrName)))
    .limit(2)
  return rows.find((r) => r.id === idOrName) ?? rows[0]
}

/**
 * The group named by a raw parameter value; memoised per request. Missing → Validation Error
 * under `field`; unknown, or an organization where a group is wanted (`isOrg` given) and vice
 * versa → NotFound with the `notFound` detail.
 */
export function loadGroup(
  ctx: ActionContext,
  raw: unknown,
  opts: { field?: string; notFound?: string; isOrg?: boolean } = {},
): Promise<GroupRow> {
  if (raw === undefined || raw === null || raw === '' || typeof raw === 'object') {
    throw new ValidationError({ [opts.field ?? 'id']: [MISSING] })
  }
  const key = `group:${String(raw)}`
  let p = ctx.memo.get(key) as Promise<GroupRow | undefined> | undefined
  if (!p) {
    p = findGroup(ctx, String(raw))
    ctx.memo.set(key, p)
  }
  return p.then((row) => {
    if (!row || (opts.isOrg !== undefined && row.is_organization !== opts.isOrg)) {
      throw new NotFound(opts.notFound)
    }
    return row
  })
}

/** Forgets what this request memoised about groups (after writing them). */
export function forgetGroups(ctx: ActionContext) {
  for (const k of [...ctx.memo.keys()]) if (k.startsWith('group:')) ctx.memo.delete(k)
}

// ---- datasets -----------------------------------------------------------------------------

/** Organizations whose private datasets the caller may see (null: all, for sysadmins). */
async function readableOrgs(ctx: ActionContext): Promise<Set<string> | null> {
  if (ctx.user?.sysadmin) return null
  if (!ctx.user) return new Set()
  const caps = await userCapacities(ctx, ctx.user.id)
  return new Set([...caps].filter(([, c]) => roleHas(c, 'read')).map(([id]) => id))
}

/**
 * ckan: the datasets a group shows are its active public ones; an organization shows the
 * active datasets it owns, private ones included for its members, their collaborators and
 * sysadmins.
 */
async function ownedDatasetsCond(ctx: ActionContext, orgIds: string[]) {
  const readable = await readableOrgs(ctx)
  const privateOk = readable === null ? orgIds : orgIds.filter((id) => readable.has(id))
  const collaborations = readable === null ? [] : await collaborationIds(ctx)
  const visible = or(
    eq(packages.private, false),
    privateOk.length ? inArray(packages.owner_org, privateOk) : undefined,
    collaborations.length ? inArray(packages.id, collaborations) : undefined,
  )
  return and(inArray(packages.owner_org, orgIds), eq(packages.state, 'active'), visible)
}

const groupDatasetsCond = (groupIds: string[]) =>
  and(
    inArray(members.group_id, groupIds),
    eq(members.table_name, 'package'),
    eq(members.state, 'active'),
    eq(packages.state, 'active'),
    eq(packages.private, false),
  )

/** package_count of each group/organization, as the caller may see it. */
export async function packageCounts(
  ctx: ActionContext,
  rows: GroupRow[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>(rows.map((g) => [g.id, 0]))
  if (!rows.length) return out
  const orgIds = rows.filter((g) => g.is_organization).map((g) => g.id)
  const groupIds = rows.filter((g) => !g.is_organization).map((g) => g.id)
  if (orgIds.length) {
    const r = await ctx.db
      .select({ gid: packages.owner_org, n: count() })
      .from(packages)
      .where(await ownedDatasetsCond(ctx, orgIds))
      .groupBy(packages.owner_org)
    for (const x of r) if (x.gid) out.set(x.gid, x.n)
  }
  if (groupIds.length) {
    const r = await ctx.db
      .select({ gid: members.group_id, n: count() })
      .from(members)
      .innerJoin(packages, eq(packages.id, members.table_id))
      .where(groupDatasetsCond(groupIds))
      .groupBy(members.group_id)
    for (const x of r) out.set(x.gid, x.n)
  }
  return out
}

/** Ids of the datasets the caller sees in a group or organization, newest first. */
export async function groupDatasetIds(
  ctx: ActionContext,
  g: GroupRow,
  limit: number,
): Promise<string[]> {
  if (limit <= 0) return []
  const order = [desc(packages.metadata_modified), asc(packages.id)]
  const r = g.is_organization
    ? await ctx.db
        .select({ id: packages.id })
        .from(packages)
        .where(await ownedDatasetsCond(ctx, [g.id]))
        .orderBy(...order)
        .limit(limit)
    : await ctx.db
        .select({ id: packages.id })
        .from(members)
        .innerJoin(packages, eq(packages.id, members.table_id))
        .where(groupDatasetsCond([g.id]))
        .orderBy(...order)
        .limit(limit)
  return r.map((x) => x.id)
}

/** Dataset dicts in the order of `ids`. */
export async function datasetDicts(ctx: ActionContext, ids: string[]) {
  const dicts = await packageDicts(ctx, ids)
  return ids.map((id) => dicts.get(id)).filter((d) => d !== undefined)
}

// ---- dicts --------------------------------------------------------------------------------

/** The group's own columns, as CKAN's table dictization gives them (activities use this). */
export const groupColumns = (g: GroupRow) => ({
  approval_status: g.approval_status,
  created: g.created,
  description: g.description,
  id: g.id,
  image_url: g.image_url,
  is_organization: g.is_organization,
  name: g.name,
  state: g.state,
  title: g.title,
  type: g.type,
})

/** A group as lists give it: columns, display_name, image_display_url (+ extra keys). */
export function groupListItem(
  ctx: ActionContext,
  g: GroupRow,
  extra: Record<string, unknown> = {},
) {
  return {
    ...groupColumns(g),
    ...extra,
    display_name: displayName(g),
    image_display_url: imageDisplayUrl(g.image_url, ctx.config.str('service.site_url')),
  }
}

const byText = (a: string, b: string) => {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0
}

/** List items sorted by display name, as CKAN's group list dictization sorts them. */
export async function groupListItems(
  ctx: ActionContext,
  rows: { group: GroupRow; capacity?: string }[],
  withCounts: boolean,
) {
  const counts = withCounts
    ? await packageCounts(
        ctx,
        rows.map((r) => r.group),
      )
    : undefined
  return rows
    .map(({ group, capacity }) =>
      groupListItem(ctx, group, {
        ...(capacity !== undefined ? { capacity } : {}),
        ...(counts ? { package_count: counts.get(group.id) ?? 0 } : {}),
      }),
    )
    .sort((a, b) => byText(a.display_name, b.display_name))
}

/** User dicts (no e-mail or key) with their capacity, for a group's `users`, sorted by name. */
async function memberUserDicts(ctx: ActionContext, groupId: string) {
  const rows = await ctx.db
    .select({ user: users, capacity: members.capacity })
    .from(members)
    .innerJoin(users, eq(users.id, members.table_id))
    .where(
      and(
        eq(members.group_id, groupId),
        eq(members.table_name, 'user'),
        eq(members.state, 'active'),
      ),
    )
  const dicts = await userDicts(
    ctx,
    rows.map((r) => r.user),
    { publicOnly: true },
  )
  return dicts
    .map((d, i) => ({ ...d, capacity: rows[i]!.capacity }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** Parent groups: `{capacity, name}` for show, list-item dicts with capacity otherwise. */
async function parentGroups(ctx: ActionContext, g: GroupRow, full: boolean) {
  const rows = await ctx.db
    .select({ group: groups, capacity: members.capacity })
    .from(members)
    .innerJoin(groups, eq(groups.id, members.group_id))
    .where(
      and(
        eq(members.table_id, g.id),
        eq(members.table_name, 'group'),
        eq(members.state, 'active'),
        eq(groups.state, 'active'),
      ),
    )
  if (full) return groupListItems(ctx, rows, true)
  return rows
    .map((r) => ({ capacity: r.capacity, name: r.group.name }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

export async function groupExtraDicts(ctx: ActionContext, groupId: string) {
  const rows = await ctx.db
    .select()
    .from(groupExtras)
    .where(and(eq(groupExtras.group_id, groupId), eq(groupExtras.state, 'active')))
    .orderBy(asc(groupExtras.key))
  return rows.map((e) => ({
    group_id: e.group_id,
    id: e.id,
    key: e.key,
    state: e.state,
    value: e.value,
  }))
}

export interface GroupDictOptions {
  /** How many dataset dicts to put under `packages` (0: no `packages` key). */
  datasets: number
  count: boolean
  extras: boolean
  users: boolean
  groups: boolean
  tags: boolean
  followers: boolean
  /** The update/patch result: no num_followers, full parent dicts. */
  forUpdate?: boolean
}

/**
 * group_show's defaults. seed: users are listed only on request for groups; organizations list
 * them by default (as CKAN does for both) unless user details are not public.
 */
export const SHOW_DEFAULTS = (ctx: ActionContext, isOrg: boolean): GroupDictOptions => ({
  datasets: 0,
  count: true,
  extras: true,
  // seed: group_show leaves users out by default; CKAN (and this catalogue from api_compat 2.10)
  // includes them in both when user details are public
  users: (isOrg || apiAtLeast(ctx.config, '2.10')) && ctx.config.bool('service.auth.public_user_details'),
  groups: true,
  tags: true,
  followers: true,
})

/** The group_show / organization_show dict (or the update result with `forUpdate`). */
export async function groupDict(ctx: ActionContext, g: GroupRow, o: GroupDictOptions) {
  const d: Record<string, unknown> = groupListItem(ctx, g)
  if (o.extras) d.extras = await groupExtraDicts(ctx, g.id)
  if (o.groups) d.groups = await parentGroups(ctx, g, !!o.forUpdate)
  if (!o.forUpdate) {
    d.num_followers = o.followers ? await followerCount(ctx, g, 'group') : 0
  }
  if (o.datasets > 0 || o.count) d.package_count = (await packageCounts(ctx, [g])).get(g.id) ?? 0
  if (o.datasets > 0)
    d.packages = await datasetDicts(ctx, await groupDatasetIds(ctx, g, o.datasets))
  if (o.tags) d.tags = []
  if (o.users) d.users = await memberUserDicts(ctx, g.id)
  const schema = o.extras ? groupSchemaFor(ctx.schemas, g.is_organization, g.type) : undefined
  return schema ? groupOutput(schema, d) : d
}

/** ckan asbool: true/false spellings only; anything else is an error (group_show flags). */
export function strictBool(v: unknown, def: boolean): boolean | undefined {
  if (v === undefined) return def
  if (v === null) return false
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  if (Array.isArray(v)) return v.length > 0
  if (typeof v !== 'string') return Object.keys(v as object).length > 0
  const s = v.trim().toLowerCase()
  if (['true', 'yes', 'on', 'y', 't', '1'].includes(s)) return true
  if (['false', 'no', 'off', 'n', 'f', '0'].includes(s)) return false
  return undefined
}

/** Ids of every group below `id` in the hierarchy (children, grandchildren, …). */
export async function descendantIds(ctx: ActionContext, id: string): Promise<Set<string>> {
  const edges = await ctx.db
    .select({ parent: members.group_id, child: members.table_id })
    .from(members)
    .where(and(eq(members.table_name, 'group'), eq(members.state, 'active')))
  const children = new Map<string, string[]>()
  for (const e of edges) children.set(e.parent, [...(children.get(e.parent) ?? []), e.child])
  const seen = new Set<string>()
  const queue = [id]
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (!seen.has(c)) {
        seen.add(c)
        queue.push(c)
      }
    }
  }
  return seen
}
