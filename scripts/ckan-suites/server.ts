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
import { userForKey } from '../../src/auth/api-key'
import { fail, ok } from '../../src/http/envelope'

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
  site: { name: string; credential: string }
  credentials: Map<string, string>
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
    site: { name: site.name, credential: '' },
    credentials: new Map(),
  }
  cur.site.credential = await credentialFor(cur, site.name)
  return cur
}

/** The user's legacy key under 2.9 (what CKAN 2.9's tests had), else an API token made once. */
async function credentialFor(cur: Current, user: string): Promise<string> {
  const known = cur.credentials.get(user)
  if (known) return known
  const sys = { ...systemContext(cur.deps), ignoreAuth: true }
  let credential: string | null = null
  if (!apiAtLeast(cur.deps.config, '2.10')) {
    const shown = await callAction<{ apikey?: string | null }>(sys, 'user_show', { id: user })
    credential = shown.apikey ?? null
  }
  if (!credential) {
    const made = await callAction<{ token: string }>(sys, 'api_token_create', { user, name: 'ckan-suites harness' })
    credential = made.token
  }
  cur.credentials.set(user, credential)
  return credential
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
        return json({ credential: await credentialFor(current, user) })
      }
      if (url.pathname.startsWith('/__harness/call/')) {
        const name = url.pathname.slice('/__harness/call/'.length)
        const { user, params } = (await req.json()) as { user: string | null; params: Record<string, unknown> }
        if (!current) current = await reset(true, {})
        const cur = current
        const caller = user ? await userForKey(cur.deps, await credentialFor(cur, user)) : null
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
