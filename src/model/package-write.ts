// package_create / package_update: validate a dataset dict, write it in one batch, return its dict.
import { createIdError, extraIdError, newResourceIdError, resourceIdsAreUuids } from './create-id'
import { datasetChanged, noteChanged } from './changed-entities'
import { rawInsert } from '../db/raw-insert'
import { eq } from 'drizzle-orm'
import { activities, changeLog, packageExtras, packages } from '../db/schema'
import type { ActionContext } from '../context'
import { ValidationError, type ErrorDict } from '../errors'
import { packageActivityRow, recordsPrivateActivity } from './activity'
import { immutableJson } from '../lib/json'
import { changeRow, packageDetail, type Change } from './changes'
import { datasetDefaultViews } from './default-views'
import { forgetPackages, type PackageDict, type PackageRow } from './package'
import { storeDictStatement } from './package-json'
import {
  assemblePackageDict,
  organizationEntry,
  type GroupRow,
  type RelationshipRow,
} from './package-dict'
import { addError, addItemError, lookup, type Lookups } from './package-lookup'
import { planGroups, planRelationships, planResources, planTags } from './package-parts'
import { syncDatasetFiles } from './resource-file'
import {
  checkPackage,
  PACKAGE_TEXT,
  RELATIONSHIP_TYPES,
  type PackageInput,
} from './package-validate'

import type { Stmt } from './write-batcher'
import { datasetInput, datasetSchemaFor, mergeErrors } from '../scheming/dataset'
import { readSpatial } from '../lib/geo/geojson'

const NAME_IN_USE = 'That URL is already in use.'

/**
 * What the caller may do while a dataset is written, decided by auth/ (`packageWritePolicy`) and
 * asked here where the answer is a Validation Error or a kept membership rather than a refusal.
 */
export interface PackageWritePolicy {
  /** ckan owner_org_validator: a collaborator who may not move the dataset elsewhere. */
  mayNotMove(target: PackageRow): Promise<boolean>
  /** The caller may put a dataset into this organization. */
  mayAddToOrg(orgId: string): Promise<boolean>
  /** The caller may add the dataset to, or take it out of, this group. */
  mayChangeGroup(groupId: string): Promise<boolean>
}

/** Creates a dataset from a raw data dict (auth already checked); returns its package_show dict. */
export async function createPackage(
  ctx: ActionContext,
  raw: Record<string, unknown>,
  policy: PackageWritePolicy,
  opts: { also?: Stmt[] } = {},
): Promise<PackageDict> {
  const privileged = !!ctx.user?.sysadmin || !!ctx.ignoreAuth
  const { input, errors } = checkTyped(ctx, raw, 'create', optType(raw.type) || 'dataset', privileged)
  const idError = input.id === undefined ? undefined : createIdError(ctx, input.id)
  if (idError) {
    errors.id = [idError]
    delete input.id // ckan: the id's own checks stop at the first that fails
  }
  const look = await lookup(ctx, input, null)
  const state = await resolve(ctx, input, look, errors, null, policy)
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return write(ctx, input, look, state, null, true, policy, { also: opts.also })
}

/**
 * Replaces a dataset with a raw data dict (auth already checked); returns its new dict.
 * `guard`: a statement that runs first in the batch and fails it (package-version.ts).
 * `defaultViews: false` (package_patch): new resources get no default views.
 * `also`: statements that commit in the same batch as the dataset (a harvest object's outcome).
 */
export async function updatePackage(
  ctx: ActionContext,
  raw: Record<string, unknown>,
  target: PackageRow,
  current: PackageDict,
  policy: PackageWritePolicy,
  opts: { guard?: Stmt; defaultViews?: boolean; also?: Stmt[] } = {},
): Promise<PackageDict> {
  const { input, errors } = checkTyped(ctx, raw, 'update', target.type, true)
  const look = await lookup(ctx, input, target)
  const state = await resolve(ctx, input, look, errors, target, policy)
  if (Object.keys(errors).length) throw new ValidationError(errors)
  const cur = { row: target, dict: current }
  const after = await write(ctx, input, look, state, cur, opts.defaultViews ?? true, policy, opts)
  if (ctx.changed && datasetChanged(current, after)) noteChanged(ctx, 'packages', target.id)
  return after
}

