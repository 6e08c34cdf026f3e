// The child rows of a dataset being written (resources, tags, groups, relationships) and their dict items.
import { rawInsert } from '../db/raw-insert'
import { and, eq, inArray, sql } from 'drizzle-orm'
import {
  changeLog,
  members,
  packageRelationships,
  packageTags,
  resourceViews,
  resources,
  tags,
} from '../db/schema'
import type { ActionContext } from '../context'
import { changeRow } from './changes'
import type { PackageDict } from './package'
import type { ResourceInput } from './package-validate'
import { mergeResource } from './resource-merge'
import type { ResourceRow } from './resource'
import { groupEntry, relationshipEntry, type GroupRow, type RelationshipRow } from './package-dict'

import type { Stmt } from './write-batcher'

/**
 * The dataset's resources become exactly `given`, in order: known ids are updated in place, the
 * others created. On update, resources left out are marked deleted and ones deleted before are
 * purged, their views deleted. Returns the final rows.
 */
export function planResources(
  ctx: ActionContext,
  given: ResourceInput[],
  stored: ResourceRow[],
  id: string,
  update: boolean,
  now: string,
  stmts: Stmt[],
): ResourceRow[] {
  const db = ctx.db
  const byId = new Map(stored.map((x) => [x.id, x]))
  const rows = given.map((res, position) => {
    const rid = res.core.id as string | undefined
    return mergeResource(rid ? byId.get(rid) : undefined, res, {
      id: rid ?? ctx.newId(),
      packageId: id,
      position,
      now,
      mimetypeGuess: ctx.config.str('service.mimetype_guess'),
    })
  })
  const keep = new Set(rows.map((x) => x.id))
  if (update) {
    const mine = stored.filter((x) => x.package_id === id && !keep.has(x.id))
    const purge = mine.filter((x) => x.state !== 'active').map((x) => x.id)
    const drop = mine.filter((x) => x.state === 'active').map((x) => x.id)
    // Views go with their resource.
    const gone = [...purge, ...drop]
    if (gone.length) stmts.push(db.delete(resourceViews).where(inArray(resourceViews.resource_id, gone)))
    if (purge.length) stmts.push(db.delete(resources).where(inArray(resources.id, purge)))
    if (drop.length)
      stmts.push(
        db
          .update(resources)
          .set({ state: 'deleted', metadata_modified: now })
          .where(inArray(resources.id, drop)),
      )
  }
  for (const x of rows)
    if (byId.has(x.id)) stmts.push(db.update(resources).set(x).where(eq(resources.id, x.id)))
  const inserts = rows.filter((x) => !byId.has(x.id))
  if (inserts.length) stmts.push(rawInsert(resources, inserts))
  return rows
}

/**
 * The dataset's tags become exactly `wanted`: missing tag rows are created (a concurrent
 * creator wins), then linked by (name, vocabulary) in one statement. Returns the tags with ids.
 */
export function planTags(
  ctx: ActionContext,
  wanted: { name: string; vocabulary_id: string }[],
  existing: { id: string; name: string; vocabulary_id: string }[],
  id: string,
  update: boolean,
  stmts: Stmt[],
) {
  const db = ctx.db
  const rows = wanted.map((t) => {
    const found = existing.find((x) => x.name === t.name && x.vocabulary_id === t.vocabulary_id)
    return { id: found?.id ?? ctx.newId(), name: t.name, vocabulary_id: t.vocabulary_id, found }
  })
  if (update) stmts.push(db.delete(packageTags).where(eq(packageTags.package_id, id)))
  const fresh = rows.filter((t) => !t.found).map(({ found: _f, ...t }) => t)
  if (fresh.length) stmts.push(rawInsert(tags, fresh, { onConflictDoNothing: true }))
  if (rows.length) {
    const values = sql.join(
      rows.map((t) => sql`(${ctx.newId()}, ${t.name}, ${t.vocabulary_id})`),
      sql`, `,
    )
    stmts.push(
      db.run(sql`INSERT INTO package_tag (id, package_id, tag_id, state)
        SELECT v.column1, ${id}, t.id, 'active' FROM (VALUES ${values}) AS v
        JOIN tag t ON t.name = v.column2 AND t.vocabulary_id = v.column3`),
    )
  }
  return rows.map(({ found: _f, ...t }) => t)
}

