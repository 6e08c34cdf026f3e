// The validators a schema names in its `validators` / `output_validators` strings: CKAN core's that
// schemas use, ckanext-scheming's and ckanext-fluent's, with their messages. A schema naming one
// that is not here fails to load (registry.ts), never passes silently.
import { pyStr } from '../lib/py-repr'
import { checkName, isEmail, MISSING } from '../validation/fields'
import { guessMimetype } from '../model/mimetype'
import { canonicalFormat } from '../model/resource-format'
import type { SchemaField } from './types'

/** A key the dict does not have (navl's `missing`). */
export const ABSENT: unique symbol = Symbol('absent')

/** A date or datetime a validator parsed, until a converter makes text of it. */
export class DateValue {
  /** `YYYY-MM-DDTHH:MM:SS[.ffffff][±HH:MM]`: Python's isoformat of the parsed datetime. */
  constructor(readonly iso: string) {}
  toString() {
    return this.iso
  }
}

/** The schema settings a validator may look at. */
export interface SchemaEnv {
  draft_fields_required?: boolean
  /** `ckan.locale_default` and the form languages of fluent fields. */
  localeDefault: string
  formLanguages: string[]
  /** Other spellings a fluent language may be given in (`alternate_languages`). */
  alternateLanguages: Record<string, string[]>
  /** Lists a field's choices_helper may name. */
  choicesHelpers: Record<string, { value: string; label?: unknown }[]>
}

/** One field's value going through its chain (navl's key, data and errors). */
export interface Run {
  key: string
  value: unknown
  errors: string[]
  /** Set by a validator that ends the chain (StopOnError); `value` ABSENT then drops the key. */
  stop: boolean
  /** The dict the field belongs to (the dataset, a resource or a subfield item), as given. */
  data: Record<string, unknown>
  /** Errors of other keys this field's form inputs add (`<field>_date`, `<field>-fr`). */
  otherErrors: Record<string, string[]>
  /** Form keys a validator consumed (they are not stored on their own). */
  consumed: Set<string>
}

export type Step = (run: Run) => void
type Factory = (args: unknown[], field: SchemaField, env: SchemaEnv) => Step

/** Thrown at load for a validator that cannot apply where the schema puts it. */
export class ValidatorUnusable extends Error {}

const isEmpty = (v: unknown) =>
  v === ABSENT || v === null || v === undefined || v === '' || v === false || v === 0 ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !(v instanceof DateValue) && Object.keys(v).length === 0)

const stop = (run: Run, drop = false) => {
  run.stop = true
  if (drop) run.value = ABSENT
}

const notEmpty: Step = (run) => {
  if (isEmpty(run.value)) {
    run.errors.push(MISSING)
    stop(run)
  }
}
const ignoreMissing: Step = (run) => {
  if (run.value === ABSENT || run.value === null || run.value === undefined) stop(run, true)
}
const isDraft = (run: Run) => {
  const state = run.data.state
  return state === undefined || state === null || (typeof state === 'string' && state.startsWith('draft'))
}

/** A simple value map: CKAN's one-argument validators that may raise Invalid. */
const map =
  (fn: (v: unknown) => unknown): Step =>
  (run) => {
    if (run.value === ABSENT) return
    try {
      run.value = fn(run.value)
    } catch (e) {
      if (e instanceof Invalid) run.errors.push(e.message)
      else throw e
    }
  }
class Invalid extends Error {}
const invalid = (msg: string) => new Invalid(msg)

const text = (v: unknown) => (typeof v === 'string' ? v : v instanceof DateValue ? v.toString() : pyStr(v))

const DATE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/

