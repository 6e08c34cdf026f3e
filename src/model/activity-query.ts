// Reading activity streams: who sees which activities, and one paged query over index lookups.
import type { ActionContext, UserRow } from '../context'
import type { RawStatement } from '../db/executor'
import { roleHas, userCapacities } from './capacity'
import { collaborationIds } from './collaborator'
import { storedActivity, type StoredActivity } from './activity'
import { siteUserName } from './user'

type Value = RawStatement['args'][number]

/** A fragment of SQL with its bound values, in order (the text only ever holds `?`). */
export interface Sql {
  text: string
  args: Value[]
}

/** Builds a fragment: interpolated fragments are inlined, anything else becomes a `?`. */
export function sql(strings: TemplateStringsArray, ...values: (Sql | Value)[]): Sql {
  let text = strings[0]!
  const args: Value[] = []
  values.forEach((v, i) => {
    if (v !== null && typeof v === 'object' && 'text' in v && 'args' in v) {
      text += v.text
      args.push(...v.args)
    } else {
      text += '?'
      args.push(v as Value)
    }
    text += strings[i + 1]!
  })
  return { text, args }
}

const joinSql = (parts: Sql[], sep: string): Sql => ({
  text: parts.map((p) => p.text).join(sep),
  args: parts.flatMap((p) => p.args),
})

/** Whose read rights decide which dataset activities a stream shows. */
export interface Viewer {
  userId: string | null
  sysadmin: boolean
  /** Organizations whose private datasets the viewer may read (any role, cascade applied). */
  orgs: string[]
  /** Datasets the viewer may read as a collaborator (empty while the feature is off). */
  datasets: string[]
}

/** The viewer for a user (null: anonymous); capacities are cached per process. */
export async function viewerFor(
  ctx: ActionContext,
  user: Pick<UserRow, 'id' | 'sysadmin'> | null,
): Promise<Viewer> {
  if (!user) return { userId: null, sysadmin: false, orgs: [], datasets: [] }
  if (user.sysadmin) return { userId: user.id, sysadmin: true, orgs: [], datasets: [] }
  const caps = await userCapacities(ctx, user.id)
  const orgs = [...caps].filter(([, c]) => roleHas(c, 'read')).map(([g]) => g)
  return { userId: user.id, sysadmin: false, orgs, datasets: await collaborationIds(ctx, user) }
}

/**
 * ckan: activity by these users is hidden from streams: service.hide_activity_from_users (names
 * or ids), else the site user.
 */
export function hiddenUsers(ctx: ActionContext): string[] {
  const listed = ctx.config.list('service.hide_activity_from_users')
  return listed.length ? listed : [siteUserName(ctx)]
}

/**
 * True unless `id` is a dataset that is private now and that the viewer may not read: sysadmins
 * read all, members of its organization read it, the creator reads an unowned one, and its
 * collaborators read it.
 */
export function readableObject(v: Viewer, id: Sql): Sql {
  if (v.sysadmin) return sql`1`
  // Most viewers collaborate on nothing: their query stays as it was.
  const notCollaborated = v.datasets.length
    ? sql` AND rp.id NOT IN (SELECT value FROM json_each(${JSON.stringify(v.datasets)}))`
    : sql``
  return sql`NOT EXISTS (
    SELECT 1 FROM package rp WHERE rp.id = ${id} AND rp.private = 1 AND CASE
      WHEN rp.owner_org IS NULL THEN coalesce(rp.creator_user_id = ${v.userId}, 0) = 0
      ELSE rp.owner_org NOT IN (SELECT value FROM json_each(${JSON.stringify(v.orgs)})) END${notCollaborated})`
}

/**
 * Whether the viewer could read the dataset as it was when the activity was recorded (CKAN
 * 2.11's permission labels, read from the dataset dict the activity keeps): an activity of a
 * dataset that was private then is shown to sysadmins, members of the organization that owned
 * it then, its creator when no organization owned it, and its collaborators. Activities that
 * are not about a dataset, or about one that was public then, pass. Only CKAN 2.11 records
 * activities of private datasets, but rows made by activity_create, or under 2.11 before the
 * setting went back, are held to the same rule under every setting.
 */
export function readableAtTheTime(v: Viewer, a: StoredActivity): boolean {
  if (v.sysadmin || !a.activity_type.endsWith('package')) return true
  if (!/"private"\s*:\s*true/.test(a.data)) return true // most rows: no parse
  let pkg: Record<string, unknown>
  try {
    const data = JSON.parse(a.data) as { package?: unknown }
    if (!data.package || typeof data.package !== 'object') return true
    pkg = data.package as Record<string, unknown>
  } catch {
    return false // unreadable: shown to sysadmins only
  }
  if (pkg.private !== true) return true
  if (a.object_id !== null && v.datasets.includes(a.object_id)) return true
  const org = pkg.owner_org
  if (typeof org === 'string' && org) return v.orgs.includes(org)
  return v.userId !== null && pkg.creator_user_id === v.userId
}

/**
 * Whether the activity row `a` may be shown: not by a hidden user (unless `includeHidden`), and,
 * when its object is a dataset that is private now, only to those who may read that dataset
 * (activityPage then applies readableAtTheTime). Datasets become private after the fact (package_update, bulk_update_private), and their
 * earlier public activities stay in the table.
 */
