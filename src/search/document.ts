// The search document of one dataset: what package_search can match, sort and facet on (search.md §4).
import { analyzeGenericIndex, analyzeIndex, exactValue } from './analysis'
import { isDateField, storedDateMillis } from './date-math'
import { readSpatial } from '../lib/geo/geojson'

/**
 * One dataset as the index sees it. Text fields hold analysed terms (a bag: phrases are checked
 * against the dataset itself); `exact` holds whole values (multi-valued fields repeat the key's
 * list); `numbers` holds dates (epoch ms) and counts for ranges and sorting.
 */
export interface IndexDoc {
  id: string
  /** MiniSearch fields: see TEXT_FIELDS. */
  text: Record<TextField, string[]>
  exact: Record<string, string[]>
  numbers: Record<string, number>
  /**
   * Permission labels (search.md §2): `public`, `member-<org id>`, `creator-<user id>`,
   * `collaborator-<dataset id>`.
   */
  labels: string[]
  /** The `spatial` field's geometry, packed (src/lib/geo); absent when it has none or it is invalid. */
  geometry?: Float64Array
}

/**
 * The analysed fields kept in MiniSearch, kept few because every posting costs memory: `title` is
 * scored on its own; `all` holds the rest of the catch-all `text` field (notes, name, tags, groups,
 * organization, resources, author, maintainer, urls, extras); `kv` holds fielded terms of the small
 * analysed fields (extras, author, maintainer, e-mails, relationships) as `<field>\u0001<term>`,
 * so `extras_<key>:x` needs no field declared in advance. Fielded queries on the large fields
 * (notes, resource names and descriptions, urls) take their candidates from `all` and are checked
 * against the dataset itself.
 */
export const TEXT_FIELDS = ['title', 'all', 'kv'] as const
export type TextField = (typeof TEXT_FIELDS)[number]
/** The `text` catch-all is the union of these MiniSearch fields. */
export const CATCH_ALL: TextField[] = ['title', 'all']
export const KV_SEP = '\u0001'

/** Analysed fields with their own terms under `kv`. */
const GENERIC_KV = new Set(['author', 'maintainer', 'author_email', 'maintainer_email'])
/** Analysed fields matched through `all` and a check against the dataset. */
const CHECKED = new Map([
  ['notes', false],
  ['urls', false],
  ['res_name', true],
  ['res_description', true],
])
const RELATION_FIELDS = [
  'depends_on',
  'dependency_of',
  'derives_from',
  'has_derivation',
  'links_to',
  'linked_from',
  'child_of',
  'parent_of',
]

/** How a field is searched. */
export type FieldKind =
  | 'title'
  | 'text'
  | 'kv-english'
  | 'kv-generic'
  | 'checked-english'
  | 'checked-generic'
  | 'date'
  | 'number'
  | 'ngram'
  | 'exact'

const NUMBER_FIELDS = new Set(['num_resources', 'num_tags', 'views_total', 'views_recent'])

export function fieldKind(field: string): FieldKind {
  if (field === 'title') return 'title'
  if (field === 'text') return 'text'
  const checked = CHECKED.get(field)
  if (checked !== undefined) return checked ? 'checked-generic' : 'checked-english'
  if (field === 'name_ngram' || field === 'title_ngram') return 'ngram'
  if (GENERIC_KV.has(field)) return 'kv-generic'
  if (field.startsWith('extras_') || field.startsWith('res_extras_')) return 'kv-english'
  if (RELATION_FIELDS.includes(field)) return 'kv-english'
  if (isDateField(field)) return 'date'
  if (NUMBER_FIELDS.has(field)) return 'number'
  return 'exact'
}

export interface DocumentOptions {
  siteId: string
  /** Names of the vocabularies, by id (vocabulary tags go to `vocab_<name>`). */
  vocabularyName: (id: string) => string | undefined
  /** `service.extra_resource_fields`: resource keys indexed as `res_extras_<key>`. */
  extraResourceFields: string[]
  /** A dataset type's schema fields whose words `q` finds (scheming text fields); none by default. */
  textFields?: (type: string) => readonly string[] | undefined
}