const optType = (v: unknown) => (typeof v === 'string' ? v : '')

/**
 * The raw dict through its dataset type's schema, where the site has one (scheming), then the core
 * checks; the errors of both, the schema's first.
 */
function checkTyped(ctx: ActionContext, raw: Record<string, unknown>, mode: 'create' | 'update', type: string, privileged: boolean) {
  const schema = datasetSchemaFor(ctx.schemas, type)
  const typed = schema ? datasetInput(schema, raw, mode) : { raw, errors: {} }
  const checked = checkPackage(typed.raw, mode, privileged, {
    extraId: (id) => extraIdError(ctx, id),
    uuidResourceIds: resourceIdsAreUuids(ctx),
  })
  return { input: checked.input, errors: mergeErrors(mergeErrors(typed.errors, checked.errors), spatialErrors(checked.input)) }
}

/**
 * ckanext-spatial's check of the `spatial` extra (a schema field named `spatial` is stored as
 * one): GeoJSON text, or its messages. An empty value is no geometry.
 */
function spatialErrors(input: { extras?: { key: string; value: string }[] }): ErrorDict {
  const value = input.extras?.find((e) => e.key === 'spatial')?.value
  if (!value) return {}
  const read = readSpatial(value)
  return read.ok ? {} : { spatial: [read.error] }
}

interface Resolved {
  org: GroupRow | null | undefined // undefined: unchanged (update)
  renameDeleted?: string
  tags: { name: string; vocabulary_id: string }[]
  subjectRels: RelationshipRow[]
  objectRels: RelationshipRow[]
}

/** The checks that need the database; adds CKAN's messages to `errors`. */
async function resolve(
  ctx: ActionContext,
  input: PackageInput,
  look: Lookups,
  errors: ErrorDict,
  target: PackageRow | null,
  policy: PackageWritePolicy,
): Promise<Resolved> {
  const out: Resolved = { org: undefined, tags: [], subjectRels: [], objectRels: [] }
  const selfId = target?.id ?? input.id
  if (input.id && look.clashes.some((p) => p.id === input.id))
    addError(errors, 'id', 'Dataset id already exists')
  if (input.name !== undefined) {
    for (const p of look.clashes) {
      if (p.name !== input.name || p.id === target?.id) continue
      if (p.state === 'deleted') out.renameDeleted = p.id
      else addError(errors, 'name', NAME_IN_USE)
    }
  }
  // ckan: owner_org may be an id or a name; it is stored as the id
  const unowned = ctx.config.bool('service.auth.create_unowned_dataset')
  const ref = input.owner_org
  if (target && ref === target.owner_org) {
    out.org = undefined
  } else if (ref === undefined || ref === null || ref === '') {
    if (target && (ref === undefined || ref === null)) out.org = undefined
    else if (!unowned) addError(errors, 'owner_org', 'An organization must be provided')
    else out.org = null
  } else if (target && (await policy.mayNotMove(target))) {
    // ckan: compared with the value as given, so even the current organization's name counts
    addError(errors, 'owner_org', 'You cannot move this dataset to another organization')
  } else {
    const org = look.groups.get(ref)
    if (!org || !org.is_organization) addError(errors, 'owner_org', 'Organization does not exist')
    else if (
      org.id !== target?.owner_org &&
      !ctx.ignoreAuth &&
      !(await policy.mayAddToOrg(org.id))
    )
      addError(errors, 'owner_org', 'You cannot add a dataset to this organization')
    else out.org = org
  }
  const finalOrg = out.org === undefined ? target?.owner_org : out.org?.id
  if (input.private && !finalOrg)
    addError(errors, 'private', "Datasets with no organization can't be private.")

  const seen = new Set<string>()
  for (const t of input.tags ?? []) {
    let vocab = ''
    if (t.vocabulary_id) {
      const v =
        look.vocabularies.find((x) => x.id === t.vocabulary_id) ??
        look.vocabularies.find((x) => x.name === t.vocabulary_id)
      if (!v) {
        addError(errors, 'tags', 'Tag vocabulary was not found.')
        continue
      }
      vocab = v.id
    }
    const key = `${vocab}\u0000${t.name}`
    if (!seen.has(key)) out.tags.push({ name: t.name, vocabulary_id: vocab })
    seen.add(key)
  }
  const list = input.resources ?? []
  const listed = new Set<unknown>()
  list.forEach((r, i) => {
    const row = r.core.id ? look.resources.find((x) => x.id === r.core.id) : undefined
    // ckan 2.11: a resource id new to the dataset must be a UUID (its checks stop there)
    const idError = r.core.id && !(row && row.package_id === selfId) ? newResourceIdError(ctx, r.core.id as string) : undefined
    if (idError) {
      addItemError(errors, 'resources', list.length, i, 'id', idError)
      listed.add(r.core.id)
      return
    }
    const taken = row && row.package_id !== selfId && row.state === 'active'
    if (taken || (r.core.id && listed.has(r.core.id)))
      addItemError(errors, 'resources', list.length, i, 'id', 'Resource id already exists.')
    listed.add(r.core.id)
  })
  for (const key of ['relationships_as_subject', 'relationships_as_object'] as const) {
    const rels = input[key] ?? []
    rels.forEach((r, i) => {
      if (!r.other || !r.type) return
      const other =
        look.others.find((p) => p.id === r.other) ?? look.others.find((p) => p.name === r.other)
      const otherKey = key === 'relationships_as_subject' ? 'object' : 'subject'
      if (!other) return addItemError(errors, key, rels.length, i, otherKey, 'Not found: Dataset')
      // ckan: relationships are stored in their forward form
      const pair = RELATIONSHIP_TYPES.find(([fwd, rev]) => fwd === r.type || rev === r.type)!
      const reverse = pair[1] === r.type
      const thisIsSubject = (key === 'relationships_as_subject') !== reverse
      const rel: RelationshipRow = {
        id: ctx.newId(),
        subject_package_id: thisIsSubject ? (selfId ?? '') : other.id,
        object_package_id: thisIsSubject ? other.id : (selfId ?? ''),
        type: pair[0],
        comment: r.comment,
        state: 'active',
      }
      ;(thisIsSubject ? out.subjectRels : out.objectRels).push(rel)
    })
  }
  return out
}

