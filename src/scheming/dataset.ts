// A dataset dict through its type's schema, as ckanext-scheming does it: on the way in every field's
// validators run (CKAN's error dict, subfields included), core fields go on to the dataset write and
// the others become extras; on the way out those extras are top-level keys again.
import { ValidationError, type ErrorDict } from '../errors'
import { pyStr } from '../lib/py-repr'
import { assertListsOfDicts } from '../validation/fields'
import type { CompiledField, CompiledSchema, SchemaRegistry } from './registry'
import type { DatasetSchema } from './types'
import { ABSENT, DateValue, runChain } from './validators'

type Dict = Record<string, unknown>
export type DatasetType = CompiledSchema<DatasetSchema>
/** Any compiled schema: a dataset type, or an organization or group type (no resource fields). */
type AnySchema = CompiledSchema<unknown>

/**
 * The schema a dataset of `type` follows: undefined where the site has none for it (CKAN's core
 * schema applies), or scheming's Validation Error when the site falls back to scheming for every type.
 */
export function datasetSchemaFor(reg: SchemaRegistry | undefined, type: string): DatasetType | undefined {
  if (!reg) return undefined
  const s = reg.dataset(type)
  if (!s && reg.datasetFallback) throw new ValidationError({ type: [`Unsupported dataset type: ${type}`] })
  return s
}

/** A validated value as the dataset write takes it. */
const plain = (v: unknown) => (v instanceof DateValue ? v.toString() : v)

/** A value as an extra stores it (text). */
function extraText(v: unknown): string | undefined {
  if (v === ABSENT || v === undefined || v === null) return undefined
  if (typeof v === 'string') return v
  if (v instanceof DateValue) return v.toString()
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (x instanceof DateValue ? x.toString() : x))
  return pyStr(v)
}

