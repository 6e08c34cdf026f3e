// Term translations (CKAN's term_translation table): checks, upserts by term and language, lookups.
import { and, inArray, sql, type SQL } from 'drizzle-orm'
import { termTranslations } from '../db/schema'
import type { ActionContext } from '../context'
import { ValidationError } from '../errors'
import { isEmptyValue, MISSING } from '../validation/fields'
import { asText } from './package-validate'
import type { Stmt } from './write-batcher'

export type TermTranslationRow = typeof termTranslations.$inferSelect

const FIELDS = ['term', 'term_translation', 'lang_code'] as const

/** term_translation_update's schema: all three keys required, each kept as text. */
export function checkTermTranslation(raw: Record<string, unknown>): TermTranslationRow {
  const errors: Record<string, string[]> = {}
  const out: Record<string, string> = {}
  for (const k of FIELDS) {
    if (isEmptyValue(raw[k])) errors[k] = [MISSING]
    else out[k] = asText(raw[k])
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return { term: out.term!, term_translation: out.term_translation!, lang_code: out.lang_code! }
}

const MANY_MESSAGE = 'term_translation_update_many needs to have a list of dicts in field data'

/** The `data` of term_translation_update_many: a non-empty list of dicts (CKAN's own message). */
export function translationList(input: Record<string, unknown>): Record<string, unknown>[] {
  const data = input.data
  const isDict = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v)
  if (!Array.isArray(data) || !data.length || !data.every(isDict))
    throw new ValidationError({ error: MANY_MESSAGE })
  return data as Record<string, unknown>[]
}

/** Inserts the translation, or replaces the one with the same term and language. */
export function upsertTranslation(ctx: ActionContext, row: TermTranslationRow): Stmt {
  return ctx.db
    .insert(termTranslations)
    .values(row)
    .onConflictDoUpdate({
      target: [termTranslations.term, termTranslations.lang_code],
      set: { term_translation: row.term_translation },
    })
}

/** Translations of these terms (undefined: all) into these languages (undefined: any). */
export async function findTranslations(
  ctx: ActionContext,
  terms: string[] | undefined,
  langCodes: string[] | undefined,
): Promise<TermTranslationRow[]> {
  const t = termTranslations
  const where: SQL[] = []
  // ckan: an empty list of languages matches nothing
  if (terms) where.push(terms.length ? inArray(t.term, terms) : sql`0`)
  if (langCodes) where.push(langCodes.length ? inArray(t.lang_code, langCodes) : sql`0`)
  return ctx.db
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(sql`rowid`)
}
