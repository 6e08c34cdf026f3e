// Schema files parsed, presets merged and validators compiled once, at start: the registry of
// dataset, organization and group types the actions consult.
import { parse as parseYaml } from 'yaml'
import { ROOT_KEYS } from '../model/package-validate'
import { BUILTIN_PRESETS } from './presets'
import type { DatasetSchema, GroupSchema, PresetsFile, SchemaField, SchemaSource } from './types'
import { compileValidators, HELPER_CHOICES, type SchemaEnv, type Step, ValidatorUnusable } from './validators'

/** A schema that cannot be used: the message names the file and the field. */
export class SchemaError extends Error {}

/** Dataset keys the dataset write itself takes (a schema field of that name is not an extra). */
export const DATASET_CORE_KEYS: ReadonlySet<string> = ROOT_KEYS

/** Group and organization keys stored in their own columns. */
export const GROUP_CORE_KEYS = new Set([
  'id', 'name', 'title', 'description', 'image_url', 'image_upload', 'clear_upload', 'state', 'type',
  'approval_status', 'is_organization', 'extras', 'groups', 'users', 'packages', 'tags',
])

export interface CompiledField {
  name: string
  /** The field with its preset merged in, as `scheming_*_schema_show` shows it. */
  field: SchemaField
  /** A key the write stores itself (else kept as an extra). */
  core: boolean
  input: Step[]
  create: Step[]
  output: Step[]
  /** repeating_subfields, compiled. */
  sub?: CompiledField[]
}

export interface CompiledSchema<S> {
  type: string
  /** As written in its file. */
  source: S
  /** Presets merged into every field. */
  expanded: S
  fields: CompiledField[]
  /** Dataset schemas: the resource fields. */
  resourceFields: CompiledField[]
  env: SchemaEnv
  /** Dataset schemas: the non-core fields whose words a search finds (free text, repeating blocks). */
  textFields: string[]
}

export interface SchemingOptions {
  datasetSchemas: SchemaSource[]
  organizationSchemas: SchemaSource[]
  groupSchemas: SchemaSource[]
  /** Presets files beyond the built-in ones, in the order `scheming.presets` names them. */
  presets: (SchemaSource | string)[]
  datasetFallback: boolean
  localeDefault: string
  /** choices_helper lists by helper name (`scheming.choices_helpers`). */
  choicesHelpers?: Record<string, { value: string; label?: unknown }[]>
}

const isYaml = (name: string) => /\.ya?ml$/i.test(name.split('?')[0]!)