/** Form posts spell repeating subfields `<field>-<n>-<subfield>`: lists of dicts again. */
export function expandFormComposite(data: Dict, fields: string[]) {
  for (const name of fields) {
    if (name in data) continue
    const items: Dict[] = []
    const re = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)-(.+)$`)
    for (const key of Object.keys(data)) {
      const m = re.exec(key)
      if (!m) continue
      ;(items[Number(m[1])] ??= {})[m[2]!] = data[key]
      delete data[key]
    }
    const list = items.filter(Boolean)
    // an item whose inputs are all empty is a blank row of the form, not data
    if (items.length) data[name] = list.filter((it) => Object.values(it).some((v) => v !== '' && v !== undefined && v !== null))
  }
}

interface FieldOutcome {
  value: unknown
  errors?: unknown
  otherErrors: Record<string, string[]>
  consumed: Set<string>
}

function checkField(f: CompiledField, data: Dict, create: boolean): FieldOutcome {
  const given = Object.hasOwn(data, f.name) ? data[f.name] : ABSENT
  if (f.sub) {
    if (given === ABSENT || given === null || given === '') return { value: given === ABSENT ? ABSENT : [], otherErrors: {}, consumed: new Set() }
    assertListsOfDicts({ [f.name]: given }, [f.name])
    const items = given as Dict[]
    const out: Dict[] = []
    const errs: Dict[] = []
    for (const item of items) {
      const o: Dict = {}
      const e: Dict = {}
      for (const sf of f.sub) {
        const r = checkField(sf, item, create)
        if (r.errors) e[sf.name] = r.errors
        Object.assign(e, r.otherErrors)
        if (r.value !== ABSENT) o[sf.name] = plain(r.value)
      }
      out.push(o)
      errs.push(e)
    }
    const bad = errs.some((e) => Object.keys(e).length)
    return { value: out, errors: bad ? errs : undefined, otherErrors: {}, consumed: new Set() }
  }
  const run = runChain(create ? f.create : f.input, f.name, given, data)
  return { value: run.value, errors: run.errors.length ? run.errors : undefined, otherErrors: run.otherErrors, consumed: run.consumed }
}

/**
 * The dataset dict the write receives for a dataset of this schema: core fields validated by the
 * schema too, the schema's other fields as extras (replacing free extras of the same key), form
 * inputs consumed; and the schema's errors, which the caller merges with the core checks'.
 */
export function datasetInput(schema: AnySchema, raw: Dict, mode: 'create' | 'update'): { raw: Dict; errors: ErrorDict } {
  const data: Dict = { ...raw }
  expandFormComposite(data, schema.fields.filter((f) => f.sub).map((f) => f.name))
  const errors: ErrorDict = {}
  const stored: { key: string; value: string }[] = []
  const out: Dict = { ...data }
  const create = mode === 'create'
  for (const f of schema.fields) {
    const r = checkField(f, data, create)
    if (r.errors) errors[f.name] = r.errors as string[]
    for (const [k, v] of Object.entries(r.otherErrors)) errors[k] = v
    for (const k of r.consumed) delete out[k]
    if (f.core) {
      if (r.value === ABSENT) delete out[f.name]
      else out[f.name] = plain(r.value)
      continue
    }
    delete out[f.name]
    const text = extraText(r.value)
    if (text !== undefined) stored.push({ key: f.name, value: text })
  }
  if (Array.isArray(raw.resources) && schema.resourceFields.length) {
    const resErrors: Dict[] = []
    out.resources = (raw.resources as unknown[]).map((r) => {
      if (!r || typeof r !== 'object' || Array.isArray(r)) {
        resErrors.push({})
        return r
      }
      const { res, errors: e } = resourceInput(schema, r as Dict, create)
      resErrors.push(e)
      return res
    })
    if (resErrors.some((e) => Object.keys(e).length)) errors.resources = resErrors as never
  }
  if (stored.length) {
    const names = new Set(stored.map((s) => s.key))
    const free = Array.isArray(raw.extras) ? (raw.extras as Dict[]).filter((e) => !(e && typeof e === 'object' && names.has(String(e.key)))) : []
    out.extras = [...free, ...stored]
  }
  return { raw: out, errors }
}

/** One resource dict through the schema's resource fields (all of them kept on the resource). */
export function resourceInput(schema: AnySchema, raw: Dict, create: boolean): { res: Dict; errors: ErrorDict } {
  const data: Dict = { ...raw }
  expandFormComposite(data, schema.resourceFields.filter((f) => f.sub).map((f) => f.name))
  const out: Dict = { ...data }
  const errors: ErrorDict = {}
  for (const f of schema.resourceFields) {
    const r = checkField(f, data, create)
    if (r.errors) errors[f.name] = r.errors as string[]
    for (const [k, v] of Object.entries(r.otherErrors)) errors[k] = v
    for (const k of r.consumed) delete out[k]
    if (r.value === ABSENT) delete out[f.name]
    else out[f.name] = f.sub ? JSON.stringify(r.value) : plain(r.value)
  }
  return { res: out, errors }
}

function showField(f: CompiledField, value: unknown): unknown {
  let v = value
  if (f.sub && v !== ABSENT) {
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v)
      } catch {
        /* kept as stored */
      }
    }
    if (Array.isArray(v))
      v = v.map((item) => {
        if (!item || typeof item !== 'object') return item
        const o: Dict = {}
        for (const sf of f.sub!) {
          const shown = showField(sf, Object.hasOwn(item, sf.name) ? (item as Dict)[sf.name] : ABSENT)
          if (shown !== ABSENT) o[sf.name] = shown
        }
        return o
      })
  }
  return runChain(f.output, f.name, v, {}).value
}

/** package_show's dict of a dataset of this schema: its extras that are schema fields as top-level keys. */
export function datasetOutput(schema: AnySchema, dict: Dict): Dict {
  const extras = Array.isArray(dict.extras) ? (dict.extras as { key: string; value: string }[]) : []
  const byKey = new Map(extras.map((e) => [e.key, e.value]))
  const out: Dict = { ...dict }
  const taken = new Set<string>()
  for (const f of schema.fields) {
    if (f.core) {
      // core values keep CKAN's own show; output validators (fluent's) apply to what is there
      const v = out[f.name]
      if (v !== null && v !== undefined && f.output.length > 1) {
        const shown = runChain(f.output, f.name, v, out).value
        if (shown !== ABSENT) out[f.name] = shown
      }
      continue
    }
    const stored = byKey.has(f.name) ? byKey.get(f.name) : ABSENT
    if (stored !== ABSENT) taken.add(f.name)
    const shown = showField(f, stored)
    if (shown !== ABSENT) out[f.name] = shown
    else delete out[f.name]
    // ckanext-fluent: a `<core>_translated` field shows its default language as the core field
    const core = f.name.endsWith('_translated') ? f.name.slice(0, -'_translated'.length) : ''
    if (core && core in out && shown && typeof shown === 'object' && /\bfluent_core_translated_output\b/.test(String(f.field.output_validators ?? ''))) {
      const byLang = shown as Record<string, unknown>
      out[core] = byLang[schema.env.localeDefault] ?? Object.values(byLang)[0] ?? out[core]
    }
  }
  if (taken.size) out.extras = extras.filter((e) => !taken.has(e.key))
  if (schema.resourceFields.length && Array.isArray(dict.resources))
    out.resources = (dict.resources as Dict[]).map((r) => {
      const o: Dict = { ...r }
      for (const f of schema.resourceFields) {
        const v = Object.hasOwn(r, f.name) ? r[f.name] : ABSENT
        if (v === ABSENT || v === null) continue
        const shown = showField(f, v)
        if (shown !== ABSENT) o[f.name] = shown
      }
      return o
    })
  return out
}

/**
 * The schema of an organization or group type (`organization_type` / `group_type`): undefined where
 * the site has none for it (CKAN's core group schema applies).
 */
export function groupSchemaFor(reg: SchemaRegistry | undefined, isOrg: boolean, type: string) {
  return (isOrg ? reg?.organizations : reg?.groups)?.get(type)
}

/** Organizations and groups store their fields as datasets do: other fields as extras. */
export const groupInput = datasetInput
export const groupOutput = datasetOutput

/** Merges the schema's errors with the core checks' (the schema's first, no message twice). */
export function mergeErrors(schemaErrors: ErrorDict, coreErrors: ErrorDict): ErrorDict {
  const out: ErrorDict = { ...coreErrors }
  for (const [k, v] of Object.entries(schemaErrors)) {
    const core = out[k]
    if (Array.isArray(v) && Array.isArray(core) && v.every((x) => typeof x === 'string') && core.every((x) => typeof x === 'string'))
      out[k] = [...v, ...core.filter((m) => !v.includes(m))] as string[]
    else out[k] = v
  }
  return out
}
