// An MCP server at /mcp (Streamable HTTP, stateless: a server and transport per request, so no
// request awaits another's I/O in workerd). Tools come from the action registry: the read actions
// for anyone, a few write actions for a caller who presents an API key or token (the actions'
// own authorization decides what that user may do). Answers are trimmed for a model's context,
// with the offset or cursor to continue. Resources: a dataset's and a DataStore table's description.
// With metadata schemas (ckanext-scheming), package_create/_patch take every dataset type's fields
// (their descriptions say which type has and requires which), package_search names the fields worth
// a facet, and a type's schema is a tool (scheming_dataset_schema_show) and a resource.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { actionNamed, actionOffered, callAction } from '../actions/call'
import type { ActionContext } from '../context'
import { ActionError } from '../errors'
import { requestContext } from '../http/request-context'
import { apiKeyFrom } from '../auth/api-key'
import { actionClass, checkRateLimit } from '../http/rate-limit'
import { clientAddress, type AddressSource } from '../http/client-address'
import type { DepsResolver } from '../http/deps-source'
import { actionParamsSchema, parseHelp } from '../openapi/document'
import { facetFields, fieldUnion, typesInWords } from '../openapi/scheming'
import type { SchemaRegistry } from '../scheming/registry'

type Dict = Record<string, any>

const READ_TOOLS = [
  'package_search',
  'package_show',
  'resource_show',
  'organization_list',
  'organization_show',
  'group_list',
  'group_show',
  'tag_list',
  'datastore_search',
  'datastore_info',
  'datastore_versions_list',
  'datastore_diff',
  'changes_list',
  'status_show',
]
const WRITE_TOOLS = ['package_create', 'package_patch', 'resource_create', 'resource_patch', 'datastore_create', 'datastore_upsert']

/** A dataset dict cut to what a model needs to choose and cite it. */
function briefDataset(d: Dict): Dict {
  const notes = typeof d.notes === 'string' ? d.notes : ''
  return {
    id: d.id,
    name: d.name,
    title: d.title,
    notes: notes.length > 500 ? `${notes.slice(0, 500)}…` : notes,
    organization: d.organization?.name ?? null,
    private: d.private,
    tags: (d.tags ?? []).map((t: Dict) => t.name),
    metadata_modified: d.metadata_modified,
    resources: (d.resources ?? []).map((r: Dict) => ({ id: r.id, name: r.name, format: r.format, url: r.url, datastore_active: r.datastore_active })),
  }
}

/** The action's input as the tool passes it, with the context-friendly defaults and caps. */
function toolInput(name: string, args: Dict): Dict {
  const a = { ...args }
  delete a.full
  if (name === 'package_search') a.rows = Math.min(Number(a.rows ?? 10) || 10, 50)
  if (name === 'datastore_search') a.limit = Math.min(Number(a.limit ?? 20) || 20, 100)
  if (name === 'changes_list') a.limit = Math.min(Number(a.limit ?? 100) || 100, 1000)
  if (name === 'datastore_versions_list') a.limit = Math.min(Number(a.limit ?? 20) || 20, 100)
  if (name === 'datastore_diff') a.limit = Math.min(Number(a.limit ?? 50) || 50, 200)
  if ((name === 'organization_list' || name === 'group_list') && a.limit === undefined) a.limit = 100
  return a
}

/** The result trimmed for a model's context, with how to get the next part. */
function toolResult(name: string, input: Dict, args: Dict, result: any): Dict {
  if (args.full === true) return result
  if (name === 'package_search') {
    const start = Number(input.start ?? 0)
    const shown = (result.results ?? []).length
    const out: Dict = { count: result.count, results: (result.results ?? []).map(briefDataset) }
    if (result.search_facets && Object.keys(result.search_facets).length) out.search_facets = result.search_facets
    if (start + shown < result.count) out.next_start = start + shown
    return out
  }
  if (name === 'package_show') return { ...briefDataset(result), notes: result.notes, extras: result.extras, license_id: result.license_id, url: result.url }
  if (name === 'datastore_search') {
    const offset = Number(input.offset ?? 0)
    const shown = (result.records ?? []).length
    const out: Dict = { fields: (result.fields ?? []).map((f: Dict) => ({ id: f.id, type: f.type })), records: result.records, total: result.total }
    if (result.total === undefined ? shown === input.limit : offset + shown < result.total) out.next_offset = offset + shown
    return out
  }
  if (name === 'datastore_info' && result?.profile?.columns) return { ...result, profile: briefProfile(result.profile) }
  // a version's field list is the table's: left out of the list (datastore_info has it)
  if (name === 'datastore_versions_list' && Array.isArray(result?.versions))
    return { ...result, versions: result.versions.map(({ fields: _, ...v }: Dict) => v) }
  return result
}

