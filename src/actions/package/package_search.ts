// package_search: Solr-style q/fq/sort/facets over this process's search index.
import { z } from 'zod'
import { defineAction } from '../action'
import { SearchError, SearchQueryError, ValidationError } from '../../errors'
import { ckanBool, naturalNumber, optString, stringList } from '../../validation/fields'
import { groupsWithPermission } from '../../auth/permissions'
import { collaborationIds } from '../../auth/collaborator'
import { packageDicts } from '../../model/package'
import { fromBase64Url, toBase64Url } from '../../lib/base64url'
import { flDict, flFields, flFromRows, searchFacets } from '../../model/search-result'
import { pyRepr } from '../../lib/py-repr'
import { SearchTimeout } from '../../search/budget'
import { hasLocalParams, localParamsMessage, parseFilter, parseQ, QueryParseError, queryTooBig } from '../../search/query'
import { effectiveSort, facetFieldParam, facetLimitParam, facetMincountParam, parseSort, SortParseError } from '../../search/sort'
import type { ActionContext } from '../../context'
import { parseBbox } from '../../lib/geo/box'

const KNOWN = new Set([
  'q',
  'fq',
  'fq_list',
  'sort',
  'rows',
  'start',
  'cursor',
  'facet',
  'facet.field',
  'facet.limit',
  'facet.mincount',
  'include_private',
  'include_drafts',
  'include_deleted',
  'use_default_schema',
  'fl',
  'qf',
  'bf',
  'boost',
  'tie',
  'defType',
  'mm',
  'wt',
  'df',
  'q.op',
  'extras',
])

const anyValue = z.unknown().optional()

/** Refuses a `q` / `fq` past the size a query may have (search/query.ts). */
function sizeCheck<T extends string | string[] | null | undefined>(v: T, ctx: z.RefinementCtx): T {
  const texts: string[] = typeof v === 'string' ? [v] : (v ?? [])
  const big = texts.map(queryTooBig).find(Boolean)
  if (big) ctx.addIssue({ code: 'custom', message: big })
  return v
}
const queryText = optString.transform(sizeCheck)
const queryTextList = stringList.transform(sizeCheck)

