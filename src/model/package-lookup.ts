// What a dataset write needs from the database, read in one batch, and the checks that depend on it.
import { and, eq, inArray, or } from 'drizzle-orm'
import { groups, packages, resources, tags, vocabularies } from '../db/schema'
import type { ActionContext } from '../context'
import { NotFound, type ErrorDict } from '../errors'
import { isMissing } from '../validation/fields'
import { asText, type PackageInput } from './package-validate'
import type { GroupRow } from './package-dict'
import type { PackageDict, PackageRow } from './package'
import type { ResourceRow } from './resource'

// Per request (keyed by its memo map, so it goes with the request): group ref → row or null.
const knownGroups = new WeakMap<ActionContext['memo'], Map<string, GroupRow | null>>()

/**
 * Active groups and organizations by id or name (an id wins over a name), memoised per request
 * so that an action's auth rule and its run share one query.
 */
export async function groupsByRef(
  ctx: ActionContext,
  refs: string[],
): Promise<Map<string, GroupRow | null>> {
  let known = knownGroups.get(ctx.memo)
  if (!known) knownGroups.set(ctx.memo, (known = new Map()))
  const missing = [...new Set(refs)].filter((r) => !known.has(r))
  if (missing.length) {
    // Hot path (auth of every dataset write): plain SQL through ctx.read.
    const marks = missing.map(() => '?').join(', ')
    const rows = await ctx.read(
      `SELECT * FROM "group" WHERE (id IN (${marks}) OR name IN (${marks})) AND state = 'active'`,
      [...missing, ...missing],
    )
    rememberGroups(known, missing, rows.map(groupRowFrom))
  }
  return known
}

/** A group row from plain SQL (SQLite gives booleans as 0/1). */
function groupRowFrom(r: Record<string, unknown>): GroupRow {
  return { ...(r as GroupRow), is_organization: !!r.is_organization }
}

function rememberGroups(known: Map<string, GroupRow | null>, refs: string[], rows: GroupRow[]) {
  for (const ref of refs)
    known.set(ref, rows.find((g) => g.id === ref) ?? rows.find((g) => g.name === ref) ?? null)
}

/** ckan: group references in a data dict: dicts with id or name, or bare strings. */
export function groupRefs(raw: unknown): string[] {
  if (!Array.isArray(raw)) return []
  const out: string[] = []
  for (const g of raw) {
    const ref =
      g && typeof g === 'object'
        ? (g as Record<string, unknown>).id || (g as Record<string, unknown>).name
        : g
    if (!isMissing(ref)) out.push(asText(ref))
  }
  return out
}

export interface Lookups {
  groups: Map<string, GroupRow | null>
  /** Datasets holding the wanted name or id. */
  clashes: { id: string; name: string; state: string }[]
  vocabularies: { id: string; name: string }[]
  tags: { id: string; name: string; vocabulary_id: string }[]
  /** Resource rows with a given id, plus (update) every resource of the dataset. */
  resources: ResourceRow[]
  /** Datasets named by relationships. */
  others: { id: string; name: string }[]
}

/** Reads everything the write of `input` needs, in one batch. */
export async function lookup(
  ctx: ActionContext,
  input: PackageInput,
  target: PackageRow | null,
): Promise<Lookups> {
  const db = ctx.db
  const out: Lookups = {
    groups: new Map(),
    clashes: [],
    vocabularies: [],
    tags: [],
    resources: [],
    others: [],
  }
  const queries: { run: unknown; take: (rows: never[]) => void }[] = []
  const hot: Promise<unknown>[] = []
  const q = <T>(run: unknown, take: (rows: T[]) => void) =>
    queries.push({ run, take: take as (rows: never[]) => void })

  const groupWanted = [...(input.groups ?? [])]
  if (input.owner_org && input.owner_org !== target?.owner_org) groupWanted.push(input.owner_org)
  // Known from the auth rule already, or read now through the hot-path reader.
  const known = await groupsByRef(ctx, groupWanted)
  out.groups = known

  const names = input.name !== undefined && input.name !== target?.name ? [input.name] : []
  if (names.length || input.id) {
    // Hot path (every create): plain SQL through ctx.read.
    const ids = input.id ? [input.id] : []
    const where = [...ids.map(() => 'id = ?'), ...names.map(() => 'name = ?')].join(' OR ')
    hot.push(
      ctx
        .read(`SELECT id, name, state FROM package WHERE ${where}`, [...ids, ...names])
        .then((rows) => (out.clashes = rows as Lookups['clashes'])),
    )
  }
  const vocabRefs = [
    ...new Set((input.tags ?? []).map((t) => t.vocabulary_id).filter((v): v is string => !!v)),
  ]
  if (vocabRefs.length)
    q<Lookups['vocabularies'][number]>(
      db
        .select()
        .from(vocabularies)
        .where(or(inArray(vocabularies.id, vocabRefs), inArray(vocabularies.name, vocabRefs))),
      (rows) => (out.vocabularies = rows),
    )
  const tagNames = [...new Set((input.tags ?? []).map((t) => t.name))]
  if (tagNames.length)
    hot.push(
      ctx
        .read(
          `SELECT id, name, vocabulary_id FROM tag WHERE name IN (${tagNames.map(() => '?').join(', ')})`,
          tagNames,
        )
        .then((rows) => (out.tags = rows as Lookups['tags'])),
    )
  const resIds = (input.resources ?? [])
    .map((r) => r.core.id as string | undefined)
    .filter((x): x is string => !!x)
  if (resIds.length || target) {
    const conds = [
      ...(resIds.length ? [inArray(resources.id, resIds)] : []),
      ...(target ? [eq(resources.package_id, target.id)] : []),
    ]
    q<ResourceRow>(
      db
        .select()
        .from(resources)
        .where(or(...conds)),
      (rows) => (out.resources = rows),
    )
  }
  const otherRefs = [
    ...new Set(
      [...(input.relationships_as_subject ?? []), ...(input.relationships_as_object ?? [])]
        .map((r) => r.other)
        .filter(Boolean),
    ),
  ]
  if (otherRefs.length)
    q<Lookups['others'][number]>(
      db
        .select({ id: packages.id, name: packages.name })
        .from(packages)
        .where(or(inArray(packages.id, otherRefs), inArray(packages.name, otherRefs))),
      (rows) => (out.others = rows),
    )
  if (queries.length) {
    const results = (await db.batch(queries.map((x) => x.run) as never)) as never[][]
    queries.forEach((x, i) => x.take(results[i]!))
  }
  await Promise.all(hot)
  return out
}

/** Adds `msg` under `field` of an error dict. */
export function addError(errors: ErrorDict, field: string, msg: string) {
  const list = (errors[field] as string[] | undefined) ?? []
  list.push(msg)
  errors[field] = list
}

/** Adds `msg` under `field` of item `i` of a parallel error list. */
export function addItemError(
  errors: ErrorDict,
  key: string,
  count: number,
  i: number,
  field: string,
  msg: string,
) {
  const list = (errors[key] as ErrorDict[] | undefined) ?? Array.from({ length: count }, () => ({}))
  addError(list[i]!, field, msg)
  errors[key] = list
}
