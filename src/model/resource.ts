// Resource rows → CKAN resource dicts.
import type { resources } from '../db/schema'

export type ResourceRow = typeof resources.$inferSelect

/** Keys of a resource that are columns; anything else given on create/update is an extra. */
export const RESOURCE_CORE_KEYS = [
  'id',
  'package_id',
  'url',
  'format',
  'description',
  'name',
  'hash',
  'resource_type',
  'mimetype',
  'mimetype_inner',
  'cache_url',
  'size',
  'created',
  'last_modified',
  'cache_last_updated',
  'metadata_modified',
  'url_type',
  'position',
  'state',
  'datastore_active',
] as const

function outputUrl(row: ResourceRow, siteUrl: string): string {
  const base = siteUrl.replace(/\/+$/, '')
  if (row.url_type === 'upload' && row.url && !/^https?:\/\//i.test(row.url)) {
    return `${base}/dataset/${row.package_id}/resource/${row.id}/download/${row.url}`
  }
  if (row.url_type === 'datastore') return `${base}/datastore/dump/${row.id}`
  // ckan: a non-empty URL without a scheme gets http:// on output
  if (row.url && !/^[a-z][a-z0-9+.-]*:/i.test(row.url)) return `http://${row.url}`
  return row.url
}

export function resourceToDict(row: ResourceRow, siteUrl: string): Record<string, unknown> {
  let extras: Record<string, unknown> = {}
  try {
    extras = JSON.parse(row.extras) as Record<string, unknown>
  } catch {
    extras = {}
  }
  return {
    ...extras,
    cache_last_updated: row.cache_last_updated,
    cache_url: row.cache_url,
    created: row.created,
    datastore_active: row.datastore_active,
    description: row.description,
    format: row.format,
    hash: row.hash,
    id: row.id,
    last_modified: row.last_modified,
    metadata_modified: row.metadata_modified,
    mimetype: row.mimetype,
    mimetype_inner: row.mimetype_inner,
    name: row.name,
    package_id: row.package_id,
    position: row.position,
    resource_type: row.resource_type,
    size: row.size,
    state: row.state,
    url: outputUrl(row, siteUrl),
    url_type: row.url_type,
  }
}