type Dict = Record<string, unknown>

const str = (v: unknown) => exactValue(v) ?? ''
const list = (v: unknown): Dict[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Dict[]) : [])
/** Extras keys are reduced to the characters Solr field names may hold. */
const reduceKey = (key: string) => key.replace(/[^A-Za-z0-9_-]/g, '')

// Top-level dict keys that are not indexed as plain exact fields of the same name.
const NOT_PLAIN = new Set([
  'resources',
  'tags',
  'groups',
  'organization',
  'extras',
  'relationships_as_subject',
  'relationships_as_object',
  'title',
  'notes',
  'author',
  'maintainer',
  'author_email',
  'maintainer_email',
  'metadata_created',
  'metadata_modified',
  'num_resources',
  'num_tags',
  'private',
  'isopen',
  'tracking_summary',
  // ckanext-spatial keeps the GeoJSON out of the text and fields: it is indexed as a geometry
  'spatial',
])

/** Builds the search document of a package_show dict. */
export function indexDocument(d: Dict, opts: DocumentOptions): IndexDoc {
  const text: Record<TextField, string[]> = { title: [], all: [], kv: [] }
  const exact: Record<string, string[]> = {}
  const numbers: Record<string, number> = {}
  const put = (field: string, value: unknown) => {
    const v = exactValue(value)
    if (v === null) return
    ;(exact[field] ??= []).push(v)
  }
  const body = (value: string) => {
    if (value) for (const t of analyzeIndex(value)) text.all.push(t)
  }
  const kv = (field: string, value: string, generic = false) => {
    for (const t of generic ? analyzeGenericIndex(value) : analyzeIndex(value)) text.kv.push(field + KV_SEP + t)
  }
  const date = (field: string, value: unknown) => {
    const ms = typeof value === 'string' ? storedDateMillis(value) : null
    if (ms !== null) numbers[field] = ms
  }

  const id = str(d.id)
  const name = str(d.name)
  const title = str(d.title).replace(/^\s+/, '')
  put('id', id)
  put('index_id', id)
  put('name', name)
  body(name)
  put('title_string', title)
  text.title = analyzeIndex(title)
  body(str(d.notes))
  for (const f of ['author', 'maintainer']) {
    const v = str(d[f])
    kv(f, v, true)
    body(v)
  }
  for (const f of ['author_email', 'maintainer_email']) kv(f, str(d[f]), true)
  put('site_id', opts.siteId)
  put('entity_type', 'package')
  put('dataset_type', d.type)
  put('capacity', d.private === true ? 'private' : 'public')
  put('private', d.private === true ? 'true' : 'false')
  put('isopen', d.isopen === true ? 'true' : 'false')
  for (const f of ['metadata_created', 'metadata_modified']) date(f, d[f])
  numbers.num_resources = Number(d.num_resources ?? list(d.resources).length) || 0
  numbers.num_tags = Number(d.num_tags ?? list(d.tags).length) || 0
  numbers.views_total = 0
  numbers.views_recent = 0

  // Plain keys (custom schema fields too) are exact fields of the same name; a list of plain
  // values (a schema's multiple choice) is a multi-valued one.
  for (const [k, v] of Object.entries(d)) {
    if (NOT_PLAIN.has(k) || k in exact) continue
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x === 'string' || typeof x === 'number')) for (const x of v) put(k, x)
      continue
    }
    if (v === null || v === undefined || typeof v === 'object') continue
    if (isDateField(k)) date(k, v)
    else put(k, v)
  }
  for (const k of opts.textFields?.(str(d.type)) ?? []) {
    const v = d[k]
    if (typeof v === 'string') body(v)
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      // a multilingual field (ckanext-fluent): its text in every language
      for (const x of Object.values(v)) if (typeof x === 'string') body(x)
    } else if (Array.isArray(v))
      for (const item of v) {
        if (typeof item === 'string') body(item)
        else if (item && typeof item === 'object') for (const x of Object.values(item)) if (typeof x === 'string') body(x)
      }
  }

  for (const t of list(d.tags)) {
    const tagName = str(t.name)
    const vocab = t.vocabulary_id ? opts.vocabularyName(String(t.vocabulary_id)) : undefined
    if (t.vocabulary_id && !vocab) continue
    put(vocab ? `vocab_${vocab}` : 'tags', tagName)
    body(tagName)
  }
  for (const g of list(d.groups)) {
    put('groups', g.name)
    body(str(g.name))
  }
  const org = d.organization as Dict | null | undefined
  if (org && typeof org === 'object' && org.name) {
    put('organization', org.name)
    body(str(org.name))
  }

  const urls: string[] = []
  if (d.url) urls.push(str(d.url))
  for (const r of list(d.resources)) {
    const rName = str(r.name)
    const rDesc = str(r.description)
    body(rName)
    body(rDesc)
    put('res_format', r.format ?? '')
    put('res_url', r.url ?? '')
    put('res_type', r.resource_type)
    if (r.url) urls.push(str(r.url))
    for (const key of opts.extraResourceFields) {
      const v = exactValue(r[key])
      if (v === null) continue
      kv(`res_extras_${key}`, v)
      body(v)
    }
  }
  for (const u of urls) body(u)

  let spatial: unknown = d.spatial
  for (const e of list(d.extras)) {
    if (e.key === 'spatial') {
      spatial ||= e.value
      continue
    }
    const key = reduceKey(str(e.key))
    if (!key) continue
    const value = str(e.value)
    kv(`extras_${key}`, value)
    body(value)
    if (isDateField(key)) date(key, value)
    else if (!(key in exact) && !(key in numbers) && !NOT_PLAIN.has(key)) put(key, value)
  }

  for (const rel of [...list(d.relationships_as_subject), ...list(d.relationships_as_object)]) {
    const type = str(rel.type)
    if (!RELATION_FIELDS.includes(type)) continue
    const other = rel.subject_package_id === id ? rel.object_package_id : rel.subject_package_id
    kv(type, str(other))
  }

  const state = str(d.state) || 'active'
  // Collaborators of a dataset carry its collaborator-<id> label (when the feature is on).
  const labels =
    state === 'active' && d.private !== true
      ? ['public']
      : d.owner_org
        ? [`member-${str(d.owner_org)}`, `collaborator-${id}`]
        : [`creator-${str(d.creator_user_id)}`, `collaborator-${id}`]
  const geo = spatial ? readSpatial(spatial) : null
  return { id, text, exact, numbers, labels, ...(geo?.ok && geo.packed.length ? { geometry: geo.packed } : {}) }
}

