// The site's metadata schemas (ckanext-scheming) as JSON Schema: one component per dataset,
// resource, organization and group type, built from each field's preset-merged validators, for the
// OpenAPI document and the MCP tools. Only the shape a caller sends is described; CKAN's own checks
// (a name's uniqueness, an organization's existence) stay in the actions' descriptions.
import type { CompiledSchema, SchemaRegistry } from '../scheming/registry'
import type { SchemaEnv } from '../scheming/validators'
import type { DatasetSchema, GroupSchema, SchemaField } from '../scheming/types'

type Json = Record<string, unknown>
export type TypeKind = 'dataset' | 'resource' | 'organization' | 'group'

/** The type a create without `type` gets (CKAN's default for each kind). */
export const DEFAULT_TYPE: Record<Exclude<TypeKind, 'resource'>, string> = { dataset: 'dataset', organization: 'organization', group: 'group' }

/** A component name for a type: `dataset.river-photos` (OpenAPI allows `[A-Za-z0-9._-]`). */
export const componentName = (kind: TypeKind, type: string) => `${kind}.${type.replace(/[^A-Za-z0-9._-]/g, '_')}`
export const componentRef = (kind: TypeKind, type: string) => `#/components/schemas/${componentName(kind, type)}`

/** A label or help text: the text itself, or its English (else first) translation. */
export function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    const t = o.en ?? Object.values(o)[0]
    return typeof t === 'string' ? t.trim() || undefined : undefined
  }
  return undefined
}

/** The validator names of a validators string (`default(x)` → `default`). */
const validatorNames = (s: unknown) =>
  String(s ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.replace(/\(.*$/, ''))

const INTEGER = new Set(['int_validator', 'is_positive_integer', 'natural_number_validator', 'is_natural_number'])
/** Validators that check `required` themselves (scheming's, fluent's). */
const CHECKS_REQUIRED = new Set([
  'scheming_required',
  'scheming_multiple_choice',
  'scheming_multiple_text',
  'scheming_isodatetime',
  'scheming_isodatetime_tz',
  'fluent_text',
  'fluent_tags',
])
const LANGUAGE = { type: 'string', pattern: '^[a-z]{2,8}(-[0-9a-zA-Z]{1,8})*$' }

/** The field's choices: its own list, or its choices_helper's. */
function choicesOf(f: SchemaField, env: SchemaEnv): { value: string; label?: unknown }[] | undefined {
  if (Array.isArray(f.choices)) return f.choices
  if (f.choices_helper) return env.choicesHelpers[String(f.choices_helper)]
  return undefined
}

/**
 * Whether a create must carry the field: as scheming decides it, `required` counts where the
 * validators honour it (the default chain, scheming_required and its kin) and `not_empty` always;
 * with `draft_fields_required: false` only a draft may omit it, and the schema does not say "required".
 */
export function isRequired(f: SchemaField, env: SchemaEnv): boolean {
  if (f.validators === undefined) return !!f.required
  const names = validatorNames(f.validators)
  if (names.includes('not_empty')) return true
  if (!f.required || env.draft_fields_required === false) return false
  return names.some((n) => CHECKS_REQUIRED.has(n))
}

/** One field as JSON Schema: its type by validators (the preset's, merged), title and description. */
export function fieldSchema(f: SchemaField, env: SchemaEnv): Json {
  const names = validatorNames(f.validators)
  const has = (n: string) => names.includes(n)
  const choices = choicesOf(f, env)
  const values = choices?.map((c) => String(c.value))
  let s: Json
  if (Array.isArray(f.repeating_subfields)) {
    s = { type: 'array', items: objectSchema(f.repeating_subfields, env) }
  } else if (has('fluent_tags')) {
    s = { type: 'object', propertyNames: LANGUAGE, additionalProperties: { type: 'array', items: { type: 'string' } } }
  } else if (has('fluent_text')) {
    s = { type: 'object', propertyNames: LANGUAGE, additionalProperties: { type: 'string' } }
  } else if (has('scheming_multiple_choice')) {
    s = { type: 'array', items: values ? { enum: values } : { type: 'string' } }
  } else if (has('scheming_multiple_text')) {
    s = { type: 'array', items: { type: 'string' } }
  } else if (has('boolean_validator')) {
    s = { type: ['boolean', 'string'] }
  } else if (has('scheming_choices') && values) {
    s = { enum: values }
  } else if (names.some((n) => INTEGER.has(n))) {
    s = { type: ['integer', 'string'] }
  } else if (has('scheming_isodatetime') || has('scheming_isodatetime_tz')) {
    s = { type: 'string', format: 'date-time' }
  } else if (has('isodate')) {
    s = { type: 'string', format: 'date' }
  } else if (has('scheming_valid_json_object')) {
    s = { type: 'object' }
  } else if (has('email_validator')) {
    s = { type: 'string', format: 'email' }
  } else if (has('url_validator')) {
    s = { type: 'string', format: 'uri' }
  } else {
    s = { type: 'string' }
  }
  const title = textOf(f.label)
  const help = textOf(f.help_text)
  const notes = [help && !/[.!?]$/.test(help) ? `${help}.` : help]
  if (choices && (has('scheming_choices') || has('scheming_multiple_choice')))
    notes.push(`Choices: ${choices.map((c) => (textOf(c.label) ? `${c.value} (${textOf(c.label)})` : String(c.value))).join(', ')}.`)
  if (has('scheming_isodatetime_tz')) notes.push('An ISO 8601 date and time with its offset; stored in UTC.')
  if (has('fluent_text') || has('fluent_tags')) notes.push('One value per language code.')
  const description = notes.filter(Boolean).join(' ')
  return { ...(title ? { title } : {}), ...(description ? { description } : {}), ...s }
}

/** A list of fields as an object: their properties and the required ones; other keys allowed. */
function objectSchema(fields: SchemaField[], env: SchemaEnv): Json {
  const properties: Record<string, Json> = {}
  for (const f of fields) properties[f.field_name] = fieldSchema(f, env)
  const required = fields.filter((f) => isRequired(f, env)).map((f) => f.field_name)
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: true }
}

