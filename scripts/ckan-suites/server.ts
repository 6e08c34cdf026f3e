// The catalogue as CKAN's own tests meet it over HTTP (scripts/ckan-suites/run.sh): the real app on
// a temp libSQL file, plus two routes only this script serves, which stand in for what CKAN's
// pytest fixtures do in process:
//   POST /__harness/reset {clean, config}  a fresh database (clean) and/or new settings; answers
//                                          the site user's credential (CKAN's factories act as it)
//   POST /__harness/credential {user}      a credential for a user, as CKAN's tests name them
//   POST /__harness/call/<action> {user, params}
//                                          the action as that user with authorization skipped,
//                                          as CKAN's `helpers.call_action` calls it in process; the
//                                          harness uses it only after the API refused the user
// Nothing here is part of the product: the app sees ordinary requests with ordinary credentials.
import { serve } from '@hono/node-server'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, type App } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { apiAtLeast } from '../../src/config/api-compat'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { datastoreUrl, openDatastore } from '../../src/runtime/node-datastore'
import { nodeBlobStore } from '../../src/runtime/node-blob-store'
import { nodeMailer } from '../../src/runtime/node-mailer'
import { nodeLoaderPorts } from '../../src/runtime/node-loader'
import { nodeSchemas } from '../../src/runtime/node-schemas'
import { callAction } from '../../src/actions/call'
import { systemContext, type Deps } from '../../src/context'
import { contextFor } from '../../src/http/request-context'
import { activeUser } from '../../src/model/user'
import { fail, ok } from '../../src/http/envelope'
import { NotFound } from '../../src/errors'
import { CSRF_COOKIE, newCsrfToken, sessionCookie } from '../../src/web/session'

/** CKAN's test-core.ini, as far as this catalogue reads it. */
const PROFILE: Record<string, string> = {
  'ckan.site_url': 'http://test.ckan.net',
  'ckan.site_id': 'test.ckan.net',
  'ckan.site_title': 'CKAN',
  'ckan.auth.user_create_organizations': 'true',
  'ckan.auth.user_create_groups': 'true',
  'ckan.auth.create_user_via_api': 'false',
  'ckan.auth.create_user_via_web': 'false',
  'ckan.auth.create_dataset_if_not_in_organization': 'true',
  'ckan.auth.anon_create_dataset': 'false',
  'ckan.auth.user_delete_groups': 'true',
  'ckan.auth.user_delete_organizations': 'true',
  'ckan.auth.create_unowned_dataset': 'true',
  'ckan.auth.create_default_api_keys': 'true',
  'ckan.auth.password_hash_iterations': '1000',
  'ckan.datastore.sqlsearch.enabled': 'true',
  // test-core.ini's allowed_functions_file (ckanext/datastore/tests/allowed_functions.txt)
  'ckan.datastore.sqlsearch.allowed_functions': 'upper "count"',
  'ckan.extra_resource_fields': 'alt_url',
  'ckan.locale_default': 'en',
  'ckan.datasets_per_page': '20',
  'smtp.mail_from': 'info@test.ckan.net',
}

const root = mkdtempSync(join(tmpdir(), 'ckan-suites-'))
const template = join(root, 'template.db')
const apiCompat = process.env.API_COMPAT ?? '2.9'
let epoch = 0

interface Current {
  app: App
  deps: Deps
  close: () => void
  file: string
  config: string
  site: { name: string; credential: Headers }
  credentials: Map<string, Headers>
}
let current: Current | null = null

async function open(file: string, overrides: Record<string, string>): Promise<Current> {
  const opened = await openCatalogDb(`file:${file}`)
  const { db, headProbe, writeExecutor, readExecutor } = opened
  const datastore = await openDatastore(datastoreUrl(undefined, `file:${file}`))
  const config = loadConfig({ ...PROFILE, ...overrides, 'ckan.api_compat': apiCompat })
  const dir = join(file, '..')
  const deps = buildDeps(config, db, {
    headProbe,
    writeExecutor,
    readExecutor,
    datastore,
    blobs: nodeBlobStore(join(dir, 'uploads')),
    mailer: nodeMailer(config),
    loader: nodeLoaderPorts(),
    schemas: await nodeSchemas(config),
  })
  await warmUp(deps)
  const sys = { ...systemContext(deps), ignoreAuth: true }
  const site = await callAction<{ name: string; apikey: string }>(sys, 'get_site_user', {})
  const cur: Current = {
    app: createApp(deps),
    deps,
    file,
    config: JSON.stringify(overrides),
    close: () => {
      deps.search.stop()
      datastore.close()
      opened.close()
    },
    site: { name: site.name, credential: {} },
    credentials: new Map(),
  }
  cur.site.credential = await credentialFor(cur, site.name)
  return cur
}