/**
 * Group memberships of a dataset being written: the groups it ends up in (as dict items), with
 * the member rows to add or end appended to `stmts`. On update, only groups the caller can read
 * change (as CKAN); unknown groups and organizations are ignored.
 */
export async function planGroups(
  ctx: ActionContext,
  refs: string[],
  found: Map<string, GroupRow | null>,
  current: PackageDict | null,
  id: string,
  stmts: Stmt[],
  /** Whether the caller may add the dataset to, or take it out of, a group (auth decides). */
  mayChange: (groupId: string) => Promise<boolean>,
) {
  const db = ctx.db
  const siteUrl = ctx.config.str('service.site_url')
  const wanted = new Map<string, GroupRow>()
  for (const ref of refs) {
    const g = found.get(ref)
    if (g && !g.is_organization) wanted.set(g.id, g)
  }
  const now = (current?.groups ?? []) as ReturnType<typeof groupEntry>[]
  const result = [] as ReturnType<typeof groupEntry>[]
  const removed: string[] = []
  for (const g of now) {
    if (wanted.has(g.id) || !(await mayChange(g.id))) result.push(g)
    else removed.push(g.id)
  }
  const added: GroupRow[] = []
  for (const g of wanted.values()) {
    if (now.some((c) => c.id === g.id)) continue
    if (current && !(await mayChange(g.id))) continue
    added.push(g)
    result.push(groupEntry(g, siteUrl))
  }
  if (removed.length)
    stmts.push(
      db
        .update(members)
        .set({ state: 'deleted' })
        .where(
          and(
            eq(members.table_id, id),
            eq(members.table_name, 'package'),
            inArray(members.group_id, removed),
          ),
        ),
    )
  if (added.length)
    stmts.push(
      db.insert(members).values(
        added.map((g) => ({
          id: ctx.newId(),
          group_id: g.id,
          table_id: id,
          table_name: 'package',
          capacity: 'public',
          state: 'active',
        })),
      ),
    )
  return result
}

type Entry = ReturnType<typeof relationshipEntry>

/**
 * Relationships of a dataset being written: a given list replaces the stored ones on that side
 * (`fresh` holds the new rows); the other datasets involved are logged as changed too.
 */
export function planRelationships(
  ctx: ActionContext,
  given: { asSubject: boolean; asObject: boolean },
  fresh: { subject: RelationshipRow[]; object: RelationshipRow[] },
  current: PackageDict | null,
  id: string,
  stmts: Stmt[],
) {
  const db = ctx.db
  const { asSubject, asObject } = given
  const oldSubject = (current?.relationships_as_subject ?? []) as Entry[]
  const oldObject = (current?.relationships_as_object ?? []) as Entry[]
  const subject: Entry[] = asSubject ? [] : [...oldSubject]
  const object: Entry[] = asObject ? [] : [...oldObject]
  if (current && asSubject)
    stmts.push(
      db
        .update(packageRelationships)
        .set({ state: 'deleted' })
        .where(eq(packageRelationships.subject_package_id, id)),
    )
  if (current && asObject)
    stmts.push(
      db
        .update(packageRelationships)
        .set({ state: 'deleted' })
        .where(eq(packageRelationships.object_package_id, id)),
    )
  const rows = [...fresh.subject, ...fresh.object]
  if (rows.length) stmts.push(db.insert(packageRelationships).values(rows))
  subject.push(...fresh.subject.map(relationshipEntry))
  object.push(...fresh.object.map(relationshipEntry))
  const ended = [...(asSubject ? oldSubject : []), ...(asObject ? oldObject : [])]
  const others = [...rows, ...ended].map((x) =>
    x.subject_package_id === id ? x.object_package_id : x.subject_package_id,
  )
  // The other datasets' dicts list the relationship too.
  for (const o of new Set(others))
    if (o !== id) stmts.push(db.insert(changeLog).values(changeRow('package', o)))
  return { subject, object }
}