function typeDescription(kind: string, s: { about?: unknown; about_url?: unknown; draft_fields_required?: unknown }) {
  return [
    textOf(s.about),
    typeof s.about_url === 'string' ? `See ${s.about_url}.` : undefined,
    s.draft_fields_required === false ? 'Required fields may be left out while the state is a draft.' : undefined,
    `Other keys of CKAN's ${kind} dict are accepted as usual.`,
  ]
    .filter(Boolean)
    .join(' ')
}

/** The component schemas of every type the registry declares, by component name. */
export function schemingComponents(reg: SchemaRegistry): Record<string, Json> {
  const out: Record<string, Json> = {}
  for (const [type, s] of reg.datasets) {
    const body = objectSchema(s.expanded.dataset_fields, s.env)
    const props = body.properties as Record<string, Json>
    const resourceFields = s.expanded.resource_fields
    out[componentName('dataset', type)] = {
      title: `Dataset type ${type}`,
      description: typeDescription('dataset', s.expanded),
      ...body,
      properties: {
        type: { const: type, description: type === DEFAULT_TYPE.dataset ? 'the dataset type (the default)' : 'the dataset type' },
        ...props,
        ...(resourceFields.length && !props.resources ? { resources: { type: 'array', items: { $ref: componentRef('resource', type) } } } : {}),
      },
    }
    if (resourceFields.length)
      out[componentName('resource', type)] = {
        title: `Resource of a ${type} dataset`,
        description: `The resource fields of dataset type ${type}. Other keys of CKAN's resource dict are accepted as usual.`,
        ...objectSchema(resourceFields, s.env),
      }
  }
  for (const [kind, map] of [['organization', reg.organizations], ['group', reg.groups]] as const) {
    for (const [type, s] of map) {
      const body = objectSchema(s.expanded.fields, s.env)
      out[componentName(kind, type)] = {
        title: `${kind === 'group' ? 'Group' : 'Organization'} type ${type}`,
        description: typeDescription(kind, s.expanded),
        ...body,
        properties: { type: { const: type, description: `the ${kind} type` }, ...(body.properties as Json) },
      }
    }
  }
  return out
}

type Kind = Exclude<TypeKind, 'resource'>
type AnySchema = CompiledSchema<DatasetSchema> | CompiledSchema<GroupSchema>

/** A type's own fields (dataset_fields, or an organization's or group's fields), presets merged. */
const fieldsOf = (s: AnySchema): SchemaField[] =>
  ('dataset_fields' in s.expanded ? (s.expanded as DatasetSchema).dataset_fields : (s.expanded as GroupSchema).fields) ?? []

