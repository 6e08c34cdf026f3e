// GET /api/3/openapi.json (OpenAPI 3.1 of every action the site offers, generated once per process
// and per set of metadata schemas and of offered actions),
// /api/3/docs (a Scalar API reference page reading it), and the MCP endpoint /mcp.
import type { Hono } from 'hono'
import { Scalar } from '@scalar/hono-api-reference'
import { asciiJson } from '../lib/json'
import { openApiDocument } from '../openapi/document'
import { mcpResponse } from '../mcp/server'
import { tableDocument, type TableField } from '../openapi/datastore'
import { callAction } from '../actions/call'
import { apiRequestContext } from './request-context'
import { fail, helpUrl } from './envelope'
import type { DepsResolver } from './deps-source'

export function mountOpenApiRoutes(app: Hono, source: DepsResolver) {
  // MCP (Streamable HTTP) from the same registry; see src/mcp/server.ts
  app.on(['GET', 'POST', 'DELETE'], '/mcp', (c) => mcpResponse(source, c))
  // the site's metadata schemas (ckanext-scheming) add each type's fields; see src/openapi/scheming.ts
  const documentFor = async (req: Request) => {
    const config = source.config(req)
    const { schemas } = await source.of(req)
    return openApiDocument(config, schemas)
  }
  for (const path of ['/api/3/openapi.json', '/api/openapi.json']) {
    app.get(path, async (c) =>
      new Response(asciiJson(await documentFor(c.req.raw)), {
        headers: { 'content-type': 'application/json;charset=utf-8', 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
      }),
    )
  }
  app.get('/api/3/docs', Scalar({ url: '/api/3/openapi.json', pageTitle: 'Action API reference' }))

  // one table: the caller must be able to read it (datastore_search's own rule)
  app.get('/api/3/datastore/:id/openapi.json', async (c) => {
    const help = helpUrl(source.config(c.req.raw).str('service.site_url'), 'datastore_search')
    try {
      const deps = await source.of(c.req.raw)
      const ctx = await apiRequestContext(deps, c.req.raw.headers)
      const id = c.req.param('id')
      const found = await callAction<{ fields: TableField[] }>(ctx, 'datastore_search', { resource_id: id, limit: 0, include_total: false })
      const resource = await callAction<{ name?: string }>(ctx, 'resource_show', { id }).catch(() => ({}) as { name?: string })
      const doc = tableDocument(deps.config.str('service.site_url'), id, resource.name ?? '', found.fields)
      return new Response(asciiJson(doc), {
        headers: { 'content-type': 'application/json;charset=utf-8', 'cache-control': ctx.user ? 'private, no-cache' : 'public, max-age=60' },
      })
    } catch (err) {
      return fail(help, err)
    }
  })
}
