// Pieces shared by the *_autocomplete actions: the `q` parameter and the group/organization lookup.
import { and, asc, eq, or, sql } from 'drizzle-orm'
import { groups } from '../db/schema'
import type { ActionContext } from '../context'
import { capFilter, fail, field, MISSING } from '../validation/fields'
import { containsCi } from './text-match'

/** ckan default_autocomplete_schema `q`: required (not_missing), but "" is accepted. */
export const autocompleteQuery = field((v) => {
  if (v === undefined || v === null) return fail(MISSING)
  if (typeof v === 'string') return capFilter(v)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return fail('Must be a string')
})

/** Python truthiness, for flags CKAN reads without converting (`ignore_self`). */
export function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0
  if (v && typeof v === 'object') return Object.keys(v).length > 0
  return !!v
}

/**
 * ckan Group.search_by_name_or_title: active groups (or organizations) whose name contains the
 * trimmed lower-cased text, or whose title contains it ignoring case; by title, then name.
 */
export async function searchGroupsByNameOrTitle(
  ctx: ActionContext,
  text: string,
  isOrganization: boolean,
  limit: number,
) {
  const q = text.trim().toLowerCase()
  return ctx.db
    .select({ id: groups.id, name: groups.name, title: groups.title })
    .from(groups)
    .where(
      and(
        eq(groups.state, 'active'),
        eq(groups.is_organization, isOrganization),
        or(sql`instr(${groups.name}, ${q}) > 0`, containsCi(groups.title, q)),
      ),
    )
    .orderBy(asc(groups.title), asc(groups.name))
    .limit(limit)
}
