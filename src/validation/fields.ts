// Shared validators (our validators.py): lenient about input encodings, strict with CKAN's messages.
import { z } from 'zod'
import { IntegrityError, ValidationError } from '../errors'
import { parseBoundedJson } from '../lib/bounded-json'

export const MISSING = 'Missing value'

/** A failed check; `field()` turns it into one zod issue per message. */
export class FieldFail {
  readonly msgs: string[]
  constructor(...msgs: string[]) {
    this.msgs = msgs
  }
}
export const fail = (...msgs: string[]) => new FieldFail(...msgs)

/**
 * A schema from a plain function: it sees the raw value (undefined when the key is absent) and
 * returns the converted value or a `fail(...)`.
 */
export function field<T>(check: (v: unknown) => T | FieldFail) {
  return z
    .unknown()
    .optional()
    .transform((v, ctx): T => {
      let r: T | FieldFail
      try {
        r = check(v)
      } catch (e) {
        // A dict whose `toString`/`valueOf` key holds data cannot become a string or number
        // (Python's str() never fails); whichever check tried, the value is simply invalid.
        if (!(e instanceof TypeError && /convert object to primitive/.test(e.message))) throw e
        r = fail('Invalid value')
      }
      if (r instanceof FieldFail) {
        for (const message of r.msgs) ctx.addIssue({ code: 'custom', message })
        return z.NEVER
      }
      return r
    })
}

export const isMissing = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '')

/** ckan not_empty: absent, null, '' and empty lists or dicts are missing; 0 and false are not. */
export const isEmptyValue = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === '' ||
  (typeof v === 'object' && Object.keys(v as object).length === 0)

const asString = (v: unknown): string | FieldFail =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : fail('Must be a string')

/** Required, non-empty string (numbers accepted and converted). */
export const reqString = field((v) => (isMissing(v) ? fail(MISSING) : asString(v)))

/** Optional string: undefined when absent, null when null, otherwise a string. */
export const optString = field((v) => (v === undefined ? undefined : v === null ? null : asString(v)))

/** An id or a name of an object (required). */
export const idOrName = reqString

const NAME_RE = /^[a-z0-9_-]*$/

/** Check of CKAN's name rules (datasets, groups, organizations, users). */
export function checkName(v: unknown): string | FieldFail {
  if (isMissing(v)) return fail(MISSING)
  if (typeof v !== 'string') return fail('Names must be strings')
  if (['new', 'edit', 'search'].includes(v)) return fail('That name cannot be used')
  if (v.length < 2) return fail('Must be at least 2 characters long')
  if (v.length > 100) return fail('Name must be a maximum of 100 characters long')
  if (!NAME_RE.test(v))
    return fail('Must be purely lowercase alphanumeric (ascii) characters and these symbols: -_')
  return v
}

export const nameField = field(checkName)
export const optNameField = field((v) => (v === undefined ? undefined : checkName(v)))

/** CKAN's lenient boolean: true/yes/on/t/y/1 (any case) are true, everything else false. */
export function toBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  if (typeof v === 'string') return /^(true|yes|on|t|y|1)$/i.test(v.trim())
  return false
}

export const ckanBool = (def: boolean) => field((v) => (v === undefined || v === null ? def : toBool(v)))
/** A boolean that stays undefined when absent (update semantics). */
export const optBool = field((v) => (v === undefined ? undefined : toBool(v)))

/** The largest magnitude an integer parameter may have (SQLite and every cap stay far below). */
export const MAX_INT = 2 ** 31 - 1
export const TOO_LARGE = `Must be at most ${MAX_INT}`

const INT_RE = /^\s*[-+]?\d+\s*$/

/**
 * The one integer reader of every parameter (limit, offset, rows, start, page, facet.limit, ...).
 * ckan int_validator: a number with a zero fraction, or a base-10 string (not "10.0", not
 * "1e3"); else "Invalid integer". Non-finite numbers are refused, and so is any magnitude past
 * MAX_INT, so no extreme reaches SQL.
 */
export function toInt(v: unknown): number | FieldFail {
  let n: number
  if (typeof v === 'number') n = v
  else if (typeof v === 'string' && INT_RE.test(v)) n = Number(v.trim())
  else return fail('Invalid integer')
  if (!Number.isFinite(n) || !Number.isInteger(n)) return fail('Invalid integer')
  if (Math.abs(n) > MAX_INT) return fail(TOO_LARGE)
  return n === 0 ? 0 : n // no -0
}

export const naturalNumber = (def?: number) =>
  field((v) => {
    if (isMissing(v)) return def
    const n = toInt(v)
    if (n instanceof FieldFail) return n
    return n < 0 ? fail('Must be a natural number') : n
  })

export const positiveInt = (def?: number) =>
  field((v) => {
    if (isMissing(v)) return def
    const n = toInt(v)
    if (n instanceof FieldFail) return n
    return n < 1 ? fail('Must be a postive integer') : n // ckan: sic
  })

/** A list of strings: a list, or a lone string (GET sends one value as a string). */
export const stringList = field((v) => {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string') return v === '' ? [] : [v]
  if (!Array.isArray(v)) return fail('Not a list')
  for (const item of v) if (typeof item !== 'string') return fail(`Not a string: ${String(item)}`)
  return v as string[]
})

