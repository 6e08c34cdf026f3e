// Dataset relationships for the relationship actions: request checks, stored form, lookups, dicts.
import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm'
import { changeLog, packageRelationships, packages } from '../db/schema'
import type { ActionContext } from '../context'
import type { PackageAuthInfo } from './package'
import { NotFound, ValidationError } from '../errors'
import { pyRepr } from '../lib/py-repr'
import { isEmptyValue, MISSING } from '../validation/fields'
import { changeRow } from './changes'
import type { PackageRow } from './package'
import { findPackageRef } from './package-ref'
import type { RelationshipRow } from './package-dict'
import { asText, RELATIONSHIP_TYPES } from './package-validate'
import type { Stmt } from './write-batcher'

export type { RelationshipRow }

const ALL_TYPES = RELATIONSHIP_TYPES.flat()

/** ckan: one_of's message lists the types as a Python list. */
export const TYPE_MESSAGE = `Value must be one of [${ALL_TYPES.map((t) => `'${t}'`).join(', ')}]`

/** The other type of a type's pair (depends_on ↔ dependency_of); undefined if unknown. */
export function reverseType(type: string): string | undefined {
  for (const [fwd, rev] of RELATIONSHIP_TYPES) {
    if (fwd === type) return rev
    if (rev === type) return fwd
  }
  return undefined
}

const isForward = (type: string) => RELATIONSHIP_TYPES.some(([fwd]) => fwd === type)

/** A relationship request after CKAN's checks: both datasets found, type as given. */
export interface RelationshipRequest {
  subject: PackageRow
  object: PackageRow
  type: string
  /** The comment as sent; undefined when absent. */
  comment: string | undefined
}

const absent = (v: unknown) => v === undefined || v === null

/**
 * The checks package_relationship_create/update/delete make before authorization, in CKAN's
 * order: the three keys present, the subject, then the object found (CKAN 2.9 crashes on an
 * unknown object: we answer 404), then, on create, the type and the absence of `id`.
 */
export async function checkRelationshipRequest(
  ctx: ActionContext,
  input: Record<string, unknown>,
  validate: boolean,
): Promise<RelationshipRequest> {
  const missing: Record<string, string[]> = {}
  for (const k of ['subject', 'object', 'type']) if (absent(input[k])) missing[k] = [MISSING]
  if (Object.keys(missing).length) throw new ValidationError(missing)
  const subject = await findPackageRef(ctx, input.subject)
  if (!subject) throw new NotFound(`Subject package ${pyRepr(input.subject)} was not found.`)
  const object = await findPackageRef(ctx, input.object)
  if (!object) throw new NotFound(`Object package ${pyRepr(input.object)} was not found.`)
  const type = asText(input.type)
  if (validate) {
    const errors: Record<string, string[]> = {}
    if (type === '') errors.type = [MISSING]
    else if (!ALL_TYPES.includes(type)) errors.type = [TYPE_MESSAGE]
    // ckan: the create schema wants no id (the `empty` validator)
    const id = input.id
    if (!isEmptyValue(id) && id !== false && id !== 0)
      errors.id = ['The input field id was not expected.']
    if (Object.keys(errors).length) throw new ValidationError(errors)
  }
  return {
    subject,
    object,
    type,
    comment: absent(input.comment) ? undefined : asText(input.comment),
  }
}

/** The stored (forward) form of "subject type object": a reverse type is stored swapped. */
export function storedForm(subjectId: string, type: string, objectId: string) {
  if (isForward(type)) return { subject_package_id: subjectId, type, object_package_id: objectId }
  return {
    subject_package_id: objectId,
    type: reverseType(type) ?? type,
    object_package_id: subjectId,
  }
}

/**
 * Relationships of dataset `id` (optionally with `withId`, optionally of `type` as seen from
 * `id`), stored as subject or object; active ones unless `anyState`. Oldest first.
 */
export async function findRelationships(
  ctx: ActionContext,
  id: string,
  opts: { withId?: string; type?: string; anyState?: boolean } = {},
): Promise<RelationshipRow[]> {
  const r = packageRelationships
  const asSubject: SQL[] = [eq(r.subject_package_id, id)]
  const asObject: SQL[] = [eq(r.object_package_id, id)]
  if (opts.withId !== undefined) {
    asSubject.push(eq(r.object_package_id, opts.withId))
    asObject.push(eq(r.subject_package_id, opts.withId))
  }
  if (opts.type !== undefined) {
    // ckan: "A dependency_of B" is stored as "B depends_on A"; an unknown type matches nothing
    asSubject.push(eq(r.type, opts.type))
    const rev = reverseType(opts.type)
    asObject.push(rev === undefined ? sql`0` : eq(r.type, rev))
  }
  const where = or(and(...asSubject), and(...asObject))!
  return ctx.db
    .select()
    .from(r)
    .where(opts.anyState ? where : and(where, eq(r.state, 'active')))
    .orderBy(sql`rowid`)
}

