// Tags and vocabularies: lookups, dicts, name rules, search, and the statements that remove tags.
import { and, asc, count, desc, eq, exists, inArray, sql, type SQL } from 'drizzle-orm'
import type { BatchItem } from 'drizzle-orm/batch'
import { changeLog, packageTags, packages, tags, vocabularies } from '../db/schema'
import type { ActionContext } from '../context'
import { changeRow } from './changes'
import { packageDicts, type PackageDict } from './package'
import { assertFilterLength, fail, field, isMissing, MISSING } from '../validation/fields'
import { likeContains } from './text-match'
import { pyStr } from '../lib/py-repr'

export type TagRow = typeof tags.$inferSelect
export type VocabularyRow = typeof vocabularies.$inferSelect
export type Stmt = BatchItem<'sqlite'>

export const TAG_MIN_LENGTH = 2
export const TAG_MAX_LENGTH = 100
// ckan: Python's Unicode \w (letters, digits, underscore) plus space, '-' and '.'
const TAG_NAME_RE = /^[\p{L}\p{N}_ \-.]*$/u

/** The first CKAN message a tag name breaks (length, then characters), or undefined. */
export function tagNameError(name: string): string | undefined {
  const len = [...name].length
  if (len < TAG_MIN_LENGTH) return `Tag "${name}" length is less than minimum ${TAG_MIN_LENGTH}`
  if (len > TAG_MAX_LENGTH) return `Tag "${name}" length is more than maximum ${TAG_MAX_LENGTH}`
  if (!TAG_NAME_RE.test(name))
    return `Tag "${name}" must be alphanumeric characters or symbols: -_.`
  return undefined
}

/** The tag dict: `vocabulary_id` is null for free tags. */
export function tagToDict(t: TagRow) {
  return { id: t.id, name: t.name, vocabulary_id: t.vocabulary_id || null, display_name: t.name }
}

/** The tag dict without display_name, as tag_search returns it. */
export const tagSearchDict = (t: TagRow) => ({
  id: t.id,
  name: t.name,
  vocabulary_id: t.vocabulary_id || null,
})

/** A vocabulary by id, then by name. */
export async function findVocabulary(
  ctx: ActionContext,
  idOrName: string,
): Promise<VocabularyRow | undefined> {
  const rows = await ctx.db
    .select()
    .from(vocabularies)
    .where(sql`${vocabularies.id} = ${idOrName} OR ${vocabularies.name} = ${idOrName}`)
    .limit(2)
  return rows.find((r) => r.id === idOrName) ?? rows[0]
}

/**
 * A tag by id (any vocabulary), else by name: in the vocabulary given (id or name), or among
 * free tags when none is given.
 */
export async function findTag(
  ctx: ActionContext,
  idOrName: string,
  vocabIdOrName?: string | null,
): Promise<TagRow | undefined> {
  // ckan: with a vocabulary named, the tag must be in it (an unknown vocabulary finds nothing)
  let vocabId = ''
  if (vocabIdOrName) {
    const vocab = await findVocabulary(ctx, vocabIdOrName)
    if (!vocab) return undefined
    vocabId = vocab.id
  }
  const byIdWhere = vocabIdOrName ? and(eq(tags.id, idOrName), eq(tags.vocabulary_id, vocabId)) : eq(tags.id, idOrName)
  const [byId] = await ctx.db.select().from(tags).where(byIdWhere).limit(1)
  if (byId) return byId
  const [byName] = await ctx.db
    .select()
    .from(tags)
    .where(and(eq(tags.name, idOrName), eq(tags.vocabulary_id, vocabId)))
    .limit(1)
  return byName
}

export async function vocabularyTags(ctx: ActionContext, vocabId: string): Promise<TagRow[]> {
  return ctx.db.select().from(tags).where(eq(tags.vocabulary_id, vocabId)).orderBy(asc(tags.name))
}

/** The vocabulary dict with its tags (tag dicts without datasets), tags sorted by name. */
export async function vocabularyDict(ctx: ActionContext, vocab: VocabularyRow) {
  return {
    id: vocab.id,
    name: vocab.name,
    tags: (await vocabularyTags(ctx, vocab.id)).map(tagToDict),
  }
}

