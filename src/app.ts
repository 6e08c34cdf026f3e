// createApp(source): the Hono application shared by the Node server, the Worker and the tests.
import { Hono } from 'hono'
import { depsResolver, type DepsSource } from './http/deps-source'
import { mountActionRoutes } from './http/action-route'
import { asciiJson } from './lib/json'
import { internalError } from './http/internal-error'
import { mountUtilRoutes } from './http/util-routes'
import { mountGeoRoute } from './http/geo-route'
import { mountDumpRoute } from './http/dump-route'
import { mountDownloadRoute } from './http/download-route'
import { mountImageRoute } from './http/image-route'
import { mountGeoJsonRoute } from './http/geo-data'
import { mountWebRoutes } from './web/mount'
import { mountOpenApiRoutes } from './http/openapi-route'

/** `source`: the process's Deps, or a way to build them per request (see http/deps-source.ts). */
export function createApp(source: DepsSource) {
  const deps = depsResolver(source)
  const app = new Hono()
  const version = (n: number) => () =>
    new Response(asciiJson({ version: n }), {
      headers: { 'content-type': 'application/json;charset=utf-8' },
    })
  app.get('/api', version(1))
  app.get('/api/', version(1))
  for (const n of [1, 2, 3]) {
    app.get(`/api/${n}`, version(n))
    app.get(`/api/${n}/`, version(n))
  }
  mountActionRoutes(app, deps)
  mountUtilRoutes(app, deps)
  mountGeoRoute(app, deps)
  mountDumpRoute(app, deps)
  mountDownloadRoute(app, deps)
  mountImageRoute(app, deps)
  mountGeoJsonRoute(app, deps)
  mountOpenApiRoutes(app, deps)
  mountWebRoutes(app, deps)
  app.onError((err) => internalError(err))
  return app
}

export type App = ReturnType<typeof createApp>