/** The active relationship "subject type object" (either direction of its type), if any. */
export async function findRelationship(ctx: ActionContext, req: RelationshipRequest) {
  const rows = await findRelationships(ctx, req.subject.id, {
    withId: req.object.id,
    type: req.type,
  })
  return rows[0]
}

/** The datasets with these ids (any state): names and what read authorization needs. */
export async function relatedPackages(
  ctx: ActionContext,
  ids: string[],
): Promise<Map<string, PackageAuthInfo & { name: string }>> {
  const unique = [...new Set(ids)]
  if (!unique.length) return new Map()
  const rows = await ctx.db
    .select({
      id: packages.id,
      name: packages.name,
      owner_org: packages.owner_org,
      private: packages.private,
      state: packages.state,
      creator_user_id: packages.creator_user_id,
    })
    .from(packages)
    .where(inArray(packages.id, unique))
  return new Map(rows.map((p) => [p.id, p]))
}

/** The API's relationship dict: datasets by name, from `pointOfView`'s side if it is the object. */
export function relationshipToDict(
  row: Pick<RelationshipRow, 'subject_package_id' | 'object_package_id' | 'type' | 'comment'>,
  names: Map<string, string>,
  pointOfView?: string,
) {
  const swap = pointOfView !== undefined && row.object_package_id === pointOfView
  const subject = swap ? row.object_package_id : row.subject_package_id
  const object = swap ? row.subject_package_id : row.object_package_id
  return {
    subject: names.get(subject) ?? subject,
    type: swap ? (reverseType(row.type) ?? row.type) : row.type,
    object: names.get(object) ?? object,
    comment: row.comment,
  }
}

/** Change-log rows for both datasets of a relationship: their cached dicts list it. */
export function relationshipChangeRows(
  ctx: ActionContext,
  row: Pick<RelationshipRow, 'subject_package_id' | 'object_package_id'>,
): Stmt[] {
  const ids = new Set([row.subject_package_id, row.object_package_id])
  return [...ids].map((id) => ctx.db.insert(changeLog).values(changeRow('package', id)))
}

/** The names of the two datasets of a request, by id (for relationshipToDict). */
export function requestNames(req: Pick<RelationshipRequest, 'subject' | 'object'>) {
  return new Map([
    [req.subject.id, req.subject.name],
    [req.object.id, req.object.name],
  ])
}

/** Sets the comment of a stored relationship in one write (none when it is unchanged). */
export async function setRelationshipComment(
  ctx: ActionContext,
  row: RelationshipRow,
  comment: string,
): Promise<RelationshipRow> {
  if (row.comment === comment) return row
  await ctx.writer.write([
    ctx.db.update(packageRelationships).set({ comment }).where(eq(packageRelationships.id, row.id)),
    ...relationshipChangeRows(ctx, row),
  ])
  return { ...row, comment }
}

/**
 * Stores "subject type object" in its forward form. ckan: a deleted copy is brought back (its
 * comment kept unless a new one is sent) rather than a second row added.
 */
export async function addRelationship(
  ctx: ActionContext,
  req: RelationshipRequest,
): Promise<RelationshipRow> {
  const form = storedForm(req.subject.id, req.type, req.object.id)
  const r = packageRelationships
  const [old] = await ctx.db
    .select()
    .from(r)
    .where(
      and(
        eq(r.subject_package_id, form.subject_package_id),
        eq(r.object_package_id, form.object_package_id),
        eq(r.type, form.type),
      ),
    )
    .orderBy(sql`rowid`)
    .limit(1)
  const row: RelationshipRow = old
    ? { ...old, state: 'active', comment: req.comment ? req.comment : old.comment }
    : { id: ctx.newId(), ...form, comment: req.comment ?? '', state: 'active' }
  await ctx.writer.write([
    old
      ? ctx.db.update(r).set({ state: row.state, comment: row.comment }).where(eq(r.id, row.id))
      : ctx.db.insert(r).values(row),
    ...relationshipChangeRows(ctx, row),
  ])
  return row
}

/** Marks a relationship deleted (ckan keeps the row) in one write. */
export async function deleteRelationship(ctx: ActionContext, row: RelationshipRow) {
  await ctx.writer.write([
    ctx.db
      .update(packageRelationships)
      .set({ state: 'deleted' })
      .where(eq(packageRelationships.id, row.id)),
    ...relationshipChangeRows(ctx, row),
  ])
}
