// Where a transfer reads a catalogue from: a CKAN site's Action API (import-ckan), this project's
// own actions (export), or an export directory (import). The importer (importer.ts) reads every
// source the same way, so what it copies, skips and reports does not depend on where it came from.

export type Dict = Record<string, any>

/** A DataStore table: its fields (without `_id`) and its rows page by page. */
export interface SourceTable {
  fields: Dict[]
  /** The primary key where the source knows it (this project's exports do; CKAN's API does not say). */
  primaryKey?: string[]
  /** Plain indexes, each a list of columns, where the source knows them. */
  indexes?: string[][]
  pages(): AsyncIterable<Dict[]>
}

/** An uploaded file's bytes, as a stream. */
export interface SourceFile {
  body: ReadableStream<Uint8Array>
  contentType?: string
  size?: number
}

export interface TransferSource {
  /** Where it reads from, for the report ("https://demo.ckan.org", "./export"). */
  readonly label: string
  /** What the source says of itself: the CKAN version it speaks, for the report. */
  describe(): Promise<{ ckanVersion?: string }>
  /** Users as user_list gives them (e-mail where the key may read it), no passwords. */
  users(): AsyncIterable<Dict>
  /** organization_show dicts with `users` [{name, capacity}]. */
  organizations(): AsyncIterable<Dict>
  /** group_show dicts with `users` [{name, capacity}]. */
  groups(): AsyncIterable<Dict>
  /** vocabulary_show dicts (name, tags). */
  vocabularies(): AsyncIterable<Dict>
  /** How many datasets datasets() gives, for the progress bar (a guess is fine). */
  datasetCount(): Promise<number>
  /** package_show dicts, private ones and drafts included where the key may read them. */
  datasets(): AsyncIterable<Dict>
  /** resource_view_list of a resource. */
  views(resource: Dict): Promise<Dict[]>
  /** The resource's DataStore table, or null when it has none. */
  table(resource: Dict): Promise<SourceTable | null>
  /** An uploaded resource's file, or null when the source cannot give it (with why). */
  file(resource: Dict): Promise<SourceFile | { missing: string }>
  /**
   * The site's metadata schemas as ckanext-scheming shows them (expanded), by kind; null when the
   * site has none (no scheming).
   */
  schemas(): Promise<SourceSchemas | null>
  /** Activities of a dataset, organization or group, oldest first ([] where not readable). */
  activities(kind: 'package' | 'organization' | 'group', id: string): Promise<Dict[]>
}

export interface SourceSchemas {
  dataset: Dict[]
  organization: Dict[]
  group: Dict[]
}

/** An action call on the source site: the result, or an error with CKAN's error dict. */
export type SourceCall = (name: string, params: Dict) => Promise<any>

export class SourceError extends Error {
  constructor(
    message: string,
    /** CKAN's __type ("Not Found", "Authorization Error"), or the HTTP status. */
    readonly type: string,
  ) {
    super(message)
  }
}

/** The file name an uploaded resource is stored under: its URL's last path segment. */
export function uploadFileName(resource: Dict): string {
  const url = String(resource.url ?? '')
  const last = url.split('?')[0]!.split('#')[0]!.split('/').filter(Boolean).pop() ?? ''
  let name = last
  try {
    name = decodeURIComponent(last)
  } catch {
    /* keep it as it is */
  }
  return name.replace(/[\\/\x00-\x1f]/g, '_') || 'file'
}

/**
 * A schema as scheming_*_schema_show gives it expanded (each field's preset already merged in),
 * made loadable without the presets file: the `preset` names are dropped.
 */
export function standaloneSchema(schema: Dict): Dict {
  const fields = (list: unknown) =>
    Array.isArray(list)
      ? list.map((f: Dict) => {
          const { preset: _, ...rest } = f
          if (Array.isArray(rest.repeating_subfields)) rest.repeating_subfields = fields(rest.repeating_subfields)
          return rest
        })
      : list
  const out: Dict = { ...schema }
  for (const k of ['dataset_fields', 'resource_fields', 'fields']) if (k in out) out[k] = fields(out[k])
  return out
}