/** The text to check a phrase against, for a field the phrase names (null: not a text field). */
export function phraseSources(d: Dict, field: string, opts: DocumentOptions): { text: string; generic: boolean }[] {
  const doc: { text: string; generic: boolean }[] = []
  const add = (v: unknown, generic = false) => {
    const s = exactValue(v)
    if (s) doc.push({ text: s, generic })
  }
  const all = field === 'text'
  if (all || field === 'title') add(d.title)
  if (all || field === 'notes') add(d.notes)
  if (all || field === 'author') add(d.author, !all)
  if (all || field === 'maintainer') add(d.maintainer, !all)
  if (field === 'author_email') add(d.author_email, true)
  if (field === 'maintainer_email') add(d.maintainer_email, true)
  if (all) {
    add(d.name)
    for (const t of list(d.tags)) add(t.name)
    for (const g of list(d.groups)) add(g.name)
    const org = d.organization as Dict | null
    if (org) add(org.name)
  }
  for (const r of list(d.resources)) {
    if (all || field === 'res_name') add(r.name, !all)
    if (all || field === 'res_description') add(r.description, !all)
    if (all || field === 'urls') add(r.url)
    for (const key of opts.extraResourceFields) if (all || field === `res_extras_${key}`) add(r[key])
  }
  if (all || field === 'urls') add(d.url)
  for (const e of list(d.extras)) {
    if (e.key === 'spatial') continue // not in the text index either
    if (all || field === `extras_${reduceKey(str(e.key))}`) add(e.value)
  }
  return doc
}
