// The Action API described by itself: an OpenAPI 3.1 document generated from the action registry
// (each action's zod schema as JSON Schema, its CKAN docstring for descriptions, its auth rule in
// words) and CKAN's envelopes. Built once per process and cached (per set of actions the site offers).
import { z } from 'zod'
import { registry, type AnyAction } from '../actions'
import { actionOffered } from '../actions/call'
import type { Config } from '../config/load'
import type { SchemaRegistry } from '../scheming/registry'
import { withSchemingTypes } from './scheming-document'

type Json = Record<string, unknown>

interface DocParam {
  description: string
  type?: string
}

/** `:param name: text` and `:type name: text` of a CKAN docstring; the text before them. */
export function parseHelp(help: string): { summary: string; description: string; params: Map<string, DocParam>; returns?: string } {
  const params = new Map<string, DocParam>()
  const first = help.search(/^:(param|type|returns|rtype)\b/m)
  const description = (first < 0 ? help : help.slice(0, first)).trim()
  for (const m of help.matchAll(/^:param ([\w.]+):([\s\S]*?)(?=^:|(?![\s\S]))/gm)) {
    params.set(m[1]!, { description: m[2]!.trim().replace(/\s+/g, ' ') })
  }
  for (const m of help.matchAll(/^:type ([\w.]+):([\s\S]*?)(?=^:|(?![\s\S]))/gm)) {
    const p = params.get(m[1]!)
    if (p) p.type = m[2]!.trim().replace(/\s+/g, ' ')
  }
  const returns = /^:returns:([\s\S]*?)(?=^:|(?![\s\S]))/m.exec(help)?.[1]?.trim().replace(/\s+/g, ' ')
  const summary = (description.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').slice(0, 200)
  return { summary, description, params, returns }
}

export function authInWords(a: AnyAction): string {
  if (a.auth === 'anyone') return 'Anyone may call it.'
  if (a.auth === 'logged-in') return 'The caller must be signed in (an API key or token).'
  if (a.auth === 'sysadmin') return 'Sysadmins only.'
  return a.allowAnonymous
    ? 'Checked against the objects named (CKAN\'s authorization rules for this action); anonymous callers may reach the check.'
    : a.readOnly
      ? 'Checked against the objects named (CKAN\'s authorization rules for this action).'
      : 'The caller must be signed in, then is checked against the objects named (CKAN\'s authorization rules for this action).'
}

/** The action's parameters as a JSON Schema object; documented parameters the schema lacks are added as open. */
export function actionParamsSchema(a: AnyAction, doc: Map<string, DocParam>): Json {
  let schema: Json
  try {
    schema = z.toJSONSchema(a.params, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Json
  } catch {
    schema = { type: 'object' }
  }
  delete schema.$schema
  if (schema.type !== 'object') schema = { type: 'object', ...(Object.keys(schema).length ? { allOf: [schema] } : {}) }
  const props = { ...((schema.properties as Record<string, Json> | undefined) ?? {}) }
  for (const [name, p] of doc) {
    if (name.includes('.')) continue
    const described = { ...(props[name] ?? {}), description: p.type ? `${p.description} (${p.type})` : p.description }
    props[name] = described
  }
  // CKAN accepts parameters it does not know about on many actions; the schema says what it reads
  return { ...schema, properties: props, additionalProperties: true }
}

const ENVELOPE_OK = (result: Json): Json => ({
  type: 'object',
  required: ['help', 'success', 'result'],
  properties: { help: { type: 'string', format: 'uri' }, success: { const: true }, result },
})

function components(): Json {
  return {
    schemas: {
      Error: {
        type: 'object',
        required: ['help', 'success', 'error'],
        properties: {
          help: { type: 'string' },
          success: { const: false },
          error: {
            type: 'object',
            required: ['__type'],
            properties: {
              __type: {
                type: 'string',
                enum: ['Validation Error', 'Not Found Error', 'Authorization Error', 'Search Query Error', 'Search Error', 'Integrity Error', 'Request Entity Too Large', 'Internal Server Error'],
              },
              message: { type: 'string' },
            },
            additionalProperties: true,
            description: 'A Validation Error carries one list of messages per field, as CKAN sends them.',
          },
        },
      },
    },
    responses: {
      Invalid: { description: 'Validation Error (and CKAN\'s other 409s)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      NotAuthorized: { description: 'Authorization Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      NotFound: { description: 'Not Found Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      BadRequest: { description: 'Bad request (an unknown action, a malformed body): a JSON string, as CKAN answers', content: { 'application/json': { schema: { type: 'string' } } } },
    },
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API key or API token (X-CKAN-API-Key and X-SERVICE-API-Key are accepted too)' },
    },
  }
}

function operation(a: AnyAction, method: 'get' | 'post'): Json {
  const doc = parseHelp(a.help)
  const schema = actionParamsSchema(a, doc.params)
  const op: Json = {
    operationId: method === 'get' ? `${a.name}_get` : a.name,
    summary: doc.summary || a.name,
    description: `${doc.description}\n\n**Authorization:** ${authInWords(a)}`,
    tags: [tagOf(a.name)],
    security: [{}, { apiKey: [] }],
    responses: {
      '200': {
        description: doc.returns ? `Success: ${doc.returns}` : 'Success',
        content: { 'application/json': { schema: ENVELOPE_OK({ description: doc.returns ?? 'the action\'s result' }) } },
      },
      '400': { $ref: '#/components/responses/BadRequest' },
      '403': { $ref: '#/components/responses/NotAuthorized' },
      '404': { $ref: '#/components/responses/NotFound' },
      '409': { $ref: '#/components/responses/Invalid' },
    },
  }
  if (method === 'post') {
    op.requestBody = {
      required: false,
      content: {
        'application/json': { schema },
        'application/x-www-form-urlencoded': { schema },
        ...(/upload/.test(a.help) ? { 'multipart/form-data': { schema } } : {}),
      },
    }
  } else {
    const props = (schema.properties ?? {}) as Record<string, Json>
    const required = new Set((schema.required as string[] | undefined) ?? [])
    op.parameters = [
      ...Object.entries(props).map(([name, s]) => ({
        name,
        in: 'query',
        required: required.has(name),
        description: typeof s.description === 'string' ? s.description : undefined,
        // query values are text; JSON values (lists, dicts) are sent as JSON text
        schema: { type: 'string' },
      })),
      { name: 'callback', in: 'query', required: false, description: 'JSONP: wraps the answer in this function (anonymous call)', schema: { type: 'string' } },
    ]
  }
  return op
}

const tagOf = (name: string) =>
  /^(datastore|xloader|datapusher)_/.test(name)
    ? 'DataStore'
    : /^(package|dataset|resource|tag|vocabulary|current_package|revision|package_relationship)/.test(name)
      ? 'Datasets'
      : /^(organization|group|member)/.test(name)
        ? 'Organizations and groups'
        : /^(user|api_token|follow|unfollow|am_following|followee|dashboard|send_email)/.test(name)
          ? 'Users'
          : /activity/.test(name)
            ? 'Activity'
            : 'Site'

let cached: { key: string; doc: Json } | undefined
/** With a site's schemas: one document per registry (a new snapshot is a new registry). */
const cachedWithSchemas = new WeakMap<SchemaRegistry, { key: string; doc: Json }>()

/**
 * The document for the site `config` describes: its `servers` entry is the site URL, and it lists
 * only the actions offered there (service.api_compat removes some, settings withhold others). With
 * the site's metadata schemas (ckanext-scheming), each dataset, organization and group type's
 * fields too (see scheming-document.ts).
 */
export function openApiDocument(config: Config, schemas?: SchemaRegistry): Json {
  const siteUrl = config.str('service.site_url')
  const title = config.str('service.site_title')
  const names = [...registry.keys()].filter((n) => actionOffered(n, config) !== undefined).sort()
  const key = `${siteUrl}\n${title}\n${names.join(' ')}`
  if (schemas && (schemas.datasets.size || schemas.organizations.size || schemas.groups.size)) {
    const hit = cachedWithSchemas.get(schemas)
    if (hit?.key === key) return hit.doc
    const doc = withSchemingTypes(baseDocument(siteUrl, title, names), schemas)
    cachedWithSchemas.set(schemas, { key, doc })
    return doc
  }
  if (cached?.key === key) return cached.doc
  cached = { key, doc: baseDocument(siteUrl, title, names) }
  return cached.doc
}

function baseDocument(siteUrl: string, title: string, names: string[]): Json {
  const paths: Record<string, Json> = {}
  for (const name of names) {
    const a = registry.get(name)!
    const item: Json = { post: operation(a, 'post') }
    if (a.readOnly) item.get = operation(a, 'get')
    paths[`/api/3/action/${name}`] = item
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${title} Action API`,
      version: '3',
      description:
        'The CKAN Action API v3 as this site serves it: every action is `POST /api/3/action/<name>` (JSON, form or multipart body); read actions also answer `GET` with query parameters and JSONP. Answers use CKAN\'s envelope: `{help, success, result}` or `{help, success: false, error: {__type, …}}`.',
    },
    servers: [{ url: siteUrl.replace(/\/+$/, '') || '/' }],
    tags: ['Datasets', 'Organizations and groups', 'Users', 'Activity', 'DataStore', 'Site'].map((name) => ({ name })),
    paths,
    components: components(),
  }
}
