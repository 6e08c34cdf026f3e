// Dataset and resource input checks with CKAN's messages; database-dependent checks live in package-write.ts.
import { StagedUpload } from '../storage/staged-upload'
import {
  assertListsOfDicts,
  checkName,
  fail,
  FieldFail,
  isEmail,
  isMissing,
  MISSING,
  toBool,
  toInt,
} from '../validation/fields'
import { canonicalFormat } from './resource-format'
import { RESOURCE_CORE_KEYS } from './resource'

export type Errors = Record<string, unknown>

/** ckan: unicode_safe: strings as they are, anything else as text. */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'number') return String(v)
  return JSON.stringify(v)
}

/** A text field: undefined when absent or null (CKAN ignores both), else text. */
const optText = (v: unknown) => (v === undefined || v === null ? undefined : asText(v))

const RESOURCE_ID_RE = /^[0-9a-zA-Z _-]*$/
const TAG_RE = /^[\p{L}\p{M}\p{N}\p{Pc} \-.]*$/u

/** ckan: YYYY-MM-DD[Thh:mm[:ss[.ffffff]]] with any non-digit separators, no timezone. */
export function parseIsoDate(v: unknown): string | null | FieldFail {
  if (v === '') return null
  const bad = fail('Date format incorrect')
  if (typeof v !== 'string') return bad
  const parts: string[] = []
  let rest = v
  while (parts.length < 5) {
    const m = /[^\d]+/.exec(rest)
    if (!m) break
    parts.push(rest.slice(0, m.index))
    rest = rest.slice(m.index + m[0].length)
  }
  parts.push(rest)
  if (parts.length < 3) return bad
  let micro = 0
  if (parts.length === 6) {
    const m = /^(\d{2})(?:\.(\d{6}))?$/.exec(parts[5]!)
    if (!m) return bad
    parts[5] = m[1]!
    micro = m[2] ? Number(m[2]) : 0
  }
  if (parts.some((p) => !/^\d+$/.test(p))) return bad
  const [y, mo, d, h = 0, mi = 0, s = 0] = parts.map(Number) as number[]
  const dim = new Date(Date.UTC(y!, mo!, 0)).getUTCDate()
  if (y! < 1 || y! > 9999 || mo! < 1 || mo! > 12 || d! < 1 || d! > dim) return bad
  if (h > 23 || mi > 59 || s > 59) return bad
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  const base = `${p(y!, 4)}-${p(mo!)}-${p(d!)}T${p(h)}:${p(mi)}:${p(s)}`
  return micro ? `${base}.${p(micro, 6)}` : base // ckan: isoformat() drops zero microseconds
}

/** An uploaded file from a multipart request, already stored under a provisional key. */
export type UploadedFile = StagedUpload

export const isUpload = (v: unknown): v is UploadedFile => v instanceof StagedUpload

/** Resource keys that are neither columns nor extras. */
const RESOURCE_IGNORED = new Set([
  'extras',
  'revision_timestamp',
  'revision_id',
  'tracking_summary',
  'upload',
  'clear_upload',
  '__extras',
])
const CORE = new Set<string>(RESOURCE_CORE_KEYS)

/** Validated resource input: the core keys that were given, extras, and an upload. */
export interface ResourceInput {
  /** Validated core values; a key is present only when it was given. */
  core: Record<string, unknown>
  extras: Record<string, unknown>
  upload?: UploadedFile
  clearUpload: boolean
  /** An id was given (no format guessing then). */
  hasId: boolean
}

const TEXT_OR_NULL = [
  'description',
  'name',
  'resource_type',
  'mimetype',
  'mimetype_inner',
  'cache_url',
  'url_type',
]
const DATES = ['created', 'last_modified', 'cache_last_updated']