export const packageSearch = defineAction({
  name: 'package_search',
  readOnly: true,
  help: `Search for datasets with Solr-style parameters.

:param q: the query: words (dismax over name, title, tags, groups and text) or Lucene syntax
  with fields (\`tags:economy AND res_format:CSV\`); default all datasets
:type q: string
:param fq: a filter query in Lucene syntax; it restricts the results without changing scores
:type fq: string
:param fq_list: more filter queries, all of which must match
:type fq_list: list of strings
:param sort: comma-separated \`field asc|desc\` clauses; default \`score desc, metadata_modified desc\`
:type sort: string
:param rows: the number of datasets to return (default 10, at most service.search.rows_max)
:type rows: int
:param start: the offset of the first dataset returned
:type start: int
:param facet: "false" turns facets off
:type facet: string
:param facet.field: the fields to count values of, e.g. ["tags", "organization"]
:type facet.field: list of strings (or a JSON string of one)
:param facet.limit: the most values per facet field (default 50, negative: all)
:type facet.limit: int
:param facet.mincount: the least count a value needs to be listed (default 1)
:type facet.mincount: int
:param include_private: include the private datasets the caller may read (default false)
:type include_private: bool
:param include_drafts: include the draft datasets the caller may read (default false)
:type include_drafts: bool
:param include_deleted: include the deleted datasets the caller may read (default false): those of
  organizations the caller is a member of, unowned ones they created, ones they collaborate on;
  every one for sysadmins. Without it a deleted dataset is never found, even by a \`+state:\` filter
:type include_deleted: bool
:param fl: return only these index fields instead of whole dataset dicts
:type fl: list of strings or a comma-separated string
:param cursor: "*" to start paging by cursor, then the next_cursor of the previous answer (same
  q, fq and sort): the datasets after the last one it returned, at the same cost at any depth;
  start is then ignored. Sort by a field
  (e.g. metadata_modified desc or name asc) for paging that holds while datasets are written;
  relevance scores move with the index
:type cursor: string
:param ext_bbox: \`minx,miny,maxx,maxy\` (degrees, WGS 84): only datasets whose \`spatial\`
  GeoJSON geometry meets this box (ckanext-spatial); a box whose maxx is west of its minx crosses
  the antimeridian. Sorted by score (the default), the datasets that overlap the box most come
  first. Like every ext_* parameter it may also come inside \`extras\`
:type ext_bbox: string
:param extras: the ext_* parameters as a dict (how CKAN hands them to search plugins), e.g.
  {"ext_bbox": "-10,40,5,52"}; a top-level ext_* parameter of the same name wins
:type extras: dict
:returns: {"count", "facets", "results", "sort", "search_facets"}, and with cursor, next_cursor while the page is full
:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({
    q: queryText,
    fq: queryText,
    fq_list: queryTextList,
    sort: optString,
    rows: naturalNumber(10),
    start: naturalNumber(0),
    cursor: optString,
    facet: optString,
    'facet.field': facetFieldParam,
    'facet.limit': facetLimitParam(-2),
    'facet.mincount': facetMincountParam,
    include_private: ckanBool(false),
    include_drafts: ckanBool(false),
    include_deleted: ckanBool(false),
    fl: anyValue,
    qf: optString,
    mm: optString,
    tie: optString,
    defType: optString,
  }),
  async run(ctx, p, raw) {
    const unknown = Object.keys(raw).filter((k) => !KNOWN.has(k) && !k.startsWith('ext_'))
    if (unknown.length) {
      throw new SearchQueryError(pyRepr(`Invalid search parameters: [${unknown.map((k) => pyRepr(k)).join(', ')}]`))
    }
    for (const [k, v] of Object.entries(raw)) {
      const values = Array.isArray(v) ? v : [v]
      if (values.some((x) => typeof x === 'string' && hasLocalParams(x))) {
        throw new SearchError(pyRepr(localParamsMessage(k)))
      }
    }
    const sortText = effectiveSort(p.sort, ctx.config.str('service.search.default_package_sort'))
    let sort
    try {
      sort = parseSort(sortText)
    } catch (e) {
      if (e instanceof SortParseError) throw new SearchQueryError(pyRepr(e.message))
      throw e
    }
    const filters = [p.fq ?? '', ...(p.fq_list ?? [])].filter((f) => f.trim() !== '')
    let q, fqs
    try {
      q = parseQ(p.q, { defType: p.defType ?? undefined, qf: p.qf ?? undefined, mm: p.mm ?? undefined, tie: p.tie ?? undefined })
      fqs = filters.map((f) => parseFilter(f))
    } catch (e) {
      if (e instanceof QueryParseError) throw new SearchError(pyRepr(e.message))
      throw e
    }
    const spatial = spatialParams(raw)
    const ownState = [p.q ?? '', ...filters].some((s) => s.includes('+state:'))
    const states = ownState ? null : ['active', ...(p.include_drafts ? ['draft'] : []), ...(p.include_deleted ? ['deleted'] : [])]
    // The index keeps deleted datasets (CKAN with search.remove_deleted_packages off) but answers
    // as a CKAN that removes them unless include_deleted asks: a caller's own +state: filter alone
    // does not reach them.
    const excludeStates = p.include_deleted ? [] : ['deleted']
    const facetOn = (p.facet ?? 'true').toLowerCase() !== 'false'
    const facetFields = facetOn ? (p['facet.field'] ?? []) : []
    const facetLimit = p['facet.limit'] === -2 ? ctx.config.int('search.facets.limit') : p['facet.limit']
    const rows = Math.min(p.rows ?? 10, ctx.config.int('service.search.rows_max'))
    const waited = Date.now()
    const index = await ctx.search.ready()
    // applying other writes to the index is not this query's cost: the budget moves on by it
    const deadline = ctx.deadline === undefined ? undefined : ctx.deadline + (Date.now() - waited)
    let hits
    try {
      hits = await index.search({
        q,
        filters: fqs,
        visibility: {
          states,
          excludeStates,
          includePrivate: p.include_private,
          labels: await permissionLabels(ctx),
          // ckanext-harvest: harvest sources are datasets too, found only when the query asks for them
          excludeTypes: [p.q ?? '', ...filters].some((f) => /dataset_type:[^:]*\bharvest\b/.test(f)) ? [] : ['harvest'],
        },
        sort,
        start: p.start ?? 0,
        rows,
        after: p.cursor && p.cursor !== '*' ? decodeCursor(p.cursor, sortText) : undefined,
        ...(spatial ? { spatial } : {}),
        facet: facetFields.length ? { fields: facetFields, limit: facetLimit, mincount: p['facet.mincount'] ?? 1 } : undefined,
        deadline,
      })
    } catch (e) {
      if (e instanceof QueryParseError || e instanceof SearchTimeout) throw new SearchError(pyRepr(e.message))
      throw e
    }
    const fl = flFields(p.fl)
    const siteId = ctx.config.str('service.site_id')
    const results =
      (fl && (await flFromRows(ctx, hits.ids, fl, siteId))) ??
      (await packageDicts(ctx, hits.ids).then((dicts) =>
        hits.ids
          .map((id) => dicts.get(id))
          .filter((d) => d !== undefined)
          .map((d) => (fl ? flDict(d, fl, siteId) : d)),
      ))
    const facets: Record<string, Record<string, number>> = {}
    for (const [field, pairs] of Object.entries(hits.facets)) facets[field] = Object.fromEntries(pairs)
    return {
      count: hits.count,
      facets,
      results,
      sort: sortText,
      search_facets: await searchFacets(ctx, hits.facets),
      // only for a caller paging by cursor: CKAN's answer keeps its shape for everyone else
      ...(p.cursor && hits.last ? { next_cursor: encodeCursor(sortText, hits.last) } : {}),
    }
  },
})


/**
 * The ext_* parameters as CKAN gathers them for search plugins: the `extras` dict, then the
 * top-level ext_* keys over it; ext_bbox read as ckanext-spatial reads it.
 */
function spatialParams(raw: Record<string, unknown>): { box: NonNullable<ReturnType<typeof parseBbox>> } | undefined {
  let extras: unknown = raw.extras ?? {}
  if (typeof extras === 'string') {
    try {
      extras = JSON.parse(extras)
    } catch {
      // reported below
    }
  }
  if (!extras || typeof extras !== 'object' || Array.isArray(extras)) {
    throw ValidationError.field('extras', 'Must be a dict of ext_* search parameters')
  }
  const ext: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(extras)) if (k.startsWith('ext_')) ext[k] = v
  for (const [k, v] of Object.entries(raw)) if (k.startsWith('ext_')) ext[k] = v
  const bbox = Array.isArray(ext.ext_bbox) && ext.ext_bbox.length === 1 ? ext.ext_bbox[0] : ext.ext_bbox
  // ckanext-spatial: an empty ext_bbox is no spatial search
  if (bbox === undefined || bbox === null || bbox === '') return undefined
  const box = parseBbox(bbox)
  if (!box) throw new SearchError(pyRepr('Wrong bounding box provided'))
  return { box }
}

/** An opaque cursor: the sort it was made for and the last dataset's sort values. */
function encodeCursor(sort: string, last: (number | string | null)[]): string {
  return toBase64Url(JSON.stringify({ s: sort, v: last }))
}

function decodeCursor(cursor: string, sort: string): (number | string | null)[] {
  let c: unknown
  try {
    c = JSON.parse(fromBase64Url(cursor))
  } catch {
    throw ValidationError.field('cursor', 'Not a cursor of this search')
  }
  const ok =
    !!c && typeof c === 'object' && Array.isArray((c as { v?: unknown }).v) &&
    (c as { v: unknown[] }).v.every((x) => x === null || typeof x === 'string' || typeof x === 'number')
  if (!ok) throw ValidationError.field('cursor', 'Not a cursor of this search')
  if ((c as { s?: unknown }).s !== sort) throw ValidationError.field('cursor', 'The cursor was made for another sort order: send the same sort')
  return (c as { v: (number | string | null)[] }).v
}

/** The caller's permission labels (search.md §2); null for sysadmins, who see everything. */
async function permissionLabels(ctx: ActionContext): Promise<string[] | null> {
  if (!ctx.user) return ['public']
  if (ctx.user.sysadmin) return null
  const orgs = await groupsWithPermission(ctx, 'read')
  const collaborations = await collaborationIds(ctx)
  return [
    'public',
    `creator-${ctx.user.id}`,
    ...orgs.map((o) => `member-${o}`),
    ...collaborations.map((d) => `collaborator-${d}`),
  ]
}