/**
 * A column profile cut for a model: the 5 most frequent values, and a histogram as its range and
 * bin counts (the bin edges follow from them).
 */
function briefProfile(p: Dict): Dict {
  return {
    ...p,
    columns: (p.columns as Dict[]).map((c) => {
      const { top, histogram, ...rest } = c
      const out: Dict = { ...rest }
      if (top?.length) out.top = top.slice(0, 5).map((t: Dict) => [t.value, t.count])
      if (histogram?.length)
        out.histogram = { from: histogram[0].from, to: histogram[histogram.length - 1].to, bins: histogram.length, counts: histogram.map((b: Dict) => b.count) }
      return out
    }),
  }
}

/** The site's dataset types, if its schemas declare any. */
const datasetTypes = (ctx: ActionContext) => (ctx.schemas?.datasets.size ? ctx.schemas : undefined)

/** Each tool's definition, built once per process (its JSON Schema comes from zod), and per schema registry. */
const definitions = new Map<string, ReturnType<typeof toolDefinition>>()
const definitionsWithSchemas = new WeakMap<SchemaRegistry, typeof definitions>()

function toolsFor(ctx: ActionContext) {
  const reg = datasetTypes(ctx)
  const read = reg ? [...READ_TOOLS, 'scheming_dataset_schema_show'] : READ_TOOLS
  const names = [...read, ...(ctx.user ? WRITE_TOOLS : [])].filter((n) => actionOffered(n, ctx.config) !== undefined)
  let cache = definitions
  if (reg) {
    cache = definitionsWithSchemas.get(reg) ?? new Map()
    definitionsWithSchemas.set(reg, cache)
  }
  return names.map((name) => {
    let def = cache.get(name)
    if (!def) cache.set(name, (def = toolDefinition(name, reg)))
    return def
  })
}

/** What a tool says of the dataset types, and the fields it takes for them. */
function schemaNotes(name: string, reg: SchemaRegistry): { note: string; properties?: Dict } {
  const types = [...reg.datasets.keys()]
  const resource = ' A type\'s whole schema (resource fields too): scheming_dataset_schema_show, or the resource ckan://schema/dataset/{type}.'
  if (name === 'package_create')
    return {
      note: ` Dataset types (send as type; default dataset): ${typesInWords(reg, 'dataset')}.${reg.datasetFallback ? ' Other types are refused.' : ' Other types take CKAN\'s core fields.'} Each type's fields are in the input schema (choices as enums; descriptions say which types have and require them).${resource}`,
      properties: { type: { ...(reg.datasetFallback ? { enum: types } : {}), description: `one of: ${types.join(', ')}` }, ...fieldUnion(reg, 'dataset') },
    }
  if (name === 'package_patch')
    return { note: ` Any field of the dataset's type may be given (types: ${types.join(', ')}); the others are kept.${resource}`, properties: fieldUnion(reg, 'dataset') }
  if (name === 'package_search') {
    const facets = facetFields(reg)
    return {
      note: ` Schema fields filter with fq (field:value) and facet with facet.field${facets.length ? `; fields with fixed choices: ${facets.join(', ')}` : ''}. fq=type:<type> selects a dataset type (${types.join(', ')}).`,
    }
  }
  if (name === 'resource_create' || name === 'resource_patch')
    return { note: ` The resource fields depend on the dataset's type (scheming_dataset_schema_show, resource_fields).` }
  if (name === 'scheming_dataset_schema_show') return { note: ` Dataset types: ${types.join(', ')}.` }
  return { note: '' }
}

function toolDefinition(name: string, reg?: SchemaRegistry) {
  const a = actionNamed(name)!
  const doc = parseHelp(a.help)
  const schema = actionParamsSchema(a, doc.params) as Dict
  const notes = reg ? schemaNotes(name, reg) : { note: '' }
  const own = (schema.properties ?? {}) as Dict
  const added = Object.fromEntries(Object.entries(notes.properties ?? {}).map(([k, v]) => [k, own[k]?.description ? { ...v, description: `${String(own[k].description).replace(/\.$/, '')}. ${v.description ?? ''}`.trim() } : v]))
  schema.properties = {
    ...own,
    ...added,
    full: { type: 'boolean', description: 'return the whole answer instead of the trimmed one (large)' },
  }
  const trim =
    name === 'package_search'
      ? ' Returns at most 50 datasets, trimmed (pass full=true for whole dicts); next_start continues.'
      : name === 'datastore_search'
        ? ' Returns at most 100 rows; next_offset continues. For totals, counts or averages (by category or by month) pass group_by and aggregates instead of reading rows.'
        : name === 'datastore_diff'
          ? ' At most 200 changes a call (default 50); pass next_after as after to continue.'
          : name === 'datastore_info'
          ? ' With include_profile=true, each column\'s profile (counts, distinct, min/max, mean, top values as [value, count], histogram as equal-width bin counts from..to); full=true for the whole profile.'
          : ''
  return {
    name,
    description: `${`${doc.summary || name}${trim}`.slice(0, 1000)}${notes.note.slice(0, 3000)}`,
    inputSchema: { ...schema, type: 'object' as const },
    annotations: { readOnlyHint: a.readOnly, openWorldHint: false },
  }
}