interface Current {
  row: PackageRow
  dict: PackageDict
}

async function write(
  ctx: ActionContext,
  input: PackageInput,
  look: Lookups,
  r: Resolved,
  cur: Current | null,
  defaultViews: boolean,
  policy: PackageWritePolicy,
  extra: { guard?: Stmt; also?: Stmt[] } = {},
): Promise<PackageDict> {
  const db = ctx.db
  const now = ctx.now()
  const id = cur?.row.id ?? input.id ?? ctx.newId()
  const old = cur?.row
  const row: PackageRow = {
    id,
    name: input.name ?? old!.name,
    title: input.title ?? null,
    type: old?.type ?? input.type ?? 'dataset',
    owner_org: r.org === undefined ? (old?.owner_org ?? null) : (r.org?.id ?? null),
    private: input.private ?? old?.private ?? false,
    state: input.state ?? old?.state ?? 'active',
    author: null,
    author_email: null,
    maintainer: null,
    maintainer_email: null,
    license_id: null,
    notes: null,
    url: null,
    version: null,
    creator_user_id: old ? old.creator_user_id : (ctx.user?.id ?? null),
    metadata_created: old?.metadata_created ?? now,
    metadata_modified: now,
  }
  for (const k of PACKAGE_TEXT) row[k] = input.text[k] ?? null
  for (const rel of [...r.subjectRels, ...r.objectRels]) {
    if (!rel.subject_package_id) rel.subject_package_id = id
    if (!rel.object_package_id) rel.object_package_id = id
  }

  const stmts: Stmt[] = extra.guard ? [extra.guard] : []
  const changed: string[] = [id]
  if (r.renameDeleted) {
    // ckan: a deleted dataset gives up its name to a new one and takes its own id as name
    stmts.push(
      db.update(packages).set({ name: r.renameDeleted }).where(eq(packages.id, r.renameDeleted)),
    )
    changed.push(r.renameDeleted)
  }
  stmts.push(
    old ? db.update(packages).set(row).where(eq(packages.id, id)) : rawInsert(packages, [row]),
  )

  const finalResources = planResources(
    ctx,
    input.resources ?? [],
    look.resources,
    id,
    !!old,
    now,
    stmts,
  )
  const tagRows = planTags(ctx, r.tags, look.tags, id, !!old, stmts)

  // Extras: replaced.
  const extras = input.extras ?? []
  if (old) stmts.push(db.delete(packageExtras).where(eq(packageExtras.package_id, id)))
  if (extras.length)
    stmts.push(
      rawInsert(
        packageExtras,
          extras.map((e) => ({ id: ctx.newId(), package_id: id, key: e.key, value: e.value })),
        ),
    )

  // Groups: added/removed only where the caller may (read on update, as CKAN); unknown ones ignored.
  const groupList = await planGroups(
    ctx,
    input.groups ?? [],
    look.groups,
    cur?.dict ?? null,
    id,
    stmts,
    (groupId) => policy.mayChangeGroup(groupId),
  )

  // Relationships: replaced when given.
  const rels = planRelationships(
    ctx,
    {
      asSubject: input.relationships_as_subject !== undefined,
      asObject: input.relationships_as_object !== undefined,
    },
    { subject: r.subjectRels, object: r.objectRels },
    cur?.dict ?? null,
    id,
    stmts,
  )

  const dict = assemblePackageDict(ctx, {
    row,
    resources: finalResources,
    tags: tagRows,
    extras,
    groups: groupList,
    organization:
      r.org === undefined
        ? (cur?.dict.organization as ReturnType<typeof organizationEntry>)
        : organizationEntry(r.org),
    relationshipsAsSubject: rels.subject,
    relationshipsAsObject: rels.object,
  })

  // ckan: new resources (and ones whose format changed) get the default views
  if (defaultViews)
    stmts.push(
      ...datasetDefaultViews(ctx, dict.resources, cur?.dict.resources),
    )
  for (const c of changed) stmts.push(rawInsert(changeLog, [changeRow('package', c, 'upsert', c === row.id ? packageDetail(row, old) : undefined)]))
  // The dict is returned as is: serialise it once for the stored dict, the activity and the response.
  const text = immutableJson(dict)
  // after the change-log rows, whose trigger drops the dataset's stored dict (package-json.ts)
  const store = storeDictStatement(ctx, id, text)
  if (store) stmts.push(store)
  if (!row.private || recordsPrivateActivity(ctx)) {
    const type = !old
      ? 'new package'
      : row.state === 'deleted' && old.state !== 'deleted'
        ? 'deleted package'
        : 'changed package'
    const act = packageActivityRow(ctx, type, id, text)
    if (act) stmts.push(rawInsert(activities, [act]))
  }
  if (extra.also) stmts.push(...extra.also)
  await runWrite(ctx, stmts, changed)
  await syncDatasetFiles(ctx, id, input.resources ?? [], finalResources, look.resources)
  return dict
}

/** Runs a dataset write batch, maps unique-index races to CKAN's messages, and drops stale dicts. */
export async function runWrite(ctx: ActionContext, stmts: Stmt[], changedIds: string[]) {
  try {
    await ctx.writer.write(stmts)
  } catch (e) {
    const msg = errorText(e)
    if (msg.includes('package.name')) throw new ValidationError({ name: [NAME_IN_USE] })
    if (msg.includes('package.id')) throw new ValidationError({ id: ['Dataset id already exists'] })
    throw e
  } finally {
    dropCachedDicts(ctx, changedIds)
  }
}

/** Forgets this process's and this request's copies of datasets that were just written. */
export function dropCachedDicts(ctx: ActionContext, ids: string[]) {
  forgetPackages(ctx)
  const changes: Change[] = ids.map((id) => ({
    seq: 0,
    entity_type: 'package',
    entity_id: id,
    op: 'upsert',
  }))
  ctx.caches.apply(changes)
}

function errorText(e: unknown): string {
  const parts: string[] = []
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++)
    parts.push(String((cur as Error).message ?? cur))
  return parts.join(' | ')
}