type Headers = Record<string, string>

/**
 * The headers that sign a user in: under 2.9 the user's legacy key (what CKAN 2.9's tests had);
 * from 2.10 the web session cookie with its CSRF token (CKAN 2.10's enable_cookie_auth_in_api),
 * which, unlike an API token made for the purpose, leaves nothing in the catalogue that a test
 * could count.
 */
async function credentialFor(cur: Current, user: string): Promise<Headers> {
  const known = cur.credentials.get(user)
  if (known) return known
  const sys = { ...systemContext(cur.deps), ignoreAuth: true }
  const shown = await callAction<{ id: string }>(sys, 'user_show', { id: user })
  let headers: Headers
  if (!apiAtLeast(cur.deps.config, '2.10')) {
    // CKAN 2.9 reads no session cookie on the API: the user's key, else a token made once
    // (read each time: user_generate_apikey replaces it)
    const row = await activeUser(cur.deps, shown.id)
    if (row?.apikey) return { Authorization: row.apikey }
    const made = await callAction<{ token: string }>(sys, 'api_token_create', { user: shown.id, name: 'ckan-suites harness' })
    headers = { Authorization: made.token }
  } else {
    const set = await sessionCookie(cur.deps, new URL('http://127.0.0.1/'), { id: shown.id })
    const session = set.split(';')[0]!
    const csrf = newCsrfToken()
    headers = { Cookie: `${session}; ${CSRF_COOKIE}=${csrf}`, 'X-CSRFToken': csrf }
  }
  cur.credentials.set(user, headers)
  return headers
}

/** The user a test names as the caller; one that does not exist is nobody, as in CKAN. */
async function callerNamed(cur: Current, user: string) {
  const sys = { ...systemContext(cur.deps), ignoreAuth: true }
  try {
    const shown = await callAction<{ id: string }>(sys, 'user_show', { id: user })
    return activeUser(cur.deps, shown.id)
  } catch (e) {
    if (e instanceof NotFound) return null
    throw e
  }
}

async function reset(clean: boolean, overrides: Record<string, string>): Promise<Current> {
  const config = JSON.stringify(overrides)
  if (current && !clean && current.config === config) return current
  const old = current
  current = null
  let file = old?.file
  old?.close()
  if (clean || !file) {
    if (file) rmSync(join(file, '..'), { recursive: true, force: true })
    const dir = join(root, `db-${epoch++}`)
    file = join(dir, 'catalogue.db')
    mkdirSync(dir, { recursive: true })
    copyFileSync(template, file)
  }
  current = await open(file, overrides)
  return current
}

async function main() {
  // a migrated empty database, copied for every clean start
  const first = await open(template, {})
  first.close()
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
  const port = Number(process.env.PORT ?? 0)
  const server = serve({ port, hostname: '127.0.0.1', fetch: async (req: Request) => {
    const url = new URL(req.url)
    try {
      if (url.pathname === '/__harness/reset') {
        const { clean, config } = (await req.json()) as { clean: boolean; config: Record<string, string> }
        const cur = await reset(clean, config ?? {})
        return json({ site_user: cur.site.name, credential: cur.site.credential })
      }
      if (url.pathname === '/__harness/credential') {
        const { user } = (await req.json()) as { user: string }
        if (!current) current = await reset(true, {})
        try {
          return json({ credential: await credentialFor(current, user) })
        } catch (e) {
          if (e instanceof NotFound) return json({ error: `no user ${user}` }, 404)
          throw e
        }
      }
      if (url.pathname.startsWith('/__harness/call/')) {
        const name = url.pathname.slice('/__harness/call/'.length)
        const { user, params } = (await req.json()) as { user: string | null; params: Record<string, unknown> }
        if (!current) current = await reset(true, {})
        const cur = current
        const caller = user ? await callerNamed(cur, user) : null
        try {
          const result = await callAction({ ...contextFor(cur.deps, caller), ignoreAuth: true }, name, params ?? {})
          return ok(name, result)
        } catch (e) {
          return fail(name, e)
        }
      }
    } catch (e) {
      return json({ error: String((e as Error)?.stack ?? e) }, 500)
    }
    if (!current) current = await reset(true, {})
    return current.app.fetch(req)
  } }, (info) => console.log(`Listening on http://127.0.0.1:${info.port}`))
  const stop = () => {
    server.close()
    current?.close()
    rmSync(root, { recursive: true, force: true })
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

void main()
