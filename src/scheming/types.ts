// The shapes of ckanext-scheming's schema and preset files, as a site writes them.

/** One field of a schema (dataset, resource, organization or group), presets not yet merged. */
export interface SchemaField {
  field_name: string
  label?: unknown
  preset?: string
  required?: boolean
  validators?: string
  output_validators?: string
  create_validators?: string
  choices?: { value: string; label?: unknown }[]
  choices_helper?: string
  help_text?: unknown
  form_placeholder?: unknown
  display_property?: string
  repeating_subfields?: SchemaField[]
  repeating_label?: unknown
  [key: string]: unknown
}

/** A dataset schema (`scheming.dataset_schemas`). */
export interface DatasetSchema {
  scheming_version?: number
  dataset_type: string
  about?: string
  about_url?: string
  draft_fields_required?: boolean
  before_validators?: string
  after_validators?: string
  dataset_fields: SchemaField[]
  resource_fields: SchemaField[]
  [key: string]: unknown
}

/** An organization or group schema (`scheming.organization_schemas`, `scheming.group_schemas`). */
export interface GroupSchema {
  scheming_version?: number
  organization_type?: string
  group_type?: string
  about?: string
  about_url?: string
  fields: SchemaField[]
  [key: string]: unknown
}

/** A presets file (`scheming.presets`). */
export interface PresetsFile {
  scheming_presets_version?: number
  about?: string
  about_url?: string
  presets: { preset_name: string; values: Record<string, unknown> }[]
}

/** A schema file's text and where it came from (for messages). */
export interface SchemaSource {
  name: string
  text: string
}