export function typesOf(reg: SchemaRegistry, kind: Kind): Map<string, AnySchema> {
  return kind === 'dataset' ? reg.datasets : kind === 'organization' ? reg.organizations : reg.groups
}

/** Whether a type the registry does not declare is still accepted (with CKAN's core fields). */
const othersAccepted = (reg: SchemaRegistry, kind: Kind) => kind !== 'dataset' || !reg.datasetFallback

/**
 * A create's body: exactly one type's schema. A branch per declared type, keyed by `type` (required
 * except for the default type, which a body without `type` gets); where types without a schema are
 * accepted, a last branch for them (CKAN's core fields).
 */
export function createVariants(reg: SchemaRegistry, kind: Kind): Json[] {
  const types = [...typesOf(reg, kind).keys()]
  const def = DEFAULT_TYPE[kind]
  const out: Json[] = types.map((t) => (t === def ? { $ref: componentRef(kind, t) } : { $ref: componentRef(kind, t), required: ['type'] }))
  if (othersAccepted(reg, kind))
    out.push({
      title: `Another ${kind} type`,
      description: `A type without a schema on this site: CKAN's core ${kind} fields.`,
      properties: { type: { not: { enum: types } } },
      ...(types.includes(def) ? { required: ['type'] } : {}),
    })
  return out
}

/** An update's body or a show's result: one of the types' schemas (the stored type applies). */
export function anyTypeVariants(reg: SchemaRegistry, kind: Kind): Json[] {
  const types = [...typesOf(reg, kind).keys()]
  const out: Json[] = types.map((t) => ({ $ref: componentRef(kind, t) }))
  if (othersAccepted(reg, kind))
    out.push({ title: `Another ${kind} type`, description: `A type without a schema on this site: CKAN's core ${kind} fields.`, properties: { type: { not: { enum: types } } } })
  return out
}

/**
 * Every declared type's fields in one object's properties, none required (a patch's, or a tool's
 * input for a model): where types disagree on a field the variants are given with anyOf; each
 * description says which types have the field and which require it.
 */
export function fieldUnion(reg: SchemaRegistry, kind: Kind): Record<string, Json> {
  const seen = new Map<string, { schemas: Json[]; keys: string[]; types: string[]; requiredBy: string[] }>()
  for (const [type, s] of typesOf(reg, kind)) {
    for (const f of fieldsOf(s)) {
      const schema = fieldSchema(f, s.env)
      // the same shape under another label or help text is the same field
      const { title: _t, description: _d, ...shape } = schema
      const key = JSON.stringify(shape)
      const e = seen.get(f.field_name) ?? { schemas: [], keys: [], types: [], requiredBy: [] }
      if (!e.keys.includes(key)) e.keys.push(key), e.schemas.push(schema)
      e.types.push(type)
      if (isRequired(f, s.env)) e.requiredBy.push(type)
      seen.set(f.field_name, e)
    }
  }
  const out: Record<string, Json> = {}
  for (const [name, e] of seen) {
    const where = `Types: ${e.types.join(', ')}${e.requiredBy.length ? `; required for ${e.requiredBy.join(', ')}` : ''}.`
    const one: Json = e.schemas.length === 1 ? { ...e.schemas[0]! } : { anyOf: e.schemas }
    const own = typeof one.description === 'string' ? `${one.description} ` : ''
    out[name] = { ...one, description: `${own}${where}` }
  }
  return out
}

/** Per type, its required fields: "river-photos (requires name, river_section, …)". */
export function typesInWords(reg: SchemaRegistry, kind: Kind): string {
  return [...typesOf(reg, kind)]
    .map(([type, s]) => {
      const req = fieldsOf(s).filter((f) => isRequired(f, s.env)).map((f) => f.field_name)
      return `${type}${req.length ? ` (requires ${req.join(', ')})` : ''}`
    })
    .join('; ')
}

/** Per dataset type, the fields with a fixed list of values: the ones worth a facet. */
export function facetFields(reg: SchemaRegistry): string[] {
  const out = new Set<string>()
  for (const s of reg.datasets.values())
    for (const f of s.expanded.dataset_fields) {
      const names = validatorNames(f.validators)
      if (names.includes('scheming_choices') || names.includes('scheming_multiple_choice') || names.includes('boolean_validator')) out.add(f.field_name)
    }
  return [...out]
}