/**
 * A list of names given as a list or as one comma-separated string (CKAN 2.10's `aslist(v, ",")`;
 * names cannot hold a comma, so splitting changes no answer a 2.9 client could get).
 */
export const nameList = field((v) => {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
  if (!Array.isArray(v)) return fail('Not a list')
  for (const item of v) if (typeof item !== 'string') return fail(`Not a string: ${String(item)}`)
  return v as string[]
})

/**
 * The longest text filter (a `q`, `query` or term that reaches LIKE, instr, GLOB or FTS). SQLite
 * refuses patterns past 50,000 bytes; no real filter comes near this.
 */
export const MAX_FILTER_CHARS = 1000
export const FILTER_TOO_LONG = `Must be a maximum of ${MAX_FILTER_CHARS} characters long`

/** A text filter within MAX_FILTER_CHARS, or the failure. */
export const capFilter = (s: string): string | FieldFail =>
  s.length > MAX_FILTER_CHARS ? fail(FILTER_TOO_LONG) : s

/** For hand-written parsers: throws a Validation Error on `key` if any term is too long. */
export function assertFilterLength(key: string, terms: readonly unknown[]) {
  if (terms.some((t) => typeof t === 'string' && t.length > MAX_FILTER_CHARS))
    throw ValidationError.field(key, FILTER_TOO_LONG)
}

/** An optional text filter: optString with the length cap. */
export const filterText = field((v) => {
  if (v === undefined || v === null) return v
  const s = asString(v)
  return s instanceof FieldFail ? s : capFilter(s)
})

/** A list of text filters: stringList with the length cap on every item. */
export const filterList = field((v) => {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string') return v === '' ? [] : v.length > MAX_FILTER_CHARS ? fail(FILTER_TOO_LONG) : [v]
  if (!Array.isArray(v)) return fail('Not a list')
  for (const item of v) if (typeof item !== 'string') return fail(`Not a string: ${String(item)}`)
  for (const item of v) if (item.length > MAX_FILTER_CHARS) return fail(FILTER_TOO_LONG)
  return v as string[]
})

/** Job queue names (job_list, job_clear): a list, or a lone string; absent or empty: every queue. */
export const queueNames = field((v) => {
  if (v === undefined || v === null || v === '') return undefined
  const list: unknown = typeof v === 'string' ? [v] : v
  if (!Array.isArray(list)) return fail('Not a list')
  for (const name of list)
    if (!isQueueName(name)) return fail(`Invalid queue name: ${JSON.stringify(name)}`)
  return list as string[]
})

const EMAIL_RE =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/

export function isEmail(v: string): boolean {
  if (!EMAIL_RE.test(v)) return false
  const local = v.split('@')[0]!
  return !local.startsWith('.') && !local.endsWith('.') && !v.includes('..')
}

/** A JSON object given as an object or as a JSON string. */
export const jsonObject = field((v) => {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>
  if (typeof v === 'string') {
    try {
      const parsed = parseBoundedJson(v)
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>
    } catch {
      /* reported below */
    }
  }
  return fail('Could not parse as valid JSON')
})

const pyType = (v: unknown) =>
  v === null
    ? "<class 'NoneType'>"
    : Array.isArray(v)
      ? "<class 'list'>"
      : typeof v === 'string'
        ? "<class 'str'>"
        : typeof v === 'number'
          ? Number.isInteger(v)
            ? "<class 'int'>"
            : "<class 'float'>"
          : typeof v === 'boolean'
            ? "<class 'bool'>"
            : "<class 'dict'>"

/**
 * ckan: keys that hold lists of objects must hold exactly that, else a 400 Integrity Error
 * (raised while flattening input, before validation).
 */
export function assertListsOfDicts(input: Record<string, unknown>, keys: string[]) {
  for (const key of keys) {
    const v = input[key]
    // ckan: null is not [] either (navl refuses anything but a list against a subschema)
    if (v === undefined) continue
    const isDict = (x: unknown) => !!x && typeof x === 'object' && !Array.isArray(x)
    if (!Array.isArray(v)) {
      if (typeof v === 'string' && v === '') continue
      throw new IntegrityError(
        `Only lists of dicts can be placed against subschema ('${key}',), not ${pyType(v)}`,
        input,
      )
    }
    if (v.length && !v.every(isDict)) {
      if (v.some(isDict)) throw new IntegrityError('Values in lists need to be dicts', input)
      throw new IntegrityError(
        `Only lists of dicts can be placed against subschema ('${key}',), not ${pyType(v)}`,
        input,
      )
    }
  }
}

/** Whether a queue may have this name: 1 to 100 characters, no control characters. */
export function isQueueName(queue: unknown): queue is string {
  // eslint-disable-next-line no-control-regex
  return (
    typeof queue === 'string' &&
    queue.length > 0 &&
    queue.length <= 100 &&
    !/[\u0000-\u001f\u007f]/.test(queue)
  )
}

/**
 * ckan uuid_validator (2.11): what Python's uuid.UUID reads, that is 32 hex digits with hyphens
 * anywhere, optionally in braces or after `urn:uuid:`. The value is kept as given.
 */
export function isUuidText(v: unknown): boolean {
  if (typeof v !== 'string') return false
  const hex = v.replace('urn:', '').replace('uuid:', '').replace(/^\{+|\}+$/g, '').replaceAll('-', '')
  return /^[0-9a-fA-F]{32}$/.test(hex)
}
