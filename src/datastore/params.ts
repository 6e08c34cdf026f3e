// Parameter pieces shared by the DataStore actions (CKAN's datastore schema helpers).
import type { z } from 'zod'
import { field, isMissing, toBool } from '../validation/fields'

/** A list given as a list, a comma-separated string (items trimmed, one level of "quotes" removed) or one item. */
export function toList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : String(x)))
  if (typeof v !== 'string') return [String(v)]
  if (v.trim() === '') return []
  return v.split(',').map((s) => {
    const t = s.trim()
    return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t
  })
}

export const dsList = field((v) => toList(v))

/** `resource_id`, also accepted as `id`. */
export function resourceIdOf(input: Record<string, unknown>): string | undefined {
  const v = input.resource_id ?? input.id
  return isMissing(v) || typeof v === 'object' ? undefined : String(v)
}

/** A zod refinement: `resource_id` (or `id`) must be there, CKAN's message under resource_id. */
export function resourceIdRequired(p: Record<string, unknown>, c: z.RefinementCtx) {
  if (!resourceIdOf(p)) c.addIssue({ code: 'custom', path: ['resource_id'], message: 'Missing value' })
}

/**
 * calculate_record_count: CKAN 2.9's lenient boolean, and CKAN 2.12's "background" kept as it is.
 * Totals are always exact here, so the value only comes back in the answer. CKAN 2.12 also
 * refuses any other text ("Value must be boolean or one of: background"); that would refuse what
 * 2.9 to 2.11 accept, so it is not done.
 */
export const recordCountParam = field((v): boolean | 'background' =>
  v === 'background' ? v : v === undefined || v === null ? false : toBool(v),
)

/** CKAN 2.12's include_records / include_deleted_records: undefined when not sent, else a boolean. */
export const includeParam = field((v) => (v === undefined ? undefined : toBool(v)))
