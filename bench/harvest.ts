// Benchmark: a `ckan` harvest source of 10,000 datasets (a second server) harvested from scratch,
// then again after 100 remote changes, beside this catalogue's own package_create rate.
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
import { corpus, dataset } from './lib/generate'
import { startServer, type RunningServer } from './lib/server'
import { watchPeak } from './lib/rss'
import { saveResults } from './lib/results'

const N = Number(process.env.BENCH_HARVEST_DATASETS ?? 10000)
const CHANGES = Number(process.env.BENCH_HARVEST_CHANGES ?? 100)
const CLIENTS = Number(process.env.BENCH_CREATE_CONNECTIONS ?? 16)

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

async function sysadminKey(server: RunningServer, name: string): Promise<string> {
  const { db, client } = await openCatalogDb(server.dbUrl)
  const admin = await addSysadmin(buildDeps(loadConfig({}), db), name)
  client.close()
  return admin.apikey!
}

/** Runs `count` calls of `fn` from `clients` concurrent loops; the seconds they took. */
async function pool(count: number, clients: number, fn: (i: number) => Promise<unknown>) {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) await fn(next++)
    }),
  )
  return (performance.now() - started) / 1000
}

/** Creates a harvest job and waits for it to finish; its dict and the seconds it took. */
async function harvest(server: RunningServer, key: string, source: string) {
  const job = await post(server.url, 'harvest_job_create', { source_id: source }, key)
  for (;;) {
    await new Promise((r) => setTimeout(r, 500))
    const shown = await post(server.url, 'harvest_job_show', { id: job.id }, key)
    // the job's own times (created to finished), not the polls' half-second steps
    if (shown.status === 'Finished' || shown.status === 'Aborted')
      return { job: shown, seconds: (Date.parse(`${shown.finished}Z`) - Date.parse(`${shown.created}Z`)) / 1000 }
  }
}

export async function harvestBench() {
  const remote = await startServer()
  const local = await startServer({
    ...(process.env.BENCH_HARVEST_LOCAL_ENV ? JSON.parse(process.env.BENCH_HARVEST_LOCAL_ENV) : {}),
    SERVICE__LOADER__ALLOW_PRIVATE_URLS: 'true',
    SERVICE__JOBS__POLL_MS: '50',
    SERVICE__HARVEST__SCHEDULE_SECONDS: '0',
  })
  try {
    const remoteKey = await sysadminKey(remote, 'bench-remote')
    const localKey = await sysadminKey(local, 'bench-local')
    const c = corpus(11)
    const orgs: string[] = []
    for (let i = 0; i < 20; i++)
      orgs.push((await post(remote.url, 'organization_create', { name: `org-${i}`, title: `Organization ${i}` }, remoteKey)).id)
    const datasets = Array.from({ length: N }, (_, i) => dataset(c, i, orgs))

    // The reference: this catalogue's own package_create, the same datasets, concurrent clients.
    const createSeconds = await pool(N, CLIENTS, (i) => post(remote.url, 'package_create', datasets[i], remoteKey))
    const createRate = N / createSeconds

    // A live site's search index is up to date; this one catches up (indexes what was just
    // created) at its first search, so that is done before the harvest, not during it.
    await fetch(`${remote.url}/api/3/action/package_search?rows=0`).then((r) => r.json())
    // what the remote alone takes to list them all, as the harvester asks (pages of 1,000 by id)
    const listStarted = performance.now()
    for (let start = 0; start < N; start += 1000) {
      const res = await fetch(`${remote.url}/api/3/action/package_search?rows=1000&start=${start}&sort=id%20asc`)
      await res.json()
    }
    const listSeconds = (performance.now() - listStarted) / 1000

    const org = await post(local.url, 'organization_create', { name: 'harvested', title: 'Harvested' }, localKey)
    await post(local.url, 'harvest_source_create', { name: 'bench-remote', url: remote.url, source_type: 'ckan', owner_org: org.id }, localKey)

    const watch = watchPeak(local.child.pid!)
    const full = await harvest(local, localKey, 'bench-remote')
    const fullPeak = watch.stop()
    if (full.job.stats.added !== N) throw new Error(`full harvest: ${JSON.stringify(full.job)}`)
    const fullRate = N / full.seconds
    const span = (a: string, b: string) => (Date.parse(`${b}Z`) - Date.parse(`${a}Z`)) / 1000

    // 100 remote changes, then an incremental run
    await pool(CHANGES, CLIENTS, (i) =>
      post(remote.url, 'package_patch', { id: datasets[i * Math.floor(N / CHANGES)]!.name, notes: `changed ${i}` }, remoteKey),
    )
    const incremental = await harvest(local, localKey, 'bench-remote')
    if (incremental.job.stats.updated !== CHANGES) throw new Error(`incremental harvest: ${JSON.stringify(incremental.job)}`)

    return saveResults('harvest', {
      datasets: N,
      changes: CHANGES,
      packageCreate: { clients: CLIENTS, seconds: +createSeconds.toFixed(2), rate: +createRate.toFixed(0) },
      remoteListingSeconds: +listSeconds.toFixed(2),
      full: {
        seconds: +full.seconds.toFixed(2),
        gatherSeconds: span(full.job.gather_started, full.job.gather_finished),
        importSeconds: span(full.job.gather_finished, full.job.finished),
        rate: +fullRate.toFixed(0),
        ratio: +(fullRate / createRate).toFixed(3),
        peakRssMb: +(fullPeak.peak / 2 ** 20).toFixed(0),
        rssBeforeMb: +(watch.before / 2 ** 20).toFixed(0),
      },
      incremental: {
        seconds: +incremental.seconds.toFixed(2),
        gatherSeconds: span(incremental.job.gather_started, incremental.job.gather_finished),
        importSeconds: span(incremental.job.gather_finished, incremental.job.finished),
        stats: incremental.job.stats,
      },
      targets: { fullRatio: 0.5, incrementalSeconds: 10 },
    })
  } finally {
    await Promise.all([remote.stop(), local.stop()])
  }
}