/** A schema or presets file's text as scheming's loader reads it: YAML by its name, else JSON. */
export function parseSchemaText(src: SchemaSource): Record<string, unknown> {
  let doc: unknown
  try {
    doc = isYaml(src.name) ? parseYaml(src.text) : JSON.parse(src.text)
  } catch (e) {
    throw new SchemaError(`${src.name}: cannot be parsed: ${(e as Error).message}`)
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SchemaError(`${src.name}: not a schema (expected a mapping)`)
  return doc as Record<string, unknown>
}

type Presets = Map<string, Record<string, unknown>>

function loadPresets(list: (SchemaSource | string)[]): Presets {
  const out: Presets = new Map()
  // ckan: where two files define a preset, the one named first wins
  for (const item of list) {
    const entries =
      typeof item === 'string'
        ? BUILTIN_PRESETS[item]
        : ((parseSchemaText(item) as unknown as PresetsFile).presets ?? null)
    if (!entries || !Array.isArray(entries))
      throw new SchemaError(`${typeof item === 'string' ? item : item.name}: not a presets file (no "presets" list)`)
    for (const p of entries) if (!out.has(p.preset_name)) out.set(p.preset_name, p.values)
  }
  return out
}

function expandField(presets: Presets, field: SchemaField, where: string): SchemaField {
  if (!field || typeof field !== 'object' || typeof field.field_name !== 'string' || !field.field_name)
    throw new SchemaError(`${where}: a field without a field_name`)
  let out: SchemaField = field
  if (field.preset) {
    const values = presets.get(field.preset)
    if (!values) throw new SchemaError(`${where}: field "${field.field_name}": preset '${field.preset}' not defined`)
    out = { ...values, ...field } as SchemaField
  }
  if (Array.isArray(out.repeating_subfields))
    out = { ...out, repeating_subfields: out.repeating_subfields.map((sf) => expandField(presets, sf, `${where}: field "${field.field_name}"`)) }
  if (out.choices !== undefined && !Array.isArray(out.choices))
    throw new SchemaError(`${where}: field "${field.field_name}": choices must be a list`)
  return out
}

const required = (f: SchemaField) =>
  f.required !== undefined ? !!f.required : String(f.validators ?? '').split(/\s+/).includes('not_empty')

function compileField(f: SchemaField, env: SchemaEnv, coreKeys: ReadonlySet<string> | null, where: string): CompiledField {
  if (f.choices_helper && !f.choices) {
    const list = env.choicesHelpers[String(f.choices_helper)]
    if (!list)
      throw new SchemaError(`${where}: field "${f.field_name}": choices_helper '${String(f.choices_helper)}' is not declared (scheming.choices_helpers)`)
    f = Object.assign(Object.create(null), f, { [HELPER_CHOICES]: list }) as SchemaField
  }
  const core = coreKeys ? coreKeys.has(f.field_name) : true
  const steps = (s: string | undefined, fallback: () => Step[]) => {
    if (s === undefined) return fallback()
    try {
      return compileValidators(String(s), f, env, core)
    } catch (e) {
      if (e instanceof ValidatorUnusable) throw new SchemaError(`${where}: field "${f.field_name}": ${e.message}`)
      throw e
    }
  }
  const defaults = () => compileValidators(required(f) ? 'not_empty' : 'ignore_missing', f, env, core)
  const input = steps(f.validators, defaults)
  const create = f.create_validators !== undefined ? steps(f.create_validators, defaults) : input
  const output = [...compileValidators('ignore_missing', f, env, core), ...steps(f.output_validators, () => [])]
  const sub = Array.isArray(f.repeating_subfields)
    ? f.repeating_subfields.map((sf) => compileField(sf, env, null, `${where}: field "${f.field_name}"`))
    : undefined
  return { name: f.field_name, field: f, core, input, create, output, sub }
}

function compileFields(list: unknown, env: SchemaEnv, coreKeys: ReadonlySet<string> | null, where: string, presets: Presets) {
  if (list === undefined) return { expanded: [] as SchemaField[], compiled: [] as CompiledField[] }
  if (!Array.isArray(list)) throw new SchemaError(`${where}: fields must be a list`)
  const expanded = list.map((f) => expandField(presets, f as SchemaField, where))
  const seen = new Set<string>()
  for (const f of expanded) {
    if (seen.has(f.field_name)) throw new SchemaError(`${where}: field "${f.field_name}" is listed twice`)
    seen.add(f.field_name)
  }
  return { expanded, compiled: expanded.map((f) => compileField(f, env, coreKeys, where)) }
}

const NOT_TEXT = /(^|_)(select|radio|multiple_checkbox|multiple_select|date|datetime|datetime_tz|json_object)$/

/** A field of free text (not a choice, date or JSON): its words are searchable. */
const isTextField = (f: SchemaField) =>
  !f.choices &&
  !f.choices_helper &&
  !NOT_TEXT.test(String(f.preset ?? '')) &&
  !/int_validator|boolean_validator|isodate|scheming_isodatetime/.test(String(f.validators ?? ''))

/** The dataset, organization and group types a site's schema files declare. */
export class SchemaRegistry {
  readonly datasets = new Map<string, CompiledSchema<DatasetSchema>>()
  readonly organizations = new Map<string, CompiledSchema<GroupSchema>>()
  readonly groups = new Map<string, CompiledSchema<GroupSchema>>()
  readonly datasetFallback: boolean

  constructor(opts: SchemingOptions) {
    this.datasetFallback = opts.datasetFallback
    const presets = loadPresets(opts.presets)
    const envOf = (s: Record<string, unknown>): SchemaEnv => ({
      draft_fields_required: s.draft_fields_required === undefined ? undefined : !!s.draft_fields_required,
      localeDefault: opts.localeDefault,
      formLanguages: Array.isArray(s.form_languages) ? (s.form_languages as string[]) : [opts.localeDefault],
      choicesHelpers: opts.choicesHelpers ?? {},
      alternateLanguages: (s.alternate_languages && typeof s.alternate_languages === 'object' ? s.alternate_languages : {}) as Record<string, string[]>,
    })
    for (const src of opts.datasetSchemas) {
      const doc = parseSchemaText(src) as DatasetSchema
      const type = doc.dataset_type
      if (typeof type !== 'string' || !type) throw new SchemaError(`${src.name}: no dataset_type`)
      const env = envOf(doc)
      const ds = compileFields(doc.dataset_fields, env, DATASET_CORE_KEYS, `${src.name} (dataset_fields)`, presets)
      const rs = compileFields(doc.resource_fields, env, null, `${src.name} (resource_fields)`, presets)
      const expanded = { ...doc, dataset_fields: ds.expanded, resource_fields: rs.expanded }
      const textFields = ds.compiled.filter((f) => !f.core && isTextField(f.field)).map((f) => f.name)
      this.datasets.set(type, { type, source: doc, expanded, fields: ds.compiled, resourceFields: rs.compiled, env, textFields })
    }
    for (const [list, key, map] of [
      [opts.organizationSchemas, 'organization_type', this.organizations],
      [opts.groupSchemas, 'group_type', this.groups],
    ] as const) {
      for (const src of list) {
        const doc = parseSchemaText(src) as GroupSchema
        const type = (doc[key] as string | undefined) ?? (key === 'organization_type' ? 'organization' : 'group')
        const env = envOf(doc)
        const fs = compileFields(doc.fields, env, GROUP_CORE_KEYS, `${src.name} (fields)`, presets)
        map.set(type, { type, source: doc, expanded: { ...doc, fields: fs.expanded }, fields: fs.compiled, resourceFields: [], env, textFields: [] })
      }
    }
  }

  /** The schema of a dataset type: undefined when it has none (CKAN's core schema applies). */
  dataset(type: string) {
    return this.datasets.get(type)
  }
}
