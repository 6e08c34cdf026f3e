// Parameters of the activity actions: CKAN's activity list schemas and _get_or_bust.
import { z } from 'zod'
import type { Config } from '../config/load'
import {
  ckanBool,
  fail,
  field,
  FieldFail,
  isMissing,
  MISSING,
  naturalNumber,
  reqString,
  toInt,
} from './fields'

/**
 * ckan: natural_number_validator, then limit_to_configured_maximum, which reports a string
 * that int() cannot read a second time.
 */
export const activityLimit = field((v) => {
  if (isMissing(v)) return undefined
  const n = toInt(v)
  if (n instanceof FieldFail) {
    const unreadable = typeof v === 'string' && !/^\s*[-+]?\d+\s*$/.test(v)
    return unreadable ? fail('Invalid integer', 'Please enter an integer value') : n
  }
  return n < 0 ? fail('Must be a natural number') : n
})

/** ckan default_dashboard_activity_list_schema. */
export const pageParams = { offset: naturalNumber(0), limit: activityLimit }

/** ckan default_activity_list_schema (include_hidden_activity is dropped for non-sysadmins). */
export const activityListParams = z.object({
  id: reqString,
  ...pageParams,
  include_hidden_activity: ckanBool(false),
})

/**
 * The page to read: limit defaults to service.activity_list_limit and is capped at
 * service.activity_list_limit_max.
 */
export function activityPageOf(config: Config, p: { offset?: number; limit?: number }) {
  const max = config.int('service.activity_list_limit_max')
  const limit = p.limit ?? config.int('service.activity_list_limit')
  // ckan: a limit of 0 means no limit at all there; here it means the largest page allowed
  return { offset: p.offset ?? 0, limit: limit === 0 ? max : Math.min(limit, max) }
}

/**
 * ckan _get_or_bust, called key by key: the first of `keys` that is absent (or null) is
 * reported, alone. The data dict passes through unchanged.
 */
export const requiredInOrder = (...keys: string[]) =>
  z.record(z.string(), z.unknown()).superRefine((input, c) => {
    const missing = keys.find((k) => input[k] === undefined || input[k] === null)
    if (missing) c.addIssue({ code: 'custom', path: [missing], message: MISSING })
  })