/** Checks one resource dict. `errors` gets CKAN's per-field messages. */
export function checkResource(
  raw: Record<string, unknown>,
  opts: { uuidIds?: boolean } = {},
): {
  res: ResourceInput
  errors: Errors
} {
  const errors: Errors = {}
  const core: Record<string, unknown> = {}
  const extras: Record<string, unknown> = {}
  const put = (k: string, r: unknown) => {
    if (r instanceof FieldFail) errors[k] = r.msgs
    else if (r !== undefined) core[k] = r
  }
  if (!isMissing(raw.id)) {
    const id = asText(raw.id)
    // ckan 2.11: a new id must be a UUID instead, checked where it is known to be new
    if (opts.uuidIds) core.id = id
    else if (!RESOURCE_ID_RE.test(id)) errors.id = ['Invalid characters in resource id']
    else if (id.length < 7 || id.length > 100) errors.id = ['Invalid length for resource id']
    else core.id = id
  }
  if (raw.url !== undefined) core.url = raw.url === null ? '' : asText(raw.url).trim()
  if (raw.format !== undefined)
    core.format = raw.format === null ? '' : canonicalFormat(asText(raw.format))
  if (raw.hash !== undefined) core.hash = raw.hash === null ? '' : asText(raw.hash)
  for (const k of TEXT_OR_NULL) put(k, optText(raw[k]))
  // ckan: a mimetype key given as null is kept null (no guess from the URL)
  if (raw.mimetype === null) core.mimetype = null
  if (raw.size !== undefined && raw.size !== null)
    put('size', isMissing(raw.size) ? null : toInt(raw.size))
  for (const k of DATES) if (raw[k] !== undefined && raw[k] !== null) put(k, parseIsoDate(raw[k]))
  if (raw.datastore_active !== undefined && raw.datastore_active !== null)
    core.datastore_active = toBool(raw.datastore_active)
  for (const [k, v] of Object.entries(raw)) {
    if (CORE.has(k) || RESOURCE_IGNORED.has(k)) continue
    // ckan: a list of scalars is kept as an extra (stored as JSON); a list of objects is not
    // (CKAN's flattening splits it into sub-keys the resource schema has no place for)
    if (v === undefined || (Array.isArray(v) && isObjectList(v))) continue
    extras[k] = v
  }
  const upload = isUpload(raw.upload) ? raw.upload : undefined
  return {
    res: {
      core,
      extras,
      upload,
      clearUpload: toBool(raw.clear_upload),
      hasId: core.id !== undefined,
    },
    errors,
  }
}

export interface TagInput {
  name: string
  vocabulary_id: string | null
}

function checkTagName(name: string): string[] {
  const msgs: string[] = []
  if (name.length < 2) msgs.push(`Tag "${name}" length is less than minimum 2`)
  if (name.length > 100) msgs.push(`Tag "${name}" length is more than maximum 100`)
  if (!TAG_RE.test(name)) msgs.push(`Tag "${name}" must be alphanumeric characters or symbols: -_.`)
  return msgs
}

export interface RelationshipInput {
  other: string
  type: string
  comment: string
}

export const RELATIONSHIP_TYPES: [string, string][] = [
  ['depends_on', 'dependency_of'],
  ['derives_from', 'has_derivation'],
  ['links_to', 'linked_from'],
  ['child_of', 'parent_of'],
]
const ALL_REL_TYPES = RELATIONSHIP_TYPES.flat()

/** Validated dataset input. Optional members are absent when the key was not given. */
export interface PackageInput {
  id?: string
  name?: string
  title?: string | null
  text: Record<string, string | null>
  owner_org?: string | null
  private?: boolean
  state?: string
  type?: string
  tags?: TagInput[]
  extras?: { key: string; value: string }[]
  resources?: ResourceInput[]
  groups?: string[]
  relationships_as_subject?: RelationshipInput[]
  relationships_as_object?: RelationshipInput[]
}

/** Text columns that package_update sets to null when omitted. */
export const PACKAGE_TEXT = [
  'author',
  'author_email',
  'maintainer',
  'maintainer_email',
  'license_id',
  'notes',
  'url',
  'version',
] as const

