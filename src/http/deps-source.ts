// Where a route gets its services: one Deps for the process (Node, tests), or new ones per request (Workers).
import type { Config } from '../config/load'
import type { Deps } from '../context'

/**
 * Services built for each request, for runtimes whose I/O objects belong to one request
 * (workerd): `forRequest` gives that request its own database clients; `config` is shared.
 */
export interface PerRequestDeps {
  /** The configuration a request sees (the same object for every request, or a view per request). */
  configFor(req: Request): Config
  /** That request's services; their `config` is `configFor(req)`. */
  forRequest(req: Request): Promise<Deps>
}

export type DepsSource = Deps | PerRequestDeps

export interface DepsResolver {
  /** The request's configuration, available before any I/O (for the envelope's help URL). */
  config(req: Request): Config
  of(req: Request): Deps | Promise<Deps>
}

export function depsResolver(source: DepsSource): DepsResolver {
  if ('forRequest' in source) {
    return { config: (req) => source.configFor(req), of: (req) => source.forRequest(req) }
  }
  return { config: () => source.config, of: () => source }
}
