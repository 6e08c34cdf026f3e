// Loads ckan.js (the npm package `ckan`, okfn/ckan.js 0.2.3, a devDependency) for the client tests,
// and wraps its callback API in promises. `CKANJS_DIR` names another copy (a directory holding its
// package.json, e.g. one installed with `npm install ckan@0.2.3` outside the repository).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** ckan.js's module: `Client(endpoint, apiKey)` and its helpers. */
export interface CkanJs {
  Client: new (endpoint: string, apiKey?: string) => CkanJsClient
  _normalizeQuery: (q: object) => Record<string, unknown>
  parseCkanResourceUrl: (url: string) => { resource_id: string; endpoint: string }
}

export interface CkanJsClient {
  endpoint: string
  apiKey?: string
  action: (name: string, data: object | undefined, cb: (err: unknown, body: any) => void) => void
  datastoreQuery: (q: object, cb: (err: unknown, out: any) => void) => void
  datastoreSqlQuery: (sql: string, cb: (err: unknown, out: any) => void) => void
  datastoreResources: (cb: (err: unknown, body: any) => void) => void
}

function load(): CkanJs | undefined {
  try {
    return require(process.env.CKANJS_DIR ?? 'ckan') as CkanJs
  } catch {
    return undefined
  }
}

/** The module, or undefined when it is not installed. */
export const CKAN = load()

/** What ckan.js hands its callback: `err` (a string for an HTTP error) and the parsed body. */
export interface Answer {
  err: unknown
  body: any
}

/** `client.action(name, data)` as a promise of its callback's arguments. */
export function action(client: CkanJsClient, name: string, data?: object): Promise<Answer> {
  return new Promise((resolve) => client.action(name, data, (err, body) => resolve({ err, body })))
}

/** A ckan.js helper taking (arg, cb) as a promise of its callback's arguments. */
export function helper<A>(fn: (arg: A, cb: (err: unknown, out: any) => void) => void, arg: A): Promise<Answer> {
  return new Promise((resolve) => fn(arg, (err, body) => resolve({ err, body })))
}
