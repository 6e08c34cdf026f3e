// Benchmark 1: package_show and package_create over HTTP against the real Node server, with baselines.
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
import { corpus, dataset, type GeneratedDataset } from './lib/generate'
import { startServer } from './lib/server'
import { rawInsertDatasets } from './lib/raw-insert'

const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const CREATE_COUNT = Number(process.env.BENCH_CREATES ?? 10000)
const CREATE_CONNECTIONS = Number(process.env.BENCH_CREATE_CONNECTIONS ?? 16)

interface Result {
  rps: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  /** performance.now() of the last response (autocannon ends `amount` runs on a 1-second tick). */
  lastResponse: number
}

function run(opts: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    let lastResponse = 0
    const instance = autocannon(opts, (err, r) => {
      if (err) return reject(err)
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors,
        non2xx: r.non2xx,
        lastResponse,
      })
    })
    instance.on('response', () => (lastResponse = performance.now()))
  })
}

async function post(url: string, action: string, body: unknown, apikey: string) {
  const res = await fetch(`${url}/api/3/action/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: apikey },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as { success: boolean; result: any }
  if (!json.success) throw new Error(`${action}: ${JSON.stringify(json)}`)
  return json.result
}

/**
 * BENCH_SCHEMA=1: the server runs with a 30-field dataset schema (bench/fixtures/schema-30.yaml,
 * ckanext-scheming's format) and every created dataset fills its 18 fields beyond the core ones;
 * the raw libSQL reference then writes those values as the extras rows they are stored as.
 * BENCH_SCHEMA=extras sends the same values as free extras to a server without schemas.
 */
const WITH_SCHEMA = process.env.BENCH_SCHEMA === '1'
/** BENCH_SCHEMA=extras: no schema, the same values sent as free extras (the same rows stored): the A side of an A/B. */
const AS_EXTRAS = process.env.BENCH_SCHEMA === 'extras'
const SCHEMA_FILE = fileURLToPath(new URL('./fixtures/schema-30.yaml', import.meta.url))

function schemaValues(i: number): Record<string, unknown> {
  const pick = <T>(list: T[]) => list[i % list.length]!
  const v: Record<string, unknown> = {}
  for (let k = 0; k < 6; k++) v[`text_${k}`] = `value ${k} of dataset ${i}`
  for (let k = 0; k < 4; k++) v[`choice_${k}`] = pick(['a', 'b', 'c'])
  for (let k = 0; k < 2; k++) v[`multi_${k}`] = [pick(['x', 'y']), 'z']
  for (let k = 0; k < 2; k++) v[`date_${k}`] = `2024-0${1 + (i % 9)}-1${k}`
  v.when = '2024-05-01T10:20:30'
  v.contact_email = `desk${i}@example.org`
  v.notes_list = ['first', 'second']
  v.contacts = [{ name: 'Desk', email: `desk${i}@example.org` }]
  return v
}

/** The extras rows a schema's values are stored as (for the raw reference). */
const asExtras = (v: Record<string, unknown>) =>
  Object.entries(v).map(([key, value]) => ({ key, value: typeof value === 'string' ? value : JSON.stringify(value) }))

export async function catalogueBench() {
  const server = await startServer(WITH_SCHEMA ? { SCHEMING__DATASET_SCHEMAS: SCHEMA_FILE } : {})
  try {
    // A sysadmin made out of band, as `npm run admin -- sysadmin add` does.
    const { db, client } = await openCatalogDb(server.dbUrl)
    const admin = await addSysadmin(buildDeps(loadConfig({}), db), 'bench-admin')
    client.close()
    const key = admin.apikey!

    const c = corpus(7)
    const orgs: string[] = []
    for (let i = 0; i < 20; i++) orgs.push((await post(server.url, 'organization_create', { name: `org-${i}`, title: `Organization ${i}` }, key)).id)

    // package_create: a bounded number of creates from concurrent clients.
    const toCreate: GeneratedDataset[] = Array.from({ length: CREATE_COUNT }, (_, i) => dataset(c, i, orgs))
    const bodies = toCreate.map((d, i) =>
      JSON.stringify(
        WITH_SCHEMA ? { ...d, ...schemaValues(i) } : AS_EXTRAS ? { ...d, extras: [...d.extras, ...asExtras(schemaValues(i))] } : d,
      ),
    )
    let next = 0
    const started = performance.now()
    const created = await run({
      url: `${server.url}/api/3/action/package_create`,
      connections: CREATE_CONNECTIONS,
      amount: CREATE_COUNT,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: key },
          setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
        },
      ],
    })
    // to the last response: the run itself only ends on autocannon's next whole second; then the
    // search index catches up with what was created (it indexes at search time): indexing included
    const indexStart = performance.now()
    await post(server.url, 'package_search', { q: '', rows: 1 }, key)
    const indexSeconds = (performance.now() - indexStart) / 1000
    const createSeconds = (created.lastResponse - started) / 1000 + indexSeconds
    const createRate = CREATE_COUNT / createSeconds

    // Raw libSQL: the same rows, a transaction per dataset, into a fresh migrated database file.
    const raw = await rawInsertDatasets(
      WITH_SCHEMA || AS_EXTRAS ? toCreate.map((d, i) => ({ ...d, extras: [...d.extras, ...asExtras(schemaValues(i))] })) : toCreate,
    )

    // package_show vs the trivial JSON route of the same server.
    const names = toCreate.slice(0, 1000).map((d) => d.name)
    let k = 0
    const showRequest: autocannon.Request = {
      setupRequest: (req) => ({ ...req, path: `/api/3/action/package_show?id=${names[k++ % names.length]}` }),
    }
    await run({ url: `${server.url}/api/3`, connections: CONNECTIONS, duration: 2 })
    const trivial = await run({ url: `${server.url}/api/3`, connections: CONNECTIONS, duration: DURATION })
    await run({
      url: `${server.url}/api/3/action/package_show`,
      connections: CONNECTIONS,
      duration: 2,
      requests: [showRequest],
    })
    const show = await run({
      url: `${server.url}/api/3/action/package_show`,
      connections: CONNECTIONS,
      duration: DURATION,
      requests: [showRequest],
    })

    return {
      trivial,
      show,
      showRatio: show.rps / trivial.rps,
      created,
      createRate,
      indexSeconds,
      raw,
      createRatio: createRate / raw.rate,
    }
  } finally {
    await server.stop()
  }
}
