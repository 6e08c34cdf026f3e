// A resource row from validated input: create defaults, CKAN's update semantics, uploads, format guessing.
import type { ResourceInput } from './package-validate'
import type { ResourceRow } from './resource'
import { guessMimetype, guessResourceMimetype } from './mimetype'
import { canonicalFormat, guessFormat } from './resource-format'

/** ckan: keys cleared when an update omits them; every other column keeps its stored value. */
const CLEARED_WHEN_OMITTED = ['description', 'resource_type', 'mimetype', 'mimetype_inner'] as const

const KEPT_WHEN_OMITTED = [
  'format',
  'hash',
  'name',
  'size',
  'cache_url',
  'created',
  'last_modified',
  'cache_last_updated',
  'url_type',
  'datastore_active',
] as const

/** A file name safe to store: its last path part, ASCII, lower case, no odd characters. */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  let s = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/[^a-z0-9_. -]/g, '')
    .replace(/ /g, '-')
    .replace(/-+/g, '-')
  const dot = s.lastIndexOf('.')
  const ext = dot > 0 ? s.slice(dot) : ''
  const stem = dot > 0 ? s.slice(0, dot) : s
  s = stem.slice(0, Math.max(1, 100 - ext.length)) + ext
  return s || 'file'
}

export interface MergeAt {
  id: string
  packageId: string
  position: number
  now: string
  /** ckan.mimetype_guess: from the URL's or file's extension, from an upload's content, or none. */
  mimetypeGuess?: string
}

/**
 * The row a resource becomes. Without `existing` it is created with CKAN's defaults; with it,
 * given keys replace stored ones, `url`/description/types/mimetypes are cleared when omitted,
 * other columns are kept, and the extras become exactly the extras given.
 */
export function mergeResource(
  existing: ResourceRow | undefined,
  input: ResourceInput,
  at: MergeAt,
): ResourceRow {
  const c = input.core
  const has = (k: string) => k in c
  const row: ResourceRow = existing
    ? { ...existing }
    : {
        id: at.id,
        package_id: at.packageId,
        url: '',
        format: '',
        description: null,
        name: null,
        hash: '',
        resource_type: null,
        mimetype: null,
        mimetype_inner: null,
        cache_url: null,
        size: null,
        created: at.now,
        last_modified: null,
        cache_last_updated: null,
        metadata_modified: at.now,
        url_type: null,
        position: at.position,
        state: 'active',
        datastore_active: false,
        extras: '{}',
      }
  row.url = has('url') ? (c.url as string) : ''
  for (const k of CLEARED_WHEN_OMITTED) row[k] = has(k) ? (c[k] as string | null) : null
  for (const k of KEPT_WHEN_OMITTED) if (has(k)) (row as Record<string, unknown>)[k] = c[k]
  if (existing && has('created') && c.created === null) row.created = existing.created
  // ckan (mimetype_guess = file_ext, the default): without a mimetype key, the given URL's
  // extension decides; other settings guess nothing from the URL
  const guess = at.mimetypeGuess ?? 'file_ext'
  if (!has('mimetype')) row.mimetype = guess === 'file_ext' ? guessResourceMimetype(row.url) : null
  if (input.upload) {
    row.url_type = 'upload'
    row.url = sanitizeFileName(input.upload.name)
    row.size = input.upload.size
    row.last_modified = at.now
    // ckan: else the uploaded file's name does (file_ext), or its content (file_contents)
    if (!has('mimetype'))
      row.mimetype ??=
        guess === 'file_ext' ? guessMimetype(row.url) : guess === 'file_contents' ? (input.upload.sniffed ?? null) : null
  } else if (input.clearUpload && row.url_type === 'upload') {
    row.url_type = ''
  }
  // ckan: an uploaded resource stores only the file name, even when given its download URL
  if (row.url && row.url_type === 'upload') row.url = row.url.split('/').pop()!
  // ckan: the format is guessed from the URL only for new resources given without an id
  if (!row.format && !existing && !input.hasId && row.url) row.format = guessFormat(row.url) ?? ''
  row.format = row.format ? canonicalFormat(row.format) : ''
  if (row.created === null) row.created = at.now
  row.extras = JSON.stringify(input.extras)
  row.package_id = at.packageId
  row.position = at.position
  row.state = 'active'
  row.metadata_modified =
    existing && !resourceChanged(existing, row) ? existing.metadata_modified : at.now
  return row
}

function resourceChanged(a: ResourceRow, b: ResourceRow): boolean {
  for (const k of Object.keys(b) as (keyof ResourceRow)[]) {
    if (k === 'metadata_modified' || k === 'position') continue
    if (k === 'extras') {
      if (a.extras !== b.extras && JSON.stringify(JSON.parse(a.extras)) !== b.extras) return true
    } else if (a[k] !== b[k]) return true
  }
  return false
}