/** The parts of a datetime text (ckan h.date_str_to_datetime: ISO, with an offset kept). */
function dateParts(v: string) {
  const m = DATE_RE.exec(v.trim())
  if (!m) return null
  const [, y, mo, d, h, mi = '0', s = '0', frac, off] = m
  if (off && h === undefined) return null
  const n = [y, mo, d, h ?? '0', mi, s].map(Number) as [number, number, number, number, number, number]
  const dt = new Date(Date.UTC(n[0], n[1] - 1, n[2], n[3], n[4], n[5]))
  if (dt.getUTCFullYear() !== n[0] || dt.getUTCMonth() !== n[1] - 1 || dt.getUTCDate() !== n[2] || n[3] > 23 || n[4] > 59 || n[5] > 59)
    return null
  const p2 = (x: number) => String(x).padStart(2, '0')
  const digits = frac ? frac.slice(1).padEnd(6, '0') : ''
  const micro = digits && Number(digits) !== 0 ? `.${digits}` : ''
  let offset = ''
  let offsetMin = 0
  if (off) {
    if (off === 'Z') offset = '+00:00'
    else {
      const raw = off.replace(':', '')
      offset = `${raw.slice(0, 3)}:${raw.slice(3, 5) || '00'}`
      offsetMin = (raw.startsWith('-') ? -1 : 1) * (Number(raw.slice(1, 3)) * 60 + Number(raw.slice(3, 5) || 0))
    }
  }
  return { local: `${y}-${p2(n[1])}-${p2(n[2])}T${p2(n[3])}:${p2(n[4])}:${p2(n[5])}${micro}`, offset, offsetMin, hasOffset: !!off }
}

/** A datetime text as Python's isoformat of what CKAN parses (an offset kept); null: not a date. */
export function parseDate(v: string): string | null {
  const p = dateParts(v)
  return p ? p.local + p.offset : null
}

/** Minutes east of UTC of `zone` at the UTC instant `ms` (through Intl, which knows the tz database). */
function zoneOffsetMinutes(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms))
  const get = (t: string) => Number(parts.find((x) => x.type === t)?.value)
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
  return Math.round((local - Math.floor(ms / 1000) * 1000) / 60000)
}

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return zone !== '' && !/^[+-]/.test(zone)
  } catch {
    return false
  }
}

/** A local ISO datetime in `zone` (or at `offsetMin` east of UTC) as UTC. */
function toUtc(iso: string, zone: string | null, offsetMin?: number): string {
  const local = Date.parse(`${iso.slice(0, 19)}Z`)
  let off = offsetMin ?? 0
  if (zone) {
    off = zoneOffsetMinutes(zone, local)
    off = zoneOffsetMinutes(zone, local - off * 60000)
  }
  return new Date(local - off * 60000).toISOString().slice(0, 19) + iso.slice(19)
}

/** scheming's date_tz_str_to_datetime: a datetime with a `T` and an optional offset, as naive UTC. */
function parseDateTz(v: string): string | null {
  if (!v.includes('T')) return null
  const p = dateParts(v)
  if (!p) return null
  return p.hasOffset ? toUtc(p.local, null, p.offsetMin) : p.local
}

/** The `<field>_date`, `<field>_time` (and `<field>_tz`) form inputs of a datetime field. */
function dateInputs(run: Run, field: SchemaField, withTz: boolean): DateValue | null {
  const keyOf = (suffix: string) => `${run.key}_${suffix}`
  const input = (suffix: string) => {
    const k = keyOf(suffix)
    const v = run.data[k]
    run.consumed.add(k)
    if (field.required && isEmpty(v)) (run.otherErrors[k] ??= []).push(MISSING)
    return typeof v === 'string' ? v : v === undefined || v === null ? '' : text(v)
  }
  let date: string | null = null
  let full = ''
  const d = input('date')
  if (d) {
    full = d
    date = parseDate(d)
    if (!date) (run.otherErrors[keyOf('date')] ??= []).push('Date format incorrect')
  }
  const t = input('time')
  if (t) {
    if (!full) (run.otherErrors[keyOf('date')] ??= []).push('Date is required when a time is provided')
    else {
      date = parseDate(`${full} ${t}`)
      if (!date) (run.otherErrors[keyOf('time')] ??= []).push('Time format incorrect')
    }
  }
  if (withTz) {
    const z = input('tz')
    if (z) {
      if (!isTimeZone(z)) (run.otherErrors[keyOf('tz')] ??= []).push('Invalid timezone')
      else if (date) return new DateValue(toUtc(date, z))
    }
  }
  return date ? new DateValue(date) : null
}

const hasDateInputs = (run: Run) => `${run.key}_date` in run.data || `${run.key}_time` in run.data

function isoDateTime(field: SchemaField, withTz: boolean): Step {
  return (run) => {
    const v = run.value
    if (v !== ABSENT && v !== null && v !== '' && v !== undefined) {
      if (v instanceof DateValue) return
      const parsed = typeof v === 'string' ? (withTz ? parseDateTz(v) : parseDate(v)) : null
      if (!parsed) {
        run.errors.push('Date format incorrect')
        return
      }
      run.value = new DateValue(parsed)
      return
    }
    if (!hasDateInputs(run)) {
      if (field.required) notEmpty(run)
      if (!run.stop) run.value = null
      return
    }
    run.value = dateInputs(run, field, withTz)
  }
}