// ckan: extras may not reuse a top-level key of the dataset schema (a scheming field of one of
// these names is a core field, not an extra)
export const ROOT_KEYS = new Set([
  'id',
  'name',
  'title',
  'author',
  'author_email',
  'maintainer',
  'maintainer_email',
  'license_id',
  'notes',
  'url',
  'version',
  'state',
  'type',
  'owner_org',
  'private',
  'resources',
  'tags',
  'tag_string',
  'extras',
  'groups',
  'relationships_as_object',
  'relationships_as_subject',
  'plugin_data',
  'save',
  'return_to',
  '__extras',
  '__junk',
  'metadata_created',
  'metadata_modified',
  'creator_user_id',
])

const LIST_KEYS = [
  'resources',
  'tags',
  'extras',
  'groups',
  'relationships_as_subject',
  'relationships_as_object',
]

/**
 * Checks a dataset dict without the database. `mode` decides required keys and what omission
 * means; `sysadmin` lets `id` and `state` through on create. Throws a 400 Integrity Error when a
 * list-of-dicts key holds something else.
 */
export function checkPackage(
  raw: Record<string, unknown>,
  mode: 'create' | 'update',
  sysadmin: boolean,
  rules: IdRules = {},
): { input: PackageInput; errors: Errors } {
  assertListsOfDicts(raw, LIST_KEYS)
  const errors: Errors = {}
  const input: PackageInput = { text: {} }
  const create = mode === 'create'

  if (create && !isMissing(raw.id) && raw.id !== undefined) {
    if (!sysadmin) errors.id = ['The input field id was not expected.']
    else input.id = asText(raw.id)
  }
  if (create || (raw.name !== undefined && raw.name !== null)) {
    const n =
      create || raw.name !== '' ? checkName(raw.name) : fail('Must be at least 2 characters long')
    if (n instanceof FieldFail) errors.name = n.msgs
    else input.name = n
  }
  const title = optText(raw.title)
  if (create) input.title = title || (input.name ?? null)
  else input.title = title ?? null
  for (const k of PACKAGE_TEXT) {
    let v = optText(raw[k]) ?? null
    if (v !== null && (k === 'author_email' || k === 'maintainer_email')) {
      v = v.trim()
      if (v && !isEmail(v)) errors[k] = [`Email ${v} is not a valid format`]
    }
    if (k === 'version' && v !== null && v.length > 100)
      errors.version = ['Version must be a maximum of 100 characters long']
    input.text[k] = v
  }
  if (raw.owner_org !== undefined)
    input.owner_org = raw.owner_org === null ? null : asText(raw.owner_org)
  if (raw.private !== undefined && raw.private !== null) input.private = toBool(raw.private)
  // ckan: state is honoured for sysadmins on create and for permitted editors on update
  if (!isMissing(raw.state) && (!create || sysadmin)) input.state = asText(raw.state)
  if (create) input.type = optText(raw.type) || 'dataset'

  checkTags(raw, input, errors)
  checkExtras(raw, input, errors, rules.extraId)
  if (Array.isArray(raw.resources)) {
    const list = raw.resources as Record<string, unknown>[]
    const errs = list.map((r) => checkResource(r, { uuidIds: rules.uuidResourceIds }))
    input.resources = errs.map((e) => e.res)
    if (errs.some((e) => Object.keys(e.errors).length)) errors.resources = errs.map((e) => e.errors)
  } else if (raw.resources === '' || raw.resources === null) {
    input.resources = []
  }
  if (Array.isArray(raw.groups)) {
    input.groups = (raw.groups as Record<string, unknown>[])
      .map((g) => g.id || g.name)
      .filter((ref) => !isMissing(ref))
      .map(asText)
  }
  for (const key of ['relationships_as_subject', 'relationships_as_object'] as const) {
    if (!Array.isArray(raw[key])) continue
    const otherKey = key === 'relationships_as_subject' ? 'object' : 'subject'
    const list = raw[key] as Record<string, unknown>[]
    const errs: Errors[] = []
    input[key] = list.map((r) => {
      const e: Errors = {}
      const other = r[otherKey] ?? r[`${otherKey}_package_id`]
      if (isMissing(other)) e[otherKey] = [MISSING]
      const type = isMissing(r.type) ? '' : asText(r.type)
      if (!type) e.type = [MISSING]
      else if (!ALL_REL_TYPES.includes(type))
        e.type = [`Value must be one of [${ALL_REL_TYPES.map((t) => `'${t}'`).join(', ')}]`]
      errs.push(e)
      return {
        other: isMissing(other) ? '' : asText(other),
        type,
        comment: optText(r.comment) ?? '',
      }
    })
    if (errs.some((e) => Object.keys(e).length)) errors[key] = errs
  }
  return { input, errors }
}