/** Free tags linked (actively) to at least one dataset, sorted by name. */
export async function freeTagsInUse(ctx: ActionContext): Promise<TagRow[]> {
  const linked = ctx.db
    .select({ one: sql`1` })
    .from(packageTags)
    .where(and(eq(packageTags.tag_id, tags.id), eq(packageTags.state, 'active')))
  return ctx.db
    .select()
    .from(tags)
    .where(and(eq(tags.vocabulary_id, ''), exists(linked)))
    .orderBy(asc(tags.name))
}

/** Active public datasets carrying this tag (package_show dicts), newest change first. */
export async function tagDatasets(
  ctx: ActionContext,
  tagId: string,
  limit = 1000,
): Promise<PackageDict[]> {
  const rows = await ctx.db
    .select({ id: packages.id })
    .from(packageTags)
    .innerJoin(packages, eq(packages.id, packageTags.package_id))
    .where(
      and(
        eq(packageTags.tag_id, tagId),
        eq(packageTags.state, 'active'),
        eq(packages.state, 'active'),
        eq(packages.private, false),
      ),
    )
    .orderBy(desc(packages.metadata_modified))
    .limit(limit)
  const ids = [...new Set(rows.map((r) => r.id))]
  const dicts = await packageDicts(ctx, ids)
  return ids.map((id) => dicts.get(id)).filter((d): d is PackageDict => !!d)
}

export interface TagSearch {
  terms: string[]
  /** Vocabulary id or name; absent: free tags that are (or were) on a dataset. */
  vocabulary?: string
  limit?: number
  offset?: number
}

// eslint-disable-next-line no-control-regex
const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s)

/**
 * ckan _tag_search: every term must be a case-insensitive substring of the name. No terms or an
 * unknown vocabulary give nothing. Sorted by name; `count` is before limit/offset.
 */
export async function searchTags(
  ctx: ActionContext,
  s: TagSearch,
): Promise<{ rows: TagRow[]; count: number }> {
  const terms = s.terms.map((t) => t.trim()).filter(Boolean)
  if (!terms.length) return { rows: [], count: 0 }
  const where: SQL[] = []
  if (s.vocabulary !== undefined) {
    const vocab = await findVocabulary(ctx, s.vocabulary)
    if (!vocab) return { rows: [], count: 0 }
    where.push(eq(tags.vocabulary_id, vocab.id))
  } else {
    where.push(eq(tags.vocabulary_id, ''))
    where.push(
      exists(
        ctx.db
          .select({ one: sql`1` })
          .from(packageTags)
          .where(eq(packageTags.tag_id, tags.id)),
      ),
    )
  }
  const offset = s.offset ?? 0
  if (terms.every(isAscii)) {
    // SQLite's LIKE folds ASCII case, which is all an ASCII term needs.
    for (const t of terms)
      where.push(likeContains(tags.name, t))
    const cond = and(...where)
    const [total] = await ctx.db.select({ n: count() }).from(tags).where(cond)
    const q = ctx.db.select().from(tags).where(cond).orderBy(asc(tags.name)).offset(offset)
    // drizzle drops a negative limit, and SQLite refuses OFFSET without LIMIT
    const rows = await q.limit(s.limit ?? Number.MAX_SAFE_INTEGER)
    return { rows, count: total?.n ?? 0 }
  }
  // Non-ASCII terms: fold case in JS, which knows Unicode.
  const lowered = terms.map((t) => t.toLowerCase())
  const all = await ctx.db
    .select()
    .from(tags)
    .where(and(...where))
    .orderBy(asc(tags.name))
  const hits = all.filter((r) => {
    const name = r.name.toLowerCase()
    return lowered.every((t) => name.includes(t))
  })
  const end = s.limit === undefined ? undefined : offset + s.limit
  return { rows: hits.slice(offset, end), count: hits.length }
}

/**
 * Statements that delete these tags and every dataset link to them, with change-log rows for
 * each tag and each dataset whose dict loses a tag. Reads the affected datasets first.
 */