/** The choices of a field: its own list, or the list its choices_helper names (resolved at load). */
export const HELPER_CHOICES = Symbol('helper choices')
const choiceValues = (field: SchemaField) =>
  ((field.choices ?? (field as { [HELPER_CHOICES]?: { value: string }[] })[HELPER_CHOICES]) ?? []).map((c) => String(c.value))

function multipleChoice(field: SchemaField, env: SchemaEnv): Step {
  const order = choiceValues(field)
  return (run) => {
    if (run.errors.length) return
    let value = run.value
    if (value !== ABSENT && value !== null && value !== undefined) {
      if (typeof value === 'string') value = [value]
      else if (!Array.isArray(value)) {
        run.errors.push('expecting list of strings')
        return
      }
    } else value = []
    const selected = new Set<string>()
    for (const el of value as unknown[]) {
      if (typeof el === 'string' && order.includes(el)) selected.add(el)
      else run.errors.push(`unexpected choice "${text(el)}"`)
    }
    if (run.errors.length) return
    run.value = JSON.stringify(order.filter((v) => selected.has(v)))
    const reallyRequired = env.draft_fields_required !== false || !isDraft(run)
    if (!selected.size && field.required && reallyRequired) run.errors.push('Select at least one')
  }
}

function multipleText(field: SchemaField): Step {
  return (run) => {
    if (run.errors.length) return
    let value = run.value
    if (value !== ABSENT && value !== null && value !== undefined) {
      if (typeof value === 'string') value = [value]
      if (!Array.isArray(value)) {
        run.errors.push('expecting list of strings')
        return stop(run)
      }
      const out: string[] = []
      for (const el of value) {
        if (!el) continue
        if (typeof el !== 'string') {
          run.errors.push(`invalid type for repeating text: ${pyRepr(el)}`)
          continue
        }
        out.push(el)
      }
      if (run.errors.length) return stop(run)
      run.value = JSON.stringify(out)
    }
    if (run.value === ABSENT || run.value === null || run.value === undefined || run.value === '[]') {
      if (field.required) {
        run.errors.push(MISSING)
        return stop(run)
      }
      run.value = '[]'
    }
  }
}

const pyRepr = (v: unknown) => (typeof v === 'string' ? `'${v}'` : pyStr(v))