/** Counts one call of the named action against the caller's rate limit; the refusal, if over it. */
type LimitCheck = (name: string, readOnly: boolean) => Promise<ActionError | undefined>

function serverFor(ctx: ActionContext, siteTitle: string, limit: LimitCheck) {
  const server = new Server({ name: siteTitle || 'ckan-edge', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } })
  const tools = toolsFor(ctx)
  const allowed = new Set(tools.map((t) => t.name))
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const name = req.params.name
    const args = (req.params.arguments ?? {}) as Dict
    if (!allowed.has(name)) {
      return { isError: true, content: [{ type: 'text' as const, text: `Unknown tool ${name}${WRITE_TOOLS.includes(name) ? ' (write tools need an API key or token)' : ''}` }] }
    }
    const input = toolInput(name, args)
    try {
      // each tool call counts as the API call it makes (service.ratelimit.*)
      const refused = await limit(name, actionNamed(name)?.readOnly ?? false)
      if (refused) throw refused
      const result = await callAction(ctx, name, input)
      const out = toolResult(name, input, args, result)
      return { content: [{ type: 'text' as const, text: JSON.stringify(out) }], structuredContent: typeof out === 'object' && out !== null && !Array.isArray(out) ? out : { result: out } }
    } catch (e) {
      if (!(e instanceof ActionError)) throw e
      return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify({ __type: e.type, ...e.body() }) }] }
    }
  })
  const reg = datasetTypes(ctx)
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [...(reg?.datasets.keys() ?? [])].map((type) => ({
      uri: `ckan://schema/dataset/${encodeURIComponent(type)}`,
      name: `Dataset type ${type}`,
      description: `The fields of dataset type ${type} (scheming_dataset_schema_show)`,
      mimeType: 'application/json',
    })),
  }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: 'ckan://dataset/{id}', name: 'Dataset', description: 'A dataset\'s metadata (package_show), with its resources', mimeType: 'application/json' },
      { uriTemplate: 'ckan://datastore/{resource_id}', name: 'DataStore table', description: 'A table\'s columns, types and data dictionary, and its row count', mimeType: 'application/json' },
      ...(reg
        ? [{ uriTemplate: 'ckan://schema/dataset/{type}', name: 'Dataset type schema', description: 'A dataset type\'s fields and resource fields (scheming_dataset_schema_show)', mimeType: 'application/json' }]
        : []),
    ],
  }))
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri
    const m = /^ckan:\/\/(dataset|datastore|schema\/dataset)\/([^/?#]+)$/.exec(uri)
    if (!m) throw new Error(`Unknown resource ${uri}`)
    const id = decodeURIComponent(m[2]!)
    const value =
      m[1] === 'dataset'
        ? await callAction(ctx, 'package_show', { id })
        : m[1] === 'schema/dataset'
          ? await callAction(ctx, 'scheming_dataset_schema_show', { type: id })
          : await callAction(ctx, 'datastore_search', { resource_id: id, limit: 0 }).then((r: any) => ({ resource_id: id, fields: r.fields, total: r.total }))
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] }
  })
  return server
}

/** Answers one request to /mcp. */
export async function mcpResponse(source: DepsResolver, c: AddressSource): Promise<Response> {
  const req = c.req.raw
  if (req.method !== 'POST') {
    // stateless: no server-initiated stream to resume (GET) and no session to end (DELETE)
    return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp' }, id: null }), {
      status: 405,
      headers: { 'content-type': 'application/json', allow: 'POST' },
    })
  }
  const deps = await source.of(req)
  const ctx = await requestContext(deps, req.headers)
  const caller = { user: ctx.user, credential: apiKeyFrom(req.headers, deps.config), address: clientAddress(c, deps.config) }
  const limit: LimitCheck = async (name, readOnly) =>
    (await checkRateLimit(deps, caller, actionClass(name, readOnly)))?.refused
  const server = serverFor(ctx, deps.config.str('service.site_title'), limit)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(req)
  } finally {
    // the answer is complete (JSON mode): nothing of this request outlives it
    await server.close().catch(() => undefined)
  }
}
