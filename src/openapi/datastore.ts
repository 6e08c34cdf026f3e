// /api/3/datastore/<resource_id>/openapi.json: one DataStore table described as an API, its
// columns as datastore_search's filters, fields, sort and the records' shape.
import { parseType, type BaseKind } from '../datastore/column-types'

type Json = Record<string, unknown>

const VALUE: Record<BaseKind, Json> = {
  int: { type: 'integer' },
  float: { type: 'number' },
  numeric: { type: ['number', 'string'], description: 'numeric: a number (exact values as text)' },
  text: { type: 'string' },
  bool: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  time: { type: 'string', format: 'time' },
  timestamp: { type: 'string', format: 'date-time' },
  timestamptz: { type: 'string', format: 'date-time' },
  json: {},
  other: { type: 'string' },
}

function valueSchema(type: string): Json {
  const t = parseType(type)
  if (!t) return {}
  const v = VALUE[t.kind]
  return t.array ? { type: 'array', items: v } : v
}

export interface TableField {
  id: string
  type: string
  info?: { label?: string; notes?: string }
}

export function tableDocument(siteUrl: string, resourceId: string, name: string, fields: TableField[]): Json {
  const columns = fields.filter((f) => f.id !== '_id')
  const described = (f: TableField, s: Json): Json => {
    const text = [f.info?.label, f.info?.notes].filter(Boolean).join(': ')
    return { ...s, ...(text ? { description: `${text} (${f.type})` } : { description: f.type }) }
  }
  const record: Json = {
    type: 'object',
    properties: Object.fromEntries([['_id', { type: 'integer' }], ...columns.map((f) => [f.id, described(f, { anyOf: [valueSchema(f.type), { type: 'null' }] })])]),
  }
  const filters: Json = {
    type: 'object',
    description: 'Rows whose columns equal these values (a list: any of them)',
    properties: Object.fromEntries(columns.map((f) => [f.id, described(f, { anyOf: [valueSchema(f.type), { type: 'array', items: valueSchema(f.type) }] })])),
    additionalProperties: false,
  }
  const ids = ['_id', ...columns.map((f) => f.id)]
  const body: Json = {
    type: 'object',
    required: ['resource_id'],
    properties: {
      resource_id: { const: resourceId },
      filters,
      q: { description: 'full-text search: a string over all columns, or an object of column → text', anyOf: [{ type: 'string' }, { type: 'object', properties: Object.fromEntries(columns.map((f) => [f.id, { type: 'string' }])) }] },
      fields: { description: 'the columns to return (default all)', anyOf: [{ type: 'array', items: { enum: ids } }, { type: 'string' }] },
      sort: { type: 'string', description: `comma-separated "column [asc|desc]" of: ${ids.join(', ')}` },
      limit: { type: 'integer', minimum: 0, default: 100 },
      offset: { type: 'integer', minimum: 0 },
      include_total: { type: 'boolean', default: true },
      distinct: { type: 'boolean' },
      records_format: { enum: ['objects', 'lists', 'csv', 'tsv'] },
    },
  }
  return {
    openapi: '3.1.0',
    info: { title: `DataStore table ${name || resourceId}`, version: '3', description: `datastore_search on the table of resource ${resourceId}: its ${columns.length} columns as filters, fields and sort keys.` },
    servers: [{ url: siteUrl.replace(/\/+$/, '') || '/' }],
    paths: {
      '/api/3/action/datastore_search': {
        post: {
          operationId: 'datastore_search',
          summary: `Search the rows of ${name || resourceId}`,
          requestBody: { required: true, content: { 'application/json': { schema: body } } },
          responses: {
            '200': {
              description: 'The page of rows',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      success: { const: true },
                      result: { type: 'object', properties: { records: { type: 'array', items: record }, total: { type: 'integer' }, fields: { type: 'array' } } },
                    },
                  },
                },
              },
            },
            '409': { description: 'Validation Error (an unknown column, a bad value)' },
          },
        },
      },
    },
    components: { schemas: { Record: record } },
  }
}
