// package_search result shaping: `fl` dicts and `search_facets` with display names.
import { inArray } from 'drizzle-orm'
import type { ActionContext } from '../context'
import { groups, packages } from '../db/schema'
import { LICENSES } from './license'

type Dict = Record<string, unknown>
const list = (v: unknown): Dict[] => (Array.isArray(v) ? (v as Dict[]) : [])

const zulu = (v: unknown) => (typeof v === 'string' && v && !v.endsWith('Z') ? v + 'Z' : v)

/**
 * The stored index fields of a dataset, as `fl` returns them (search.md §6.2). The serialised
 * dict fields are made only when asked for.
 */
function storedFields(d: Dict, siteId: string, withDataDict: boolean): Dict {
  const org = d.organization as Dict | null | undefined
  const resources = list(d.resources)
  const out: Dict = {
    id: d.id,
    name: d.name,
    title: d.title,
    notes: d.notes,
    author: d.author,
    author_email: d.author_email,
    maintainer: d.maintainer,
    maintainer_email: d.maintainer_email,
    url: d.url,
    version: d.version,
    license_id: d.license_id,
    tags: list(d.tags).filter((t) => !t.vocabulary_id).map((t) => t.name),
    groups: list(d.groups).map((g) => g.name),
    organization: org ? org.name : null,
    capacity: d.private ? 'private' : 'public',
    state: d.state,
    dataset_type: d.type,
    res_name: resources.map((r) => r.name ?? ''),
    res_description: resources.map((r) => r.description ?? ''),
    res_format: resources.map((r) => r.format ?? ''),
    res_url: resources.map((r) => r.url ?? ''),
    res_type: resources.map((r) => r.resource_type ?? null),
    metadata_created: zulu(d.metadata_created),
    metadata_modified: zulu(d.metadata_modified),
    site_id: siteId,
    entity_type: 'package',
    index_id: d.id,
  }
  if (withDataDict) out.data_dict = out.validated_data_dict = JSON.stringify(d)
  for (const e of list(d.extras)) out[`extras_${String(e.key)}`] = e.value
  return out
}

/** One `fl` result: only the requested stored fields; `extras_<k>` come back as `<k>`. */
export function flDict(d: Dict, fields: string[], siteId: string): Dict {
  const stored = storedFields(d, siteId, fields.includes('data_dict') || fields.includes('validated_data_dict'))
  const out: Dict = {}
  for (const f of fields) {
    if (!(f in stored) || stored[f] === undefined) continue
    out[f.startsWith('extras_') ? f.slice('extras_'.length) : f] = stored[f]
  }
  return out
}

/** `fl` fields the dataset's own row holds (no resources, tags, groups, extras or dict). */
const ROW_FIELDS = new Set([
  'id', 'name', 'title', 'notes', 'author', 'author_email', 'maintainer', 'maintainer_email', 'url',
  'version', 'license_id', 'state', 'dataset_type', 'capacity', 'metadata_created',
  'metadata_modified', 'site_id', 'entity_type', 'index_id',
])

/**
 * `fl` results for these datasets read from their rows alone, when every field asked for is one
 * a row holds (harvesters paging `fl=id,name,metadata_modified`): one query per 500 instead of
 * assembling whole dicts to cut them down. null when some field needs the dict. The values are
 * the dict's (package-dict.ts takes these fields from the row, the title trimmed).
 */
export async function flFromRows(ctx: ActionContext, ids: string[], fields: string[], siteId: string): Promise<Dict[] | null> {
  if (!fields.every((f) => ROW_FIELDS.has(f))) return null
  const rows = new Map<string, typeof packages.$inferSelect>()
  for (let i = 0; i < ids.length; i += 500) {
    for (const r of await ctx.db.select().from(packages).where(inArray(packages.id, ids.slice(i, i + 500)))) rows.set(r.id, r)
  }
  const out: Dict[] = []
  for (const id of ids) {
    const r = rows.get(id)
    if (!r) continue // gone since the index answered, as a missing dict is
    const d: Dict = { ...r, title: r.title === null ? null : r.title.trim() }
    out.push(flDict(d, fields, siteId))
  }
  return out
}

/** `fl` as a list of names: a list, or a comma/space separated string. */
export function flFields(v: unknown): string[] | null {
  if (v === undefined || v === null || v === '') return null
  const items = Array.isArray(v) ? v.map(String) : String(v).split(/[\s,]+/)
  const out = items.map((s) => s.trim()).filter(Boolean)
  return out.length ? out : null
}

export interface FacetItem {
  count: number
  display_name: string
  name: string
}

/** `search_facets`: each facet's items with display names, ordered by display name descending. */
export async function searchFacets(
  ctx: ActionContext,
  facets: Record<string, [string, number][]>,
): Promise<Record<string, { title: string; items: FacetItem[] }>> {
  const groupNames = [
    ...new Set([...(facets.groups ?? []), ...(facets.organization ?? [])].map(([v]) => v)),
  ]
  const titles = new Map<string, string>()
  if (groupNames.length) {
    const rows = await ctx.db
      .select({ name: groups.name, title: groups.title })
      .from(groups)
      .where(inArray(groups.name, groupNames))
    for (const r of rows) if (r.title && r.title.trim()) titles.set(r.name, r.title)
  }
  const licenses = new Map(LICENSES.map((l) => [l.id, l.title]))
  const out: Record<string, { title: string; items: FacetItem[] }> = {}
  for (const [field, pairs] of Object.entries(facets)) {
    const display = (v: string) =>
      field === 'groups' || field === 'organization'
        ? (titles.get(v) ?? v)
        : field === 'license_id'
          ? (licenses.get(v) ?? v)
          : v
    const items = pairs.map(([name, count]) => ({ count, display_name: display(name), name }))
    items.sort((a, b) => (a.display_name < b.display_name ? 1 : a.display_name > b.display_name ? -1 : 0))
    out[field] = { title: field, items }
  }
  return out
}