function checkTags(raw: Record<string, unknown>, input: PackageInput, errors: Errors) {
  const tags: TagInput[] = []
  const tagErrors: string[] = []
  if (Array.isArray(raw.tags)) {
    for (const t of raw.tags as Record<string, unknown>[]) {
      const vocab = isMissing(t.vocabulary_id) ? null : asText(t.vocabulary_id)
      if (isMissing(t.name)) {
        tagErrors.push(MISSING)
        continue
      }
      const name = asText(t.name)
      const msgs = checkTagName(name)
      if (msgs.length) tagErrors.push(msgs.join(', '))
      else tags.push({ name, vocabulary_id: vocab })
    }
  }
  if (raw.tag_string !== undefined && raw.tag_string !== null) {
    const list = Array.isArray(raw.tag_string)
      ? raw.tag_string.map(asText)
      : asText(raw.tag_string)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
    // ckan: tag_string reports only its first bad tag
    const bad = list.map(checkTagName).find((m) => m.length)
    if (bad) errors.tag_string = [bad[0]]
    for (const name of list) tags.push({ name, vocabulary_id: null })
  }
  if (tagErrors.length) errors.tags = tagErrors
  if (Array.isArray(raw.tags) || raw.tag_string !== undefined || raw.tags === '') input.tags = tags
}

/** The id rules of the site's CKAN version (create-id.ts); none: 2.9's. */
export interface IdRules {
  /** Why an extra may not carry this id; absent: an extra's id is ignored. */
  extraId?: (id: string) => string | undefined
  /** Resource ids are checked as UUIDs where they are new (not their characters and length). */
  uuidResourceIds?: boolean
}

function checkExtras(
  raw: Record<string, unknown>,
  input: PackageInput,
  errors: Errors,
  extraId?: (id: string) => string | undefined,
) {
  if (raw.extras === '') input.extras = []
  if (!Array.isArray(raw.extras)) return
  const list = raw.extras as Record<string, unknown>[]
  const out: { key: string; value: string }[] = []
  const errs: Errors[] = []
  const keys: string[] = []
  for (const e of list) {
    const err: Errors = {}
    const idError = extraId && !isMissing(e.id) ? extraId(asText(e.id)) : undefined
    if (idError) err.id = [idError]
    if (isMissing(e.key)) err.key = [MISSING]
    else if (ROOT_KEYS.has(asText(e.key))) err.key = ['There is a schema field with the same name']
    if (e.value === undefined) err.value = [MISSING]
    errs.push(err)
    if (Object.keys(err).length) continue
    if (toBool(e.deleted)) continue
    const key = asText(e.key)
    keys.push(key)
    // ckan: an extra whose value is null is dropped
    if (e.value !== null) out.push({ key, value: asText(e.value) })
  }
  if (errs.some((e) => Object.keys(e).length)) errors.extras = errs
  // ckan: after removing one of each key, the first key left over is reported
  const rest = [...keys]
  for (const k of new Set(keys)) rest.splice(rest.indexOf(k), 1)
  if (rest.length) errors.extras_validation = [`Duplicate key "${rest[0]}"`]
  input.extras = out
}

/** A list whose first item is an object: what CKAN's flatten_dict takes apart. */
const isObjectList = (v: unknown[]) =>
  v.length > 0 && typeof v[0] === 'object' && v[0] !== null && !Array.isArray(v[0])
