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
  stringList,
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

// Python's float() of a string: digits with an optional fraction and exponent, or inf/nan.
const FLOAT_RE = /^\s*[-+]?(\d+(_\d+)*(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)([eE][-+]?\d+(_\d+)*)?\s*$/

/**
 * Seconds since the epoch as an activity timestamp (naive UTC, microseconds), or undefined when
 * out of range. Rounded to the microsecond as Python's datetime.fromtimestamp rounds.
 */
export function timestampFromEpoch(seconds: number): string | undefined {
  if (!Number.isFinite(seconds)) return undefined
  const whole = Math.floor(seconds)
  let micros = Math.round((seconds - whole) * 1e6)
  let secs = whole
  if (micros >= 1e6) {
    secs += 1
    micros -= 1e6
  }
  const d = new Date(secs * 1000)
  const year = d.getUTCFullYear()
  if (Number.isNaN(d.getTime()) || year < 1 || year > 9999) return undefined
  const iso = d.toISOString() // YYYY-MM-DDTHH:MM:SS.000Z for years 1..9999
  return `${iso.slice(0, 19)}.${String(micros).padStart(6, '0')}`
}

/**
 * ckan 2.10 datetime_from_timestamp_validator (after ignore_missing): seconds since the epoch
 * (a number or a string float() reads), else "Must be a float timestamp". Read as UTC, as
 * activity timestamps are stored.
 */
export const epochTimestamp = field((v) => {
  if (v === undefined || v === null) return undefined
  let n: number
  if (typeof v === 'number') n = v
  else if (typeof v === 'boolean') n = v ? 1 : 0
  else if (typeof v === 'string' && FLOAT_RE.test(v)) n = Number(v.trim().replace(/_/g, ''))
  else return fail('Must be a float timestamp')
  return timestampFromEpoch(n) ?? fail('Must be a float timestamp')
})

/**
 * ckan default_dashboard_activity_list_schema: paging, and (CKAN 2.10) the before and after
 * timestamps.
 */
export const pageParams = {
  offset: naturalNumber(0),
  limit: activityLimit,
  before: epochTimestamp,
  after: epochTimestamp,
}

/**
 * ckan default_activity_list_schema (include_hidden_activity is dropped for non-sysadmins), with
 * CKAN 2.10's activity_types and exclude_activity_types (lists of strings).
 */
export const activityListParams = z.object({
  id: reqString,
  ...pageParams,
  include_hidden_activity: ckanBool(false),
  activity_types: stringList,
  exclude_activity_types: stringList,
})

/**
 * The page to read: limit defaults to service.activity_list_limit and is capped at
 * service.activity_list_limit_max.
 */
export function activityPageOf(
  config: Config,
  p: { offset?: number; limit?: number; before?: string; after?: string },
) {
  const max = config.int('service.activity_list_limit_max')
  const limit = p.limit ?? config.int('service.activity_list_limit')
  // ckan: a limit of 0 means no limit at all there; here it means the largest page allowed
  return {
    offset: p.offset ?? 0,
    limit: limit === 0 ? max : Math.min(limit, max),
    before: p.before,
    after: p.after,
  }
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

/**
 * ckan 2.10 package_activity_list: activity_types and exclude_activity_types are refused
 * together (after the schema, before authorization).
 */
export const packageActivityListParams = activityListParams.superRefine((p, c) => {
  if (p.activity_types !== undefined && p.exclude_activity_types !== undefined)
    c.addIssue({
      code: 'custom',
      path: ['activity_types'],
      message: 'Cannot be used together with `exclude_activity_types',
    })
})

/**
 * The type filter of a stream: ckan applies activity_types when it is a non-empty list, else
 * exclude_activity_types when that is one (where the action reads it).
 */
export function typeFilter(p: { activity_types?: string[]; exclude_activity_types?: string[] }) {
  if (p.activity_types?.length) return { only: p.activity_types }
  if (p.exclude_activity_types?.length) return { except: p.exclude_activity_types }
  return undefined
}