const loadJson = (v: unknown) => {
  if (typeof v !== 'string') return v
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/** xsd:gYear, xsd:gYearMonth, xsd:date, with an optional zone (ckanext-dcat's dcat_date). */
const XSD_DATE = /^-?([1-9][0-9]{3,}|0[0-9]{3})(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?)?(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$/

const LANG_RE = /^[a-z]{2,8}(-[0-9a-zA-Z]{1,8})*$/

/** The languages a fluent field's form asks for (`form_languages`, else the site's). */
const formLanguages = (field: SchemaField, env: SchemaEnv): string[] =>
  Array.isArray(field.form_languages) ? (field.form_languages as string[]) : env.formLanguages

/** ckanext-fluent's fluent_text: a dict of language → text (or its JSON, or `<field>-<lang>` inputs). */
function fluentText(field: SchemaField, env: SchemaEnv): Step {
  const required = field.required ? formLanguages(field, env) : []
  const alternates = (field.alternate_languages ?? env.alternateLanguages) as Record<string, string[]>
  return (run) => {
    if (run.errors.length) return
    const enforce = env.draft_fields_required !== false || !isDraft(run)
    const prefix = `${run.key}-`
    const separate = Object.keys(run.data).filter((k) => k.startsWith(prefix))
    let value = run.value
    if (value !== ABSENT && value !== undefined && !separate.length) {
      if (typeof value === 'string') {
        try {
          value = JSON.parse(value)
        } catch {
          run.errors.push('Failed to decode JSON string')
          return
        }
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        run.errors.push('expecting JSON object')
        return
      }
      const dict = value as Record<string, unknown>
      for (const [lang, t] of Object.entries(dict)) {
        if (!LANG_RE.test(lang)) run.errors.push(`invalid language code: "${lang}"`)
        else if (typeof t !== 'string') run.errors.push(`invalid type for "${lang}" value`)
      }
      if (enforce)
        for (const lang of required)
          if (!dict[lang] && !(alternates[lang] ?? []).some((l) => dict[l]))
            run.errors.push(`Required language "${lang}" missing`)
      if (!run.errors.length) run.value = JSON.stringify(dict)
      return
    }
    const out: Record<string, unknown> = {}
    let ok = true
    for (const name of separate) {
      const lang = name.slice(prefix.length)
      run.consumed.add(name)
      if (!LANG_RE.test(lang)) {
        run.otherErrors[name] = [`invalid language code: "${lang}"`]
        ok = false
      } else out[lang] = run.data[name]
    }
    if (enforce)
      for (const lang of required)
        if (!run.data[prefix + lang] && !(alternates[lang] ?? []).some((l) => run.data[prefix + l])) {
          run.otherErrors[prefix + lang] = [MISSING]
          ok = false
        }
    if (ok && separate.length) run.value = JSON.stringify(out)
    else if (!separate.length && value === ABSENT) return
  }
}

const fluentTextOutput = (env: SchemaEnv) => (v: unknown) => {
  if (v && typeof v === 'object') return v
  try {
    const parsed = JSON.parse(String(v))
    if (parsed && typeof parsed === 'object') return parsed
  } catch {
    /* a plain string: the default locale's */
  }
  return { [env.localeDefault]: v }
}

const TAG_RE = /^[\p{L}\p{M}\p{N}\p{Pc} \-.]*$/u

/** ckanext-fluent's fluent_tags: a dict of language → list of tags (or `<field>-<lang>` comma lists). */
function fluentTags(field: SchemaField, env: SchemaEnv): Step {
  const required = field.required ? formLanguages(field, env) : []
  // ckanext-fluent: each tag through tag_validators (default: CKAN's length and name checks)
  const tagSteps = field.tag_validators !== undefined ? compileValidators(String(field.tag_validators), field, env, false) : [tagLength, tagName]
  const checkTag = (tag: string): string[] => runChain(tagSteps, field.field_name, tag, {}).errors
  return (run) => {
    if (run.errors.length) return
    const enforce = env.draft_fields_required !== false || !isDraft(run)
    const prefix = `${run.key}-`
    const separate = Object.keys(run.data).filter((k) => k.startsWith(prefix))
    let dict: Record<string, unknown>
    if (run.value !== ABSENT && run.value !== undefined && !separate.length) {
      let value = run.value
      if (typeof value === 'string') {
        try {
          value = JSON.parse(value)
        } catch {
          /* not JSON: refused below */
        }
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        run.errors.push('expecting JSON object')
        return
      }
      dict = value as Record<string, unknown>
    } else {
      dict = {}
      for (const name of separate) {
        run.consumed.add(name)
        const raw = run.data[name]
        dict[name.slice(prefix.length)] = typeof raw === 'string' ? raw.split(',').map((t) => t.trim()).filter(Boolean) : raw
      }
      if (!separate.length && run.value === ABSENT) return
    }
    const out: Record<string, string[]> = {}
    for (const [lang, tags] of Object.entries(dict)) {
      if (!LANG_RE.test(lang)) {
        run.errors.push(`invalid language code: "${lang}"`)
        continue
      }
      if (!Array.isArray(tags)) {
        run.errors.push(`invalid type for "${lang}" value`)
        continue
      }
      out[lang] = []
      tags.forEach((t, i) => {
        if (typeof t !== 'string') run.errors.push(`invalid type for "${lang}" value item ${i}`)
        else {
          run.errors.push(...checkTag(t))
          out[lang]!.push(t)
        }
      })
    }
    if (enforce) for (const lang of required) if (!out[lang]?.length) run.errors.push(`Required language "${lang}" missing`)
    if (!run.errors.length) run.value = JSON.stringify(out)
  }
}

const tagLength: Step = map((v) => {
  const t = text(v)
  if (t.length < 2) throw invalid(`Tag "${t}" length is less than minimum 2`)
  if (t.length > 100) throw invalid(`Tag "${t}" length is more than maximum 100`)
  return v
})
const tagName: Step = map((v) => {
  if (!TAG_RE.test(text(v))) throw invalid(`Tag "${text(v)}" must be alphanumeric characters or symbols: -_.`)
  return v
})

const URL_RE = /^https?:\/\/[^\s/$.?#][^\s]*$/i
const INT_RE = /^\s*[+-]?\d+\s*$/

const intOf = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (typeof v === 'string' && INT_RE.test(v)) return Number(v)
  return null
}

const VALIDATORS: Record<string, Factory> = {
  // ckan core: presence
  not_empty: () => notEmpty,
  ignore_missing: () => ignoreMissing,
  ignore_empty: () => (run) => {
    if (run.value === ABSENT || run.value === null || run.value === '' || run.value === undefined) stop(run, true)
  },
  ignore: () => (run) => stop(run, true),
  not_missing: () => (run) => {
    if (run.value === ABSENT) {
      run.errors.push(MISSING)
      stop(run)
    }
  },
  empty: (_a, field) => (run) => {
    if (run.value !== ABSENT && !isEmpty(run.value)) run.errors.push(`The input field ${field.field_name} was not expected.`)
  },
  keep_extras: () => () => {},
  default: (args) => (run) => {
    if (run.value === ABSENT || run.value === null || run.value === '' || run.value === undefined) run.value = args[0]
  },
  if_empty_same_as: (args) => (run) => {
    if (run.value === ABSENT || run.value === null || run.value === '' || run.value === undefined) {
      const other = run.data[String(args[0])]
      run.value = other === undefined ? ABSENT : other
    }
  },
  // ckan core: text
  unicode_safe: () => map((v) => (v === null ? v : text(v))),
  unicode: () => map((v) => (v === null ? v : text(v))),
  strip_value: () => map((v) => (typeof v === 'string' ? v.trim() : v)),
  remove_whitespace: () => map((v) => (typeof v === 'string' ? v.trim() : v)),
  email_validator: () =>
    map((v) => {
      if (v && typeof v === 'string' && !isEmail(v.trim())) throw invalid(`Email ${v} is not a valid format`)
      return v
    }),
  url_validator: () =>
    map((v) => {
      if (v && !(typeof v === 'string' && URL_RE.test(v))) throw invalid('Please provide a valid URL')
      return v
    }),
  name_validator: () =>
    map((v) => {
      const n = checkName(v)
      if (typeof n !== 'string') throw invalid(n.msgs[0] ?? 'Invalid name')
      return n
    }),
  // ckan: a new resource with no value gets the mimetype its URL suggests
  if_empty_guess_format: () => (run) => {
    const empty = run.value === ABSENT || run.value === null || run.value === ''
    if (!empty || run.data.id || typeof run.data.url !== 'string') return
    const guessed = guessMimetype(run.data.url)
    if (guessed) run.value = guessed
  },
  clean_format: () => map((v) => (typeof v === 'string' ? canonicalFormat(v) : v)),
  package_version_validator: () =>
    map((v) => {
      if (typeof v === 'string' && v.length > 100) throw invalid('Version must be a maximum of 100 characters long')
      return v
    }),
  tag_length_validator: () => tagLength,
  tag_name_validator: () => tagName,
  tag_not_uppercase: () =>
    map((v) => {
      if (/[A-Z]/.test(text(v))) throw invalid(`Tag "${text(v)}" must not be uppercase`)
      return v
    }),
  // ckan core: numbers and booleans
  int_validator: () =>
    map((v) => {
      if (v === null || v === '') return null
      const n = intOf(v)
      if (n === null) throw invalid('Invalid integer')
      return n
    }),
  convert_int: () =>
    map((v) => {
      const n = intOf(v)
      if (n === null) throw invalid('Invalid integer')
      return n
    }),
  natural_number_validator: () =>
    map((v) => {
      const n = intOf(v)
      if (n === null) throw invalid('Invalid integer')
      if (n < 0) throw invalid('Must be a natural number')
      return n
    }),
  is_positive_integer: () =>
    map((v) => {
      const n = intOf(v)
      if (n === null) throw invalid('Invalid integer')
      if (n < 1) throw invalid('Must be a postive integer')
      return n
    }),
  boolean_validator: () =>
    map((v) => {
      if (v === null || v === '' || v === undefined) return false
      if (typeof v === 'boolean') return v
      return ['yes', 'true', 'on', '1'].includes(String(v).toLowerCase())
    }),
  // ckan core: dates
  isodate: () =>
    map((v) => {
      if (v instanceof DateValue) return v
      if (v === '' || v === null) return null
      const d = typeof v === 'string' ? parseDate(v) : null
      if (!d) throw invalid('Date format incorrect')
      return new DateValue(d)
    }),
  convert_to_json_if_date: () => map((v) => (v instanceof DateValue ? v.iso.slice(0, 10) : v)),
  convert_to_json_if_datetime: () => map((v) => (v instanceof DateValue ? v.toString() : v)),
  // ckanext-scheming
  scheming_required: (_a, field, env) => {
    if (!field.required) return ignoreMissing
    if (env.draft_fields_required === false) return (run) => (isDraft(run) ? ignoreMissing(run) : notEmpty(run))
    return notEmpty
  },
  scheming_draft_fields_not_required: () => (run) => (isDraft(run) ? ignoreMissing(run) : notEmpty(run)),
  scheming_choices: (_a, field) => {
    const values = choiceValues(field)
    // ckan OneOf for a static list (an empty value too); a helper's list lets empty values by
    return (run) => {
      const v = run.value
      if (field.choices) {
        if (v !== ABSENT && v !== '' && !values.includes(v as string))
          run.errors.push(`Value must be one of [${values.map((x) => `'${x}'`).join(', ')}]`)
        return
      }
      if (v === ABSENT || !v) return
      if (!values.includes(text(v))) run.errors.push(`unexpected choice "${text(v)}"`)
    }
  },
  scheming_multiple_choice: (_a, field, env) => multipleChoice(field, env),
  scheming_multiple_choice_output: () =>
    map((v) => {
      if (Array.isArray(v)) return v
      try {
        return JSON.parse(String(v))
      } catch {
        return [v]
      }
    }),
  scheming_isodatetime: (_a, field) => isoDateTime(field, false),
  scheming_isodatetime_tz: (_a, field) => isoDateTime(field, true),
  scheming_valid_json_object: () =>
    map((v) => {
      if (!v) return undefined
      if (typeof v === 'string') {
        let loaded: unknown
        try {
          loaded = JSON.parse(v)
        } catch (e) {
          throw invalid(`Invalid JSON string: ${(e as Error).message}`)
        }
        if (!loaded || typeof loaded !== 'object' || Array.isArray(loaded)) throw invalid(`Unsupported value for JSON field: ${v}`)
        return v
      }
      if (typeof v === 'object' && !Array.isArray(v)) return JSON.stringify(v)
      throw invalid(`Unsupported type for JSON field: <class '${Array.isArray(v) ? 'list' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : typeof v === 'boolean' ? 'bool' : 'str'}'>`)
    }),
  scheming_load_json: () => map(loadJson),
  scheming_multiple_text: (_a, field) => multipleText(field),
  repeating_text_output: () =>
    map((v) => {
      if (Array.isArray(v)) return v
      if (v === null || v === undefined) return []
      try {
        return JSON.parse(String(v))
      } catch {
        return [v]
      }
    }),
  // ckan: the core tag_string is parsed by the dataset write; elsewhere (a subfield of ckanext-dcat's
  // schemas) each comma-separated tag is checked and the text kept
  tag_string_convert: (_a, field) => (run) => {
    const v = run.value
    if (v === ABSENT || v === null) {
      if (field.field_name === 'tag_string') stop(run)
      return
    }
    if (field.field_name === 'tag_string') return
    const tags = typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : Array.isArray(v) ? v : []
    for (const tag of tags) {
      run.errors.push(...runChain([tagLength, tagName], run.key, tag, {}).errors)
    }
  },
  // ckanext-dcat
  dcat_date: () => (run) => {
    const v = run.value
    if (v === ABSENT) return
    if (!v) {
      run.value = null
      return
    }
    if (v instanceof DateValue) return
    if (typeof v !== 'string') {
      run.errors.push('Dates must be provided as strings or datetime objects')
      return
    }
    if (XSD_DATE.test(v) || parseDate(v) || parseDateTz(v)) return
    run.errors.push('Date format incorrect. Supported formats are YYYY, YYYY-MM, YYYY-MM-DD and YYYY-MM-DDTHH:MM:SS')
  },
  scheming_multiple_number: (_a, field) => (run) => {
    if (run.errors.length) return
    let v = run.value
    if (v && v !== ABSENT) {
      if (!Array.isArray(v)) {
        if (typeof v === 'string' && v.startsWith('[')) {
          try {
            v = JSON.parse(v)
          } catch {
            run.errors.push('Could not parse value')
            return stop(run)
          }
        } else if (Number.isFinite(Number(v)) && String(v).trim() !== '') v = [Number(v)]
        else {
          run.errors.push('expecting list of numbers')
          return stop(run)
        }
      }
      const out: number[] = []
      for (const el of v as unknown[]) {
        if (!el) continue
        const n = typeof el === 'number' || typeof el === 'string' ? Number(el) : NaN
        if (!Number.isFinite(n) || (typeof el === 'string' && el.trim() === '')) run.errors.push(`invalid type for repeating number: ${pyRepr(el)}`)
        else out.push(n)
      }
      if (run.errors.length) return stop(run)
      run.value = JSON.stringify(out)
    }
    if ((run.value === ABSENT || run.value === '[]') && field.required) {
      run.errors.push(MISSING)
      stop(run)
    }
  },
  // ckanext-fluent
  fluent_text: (_a, field, env) => fluentText(field, env),
  fluent_text_output: (_a, _f, env) => map(fluentTextOutput(env)),
  fluent_tags: (_a, field, env) => fluentTags(field, env),
  fluent_tags_output: () =>
    map((v) => {
      if (v && typeof v === 'object') return v
      try {
        return JSON.parse(String(v))
      } catch {
        return v
      }
    }),
  fluent_core_translated_output: (_a, field, env) => {
    if (!field.field_name.endsWith('_translated'))
      throw new ValidatorUnusable('fluent_core_translated_output must be used on a field whose name ends with "_translated"')
    return map(fluentTextOutput(env))
  },
}

/**
 * Validators whose check needs the database or the dataset as a whole: the dataset write makes it
 * for the core field they belong to (name, tags, owner_org, resource format), so a schema may name
 * them there and nowhere else.
 */
const CORE_ONLY: Record<string, string[]> = {
  package_name_validator: ['name'],
  owner_org_validator: ['owner_org'],
  group_name_validator: ['name'],
}

/** Every validator name a schema may use. */
export const validatorNames = () => [...Object.keys(VALIDATORS), ...Object.keys(CORE_ONLY)].sort()

/** Splits a validators string into names and arguments: `if_empty_same_as(name) unicode_safe`. */
export function parseValidators(s: string): { name: string; args: unknown[] }[] {
  const out: { name: string; args: unknown[] }[] = []
  for (const part of s.split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$/.exec(part)
    if (!m) {
      out.push({ name: part, args: [] })
      continue
    }
    const args = m[2]!
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== '')
      .map((a) => {
        const q = /^(['"])(.*)\1$/.exec(a)
        if (q) return q[2]
        if (/^-?\d+(\.\d+)?$/.test(a)) return Number(a)
        if (a === 'True' || a === 'False') return a === 'True'
        if (a === 'None') return null
        return a
      })
    out.push({ name: m[1]!, args })
  }
  return out
}

/**
 * The steps of a validators string for `field`; throws with the name of an unknown validator, or
 * one that cannot apply to this field. `coreKey`: the dataset or resource key the field is (the
 * write makes the core checks of CORE_ONLY validators there).
 */
export function compileValidators(s: string, field: SchemaField, env: SchemaEnv, coreKey: boolean): Step[] {
  return parseValidators(s).map(({ name, args }) => {
    const make = VALIDATORS[name]
    if (make) return make(args, field, env)
    const fields = CORE_ONLY[name]
    if (fields) {
      if (!coreKey || !fields.includes(field.field_name))
        throw new ValidatorUnusable(`validator ${name} applies only to the core field ${fields.join(' or ')}`)
      // the write checks the value; an empty one ends the chain here, as these validators do
      return (run: Run) => {
        if (run.value === ABSENT || run.value === null) stop(run)
      }
    }
    throw new ValidatorUnusable(`validator/converter not found: '${name}'`)
  })
}

/** Runs a chain over one value; returns the run (value ABSENT: the key is dropped). */
export function runChain(steps: Step[], key: string, value: unknown, data: Record<string, unknown>): Run {
  const run: Run = { key, value, errors: [], stop: false, data, otherErrors: {}, consumed: new Set() }
  for (const step of steps) {
    step(run)
    if (run.stop) break
  }
  return run
}