function visibleSql(
  ctx: ActionContext,
  v: Viewer,
  includeHidden: boolean,
  excludeUser?: string,
): Sql {
  const hidden = JSON.stringify(hiddenUsers(ctx))
  return sql`(${includeHidden ? 1 : 0} = 1 OR a.user_id IS NULL OR a.user_id NOT IN (
      SELECT id FROM "user" WHERE id IN (SELECT value FROM json_each(${hidden}))
        OR name IN (SELECT value FROM json_each(${hidden}))))
    AND ${readableObject(v, sql`a.object_id`)}
    AND (a.user_id IS NULL OR a.user_id IS NOT ${excludeUser ?? null})`
}

/**
 * One source of a stream: `SELECT x.rowid AS rid, x.timestamp AS ts FROM activity x WHERE …`,
 * answerable from one index (object, user or timestamp), newest first.
 */
export type Source = Sql

export const byActor = (userId: string): Source =>
  sql`SELECT x.rowid AS rid, x.timestamp AS ts FROM activity x WHERE x.user_id = ${userId}`

export const aboutObject = (objectId: string): Source =>
  sql`SELECT x.rowid AS rid, x.timestamp AS ts FROM activity x WHERE x.object_id = ${objectId}`

/** Activities whose object is one of the ids a subquery gives (each probes the object index). */
export const aboutObjectsIn = (ids: Sql): Source =>
  sql`SELECT x.rowid AS rid, x.timestamp AS ts FROM activity x WHERE x.object_id IN (${ids})`

export const byActorsIn = (ids: Sql): Source =>
  sql`SELECT x.rowid AS rid, x.timestamp AS ts FROM activity x WHERE x.user_id IN (${ids})`

export interface PageOptions {
  viewer: Viewer
  offset: number
  limit: number
  /** Include activity by hidden users (sysadmins who ask for it). */
  includeHidden?: boolean
  /** Only activities newer than this timestamp (newest first, as without it). */
  since?: string
  /**
   * ckan 2.10 `before` and `after`: only activities older than `before`, newer than `after`.
   * With `after` alone the page is counted from the oldest activity after it (the ones closest
   * to it), and still given newest first.
   */
  before?: string
  after?: string
  /** ckan 2.10 `activity_types` (only these) or `exclude_activity_types` (all but these). */
  types?: { only?: string[]; except?: string[] }
  /** Leave out activities by this user. */
  excludeUser?: string
}

/** The conditions every arm of a page applies on its own index: time window and types. */
function armFilter(o: PageOptions): Sql {
  const parts: Sql[] = []
  if (o.since !== undefined) parts.push(sql` AND x.timestamp > ${o.since}`)
  if (o.after !== undefined) parts.push(sql` AND x.timestamp > ${o.after}`)
  if (o.before !== undefined) parts.push(sql` AND x.timestamp < ${o.before}`)
  if (o.types?.only)
    parts.push(
      sql` AND x.activity_type IN (SELECT value FROM json_each(${JSON.stringify(o.types.only)}))`,
    )
  else if (o.types?.except)
    parts.push(
      sql` AND x.activity_type NOT IN (SELECT value FROM json_each(${JSON.stringify(o.types.except)}))`,
    )
  return joinSql(parts, '')
}

/**
 * A page of the union of `sources`, newest first, as the viewer may see it.
 *
 * Each source is cut to its newest K rows straight from its index (K a little over offset +
 * limit), the union is cut to K again, and only those K rows are read and checked. Rows the
 * viewer may not see are rare, so one query is usually enough; when too many of the K were
 * dropped and more exist, K grows and the query runs again. Ties on timestamp go by insertion
 * order (rowid). With `after` alone the same is done from the oldest end (ckan: the order is
 * reversed, paged, and reversed back).
 */
export async function activityPage(
  ctx: ActionContext,
  sources: Source[],
  o: PageOptions,
): Promise<StoredActivity[]> {
  const want = o.offset + o.limit
  if (!sources.length || o.limit <= 0) return []
  const fromOldest = o.after !== undefined && o.before === undefined
  const dir = fromOldest ? sql` ASC` : sql` DESC`
  const within = armFilter(o)
  const visible = visibleSql(ctx, o.viewer, !!o.includeHidden, o.excludeUser)
  // A little more than the page, so that a few dropped rows do not cost a second query.
  for (let k = Math.ceil(want * 1.25) + 4; ; k *= 4) {
    const arms = sources.map(
      (s) => sql`SELECT * FROM (${s}${within} ORDER BY ts${dir}, rid${dir} LIMIT ${k})`,
    )
    const q = sql`SELECT a.rowid AS rid, a.id, a.timestamp, a.user_id, a.object_id,
        a.activity_type, a.data, ${visible} AS visible
      FROM (SELECT rid, ts FROM (${joinSql(arms, ' UNION ')})
        ORDER BY ts${dir}, rid${dir} LIMIT ${k}) c
      JOIN activity a ON a.rowid = c.rid
      ORDER BY c.ts${dir}, c.rid${dir}`
    const rows = await ctx.read(q.text, q.args)
    const shown = rows
      .filter((r) => Number(r.visible) === 1)
      .map(storedActivity)
      .filter((a) => readableAtTheTime(o.viewer, a))
    if (shown.length >= want || rows.length < k) {
      const page = shown.slice(o.offset, want)
      return fromOldest ? page.reverse() : page
    }
  }
}