export async function deleteTagsStatements(ctx: ActionContext, tagIds: string[]): Promise<Stmt[]> {
  if (!tagIds.length) return []
  const links = await ctx.db
    .selectDistinct({ package_id: packageTags.package_id })
    .from(packageTags)
    .where(inArray(packageTags.tag_id, tagIds))
  return [
    ctx.db.delete(packageTags).where(inArray(packageTags.tag_id, tagIds)),
    ctx.db.delete(tags).where(inArray(tags.id, tagIds)),
    ...tagIds.map((id) => ctx.db.insert(changeLog).values(changeRow('tag', id, 'delete'))),
    ...links.map((l) => ctx.db.insert(changeLog).values(changeRow('package', l.package_id))),
  ]
}

/** Change-log rows for each dataset with a tag of this vocabulary (its index fields change). */
export async function vocabularyDatasetChanges(
  ctx: ActionContext,
  vocabId: string,
): Promise<Stmt[]> {
  const rows = await ctx.db
    .selectDistinct({ package_id: packageTags.package_id })
    .from(packageTags)
    .innerJoin(tags, eq(tags.id, packageTags.tag_id))
    .where(eq(tags.vocabulary_id, vocabId))
  return rows.map((r) => ctx.db.insert(changeLog).values(changeRow('package', r.package_id)))
}

/**
 * Checks a vocabulary's `tags` input (a list of `{name}` dicts, already known to be a list of
 * dicts). Returns the distinct names in order, or CKAN's flattened tag error list.
 */
export function checkVocabularyTags(list: Record<string, unknown>[]): {
  names: string[]
  errors?: string[]
} {
  const names: string[] = []
  const errors: string[] = []
  for (const item of list) {
    const raw = item.name
    if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
      errors.push('Missing value')
      continue
    }
    const name = typeof raw === 'string' ? raw : String(raw)
    const err = tagNameError(name)
    if (err) errors.push(err)
    else if (!names.includes(name)) names.push(name)
  }
  return errors.length ? { names, errors } : { names }
}

/** Statements that make a vocabulary's tags exactly `names` (others go, with their links). */
export async function setVocabularyTagsStatements(
  ctx: ActionContext,
  vocabId: string,
  names: string[],
  existing: TagRow[] = [],
): Promise<Stmt[]> {
  const keep = new Set(names)
  const have = new Set(existing.map((t) => t.name))
  const removed = existing.filter((t) => !keep.has(t.name)).map((t) => t.id)
  const added = names.filter((n) => !have.has(n))
  const stmts = await deleteTagsStatements(ctx, removed)
  for (const name of added) {
    const id = ctx.newId()
    stmts.push(ctx.db.insert(tags).values({ id, name, vocabulary_id: vocabId }))
    stmts.push(ctx.db.insert(changeLog).values(changeRow('tag', id)))
  }
  return stmts
}

/** Runs statements as one atomic batch. */
export async function runBatch(ctx: ActionContext, stmts: Stmt[]) {
  if (stmts.length) await ctx.db.batch(stmts as [Stmt, ...Stmt[]])
}

/** Search terms from `query` (or `q`) and the deprecated `fields: {tags: term}`. */
export function searchTerms(
  query: string[] | undefined,
  q: string[] | undefined,
  fields?: Record<string, unknown>,
): string[] {
  const terms = [...(query?.length ? query : (q ?? []))]
  const fromFields: string[] = []
  for (const [k, v] of Object.entries(fields ?? {}))
    if ((k === 'tag' || k === 'tags') && typeof v === 'string') fromFields.push(v)
  assertFilterLength('fields', fromFields)
  return [...terms, ...fromFields]
}

function checkVocabularyName(v: unknown) {
  const name = typeof v === 'string' ? v : pyStr(v)
  const len = [...name].length
  if (len < 2) return fail('Name must be at least 2 characters long')
  if (len > 100) return fail('Name must be a maximum of 100 characters long')
  return name
}

/** A required vocabulary name, 2 to 100 characters (uniqueness is checked in the database). */
export const vocabularyName = field((v) => (isMissing(v) ? fail(MISSING) : checkVocabularyName(v)))

/** An optional new vocabulary name ("" is too short, absent or null leaves it unchanged). */
export const optVocabularyName = field((v) =>
  v === undefined || v === null ? undefined : checkVocabularyName(v),
)
