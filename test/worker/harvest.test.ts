// Harvesting in workerd: sources whose frequency is ALWAYS get their job from the Cron Trigger
// (the scheduled handler), which then runs gather and import against a local HTTP server: a
// DCAT-US data.json (dcat_json) and DCAT catalogues in Turtle, RDF/XML and JSON-LD (dcat_rdf: the
// RDF parsers run in the Worker).
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { startWorker, okWorker, type WorkerEnv } from './harness'
import { listen } from '../helpers/server'

const F = 'test/fixtures/harvest/'
const files: Record<string, [string, string]> = {
  '/data.json': ['data.json', 'application/json'],
  '/catalog.rdf': ['catalog.rdf', 'application/rdf+xml'],
  '/catalog.ttl': ['catalog-page1.ttl', 'text/turtle'],
  '/catalog-page2.ttl': ['catalog-page2.ttl', 'text/turtle'],
  '/catalog.jsonld': ['catalog.jsonld', 'application/ld+json'],
}

let env: WorkerEnv
let server: { url: string; close: () => Promise<void> }
beforeAll(async () => {
  const remote = new Hono().get('*', (c) => {
    const f = files[new URL(c.req.url).pathname]
    if (!f) return c.text('not here', 404)
    return c.body(readFileSync(F + f[0], 'utf8'), 200, { 'content-type': f[1] })
  })
  server = await listen(remote as never)
  env = await startWorker({ 'service.loader.allow_private_urls': 'true' })
}, 120_000)
afterAll(async () => {
  await env?.close()
  await server?.close()
})

type Scheduled = { scheduled(opts: { cron: string }): Promise<{ outcome: string }> }

describe('harvesting from the Cron Trigger', () => {
  it('creates due jobs and runs them: dcat_json and dcat_rdf sources', async () => {
    const sys = env.sysadmin
    const org = await okWorker(env.mf, 'organization_create', { name: 'edge-harvest' }, sys)
    const make = (name: string, path: string, type: string) =>
      okWorker(env.mf, 'harvest_source_create', { name, url: `${server.url}${path}`, source_type: type, frequency: 'ALWAYS', owner_org: org.id }, sys)
    const json = await make('edge-json', '/data.json', 'dcat_json')
    const sources = [json, await make('edge-rdf', '/catalog.rdf', 'dcat_rdf'), await make('edge-ttl', '/catalog.ttl', 'dcat_rdf'), await make('edge-jsonld', '/catalog.jsonld', 'dcat_rdf')]

    const worker = (await env.mf.getWorker()) as unknown as Scheduled
    // an event schedules the due sources, then runs their gather and the import it queues (a
    // second event finishes what the first's budget left)
    for (let i = 0; i < 2; i++) expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok')

    const added: Record<string, unknown> = {}
    for (const s of sources) {
      const jobs = await okWorker(env.mf, 'harvest_job_list', { source_id: s.id }, sys)
      // the first run (the list is newest first)
      const finished = jobs.filter((j: { status: string }) => j.status === 'Finished').at(-1)
      expect(finished, `${s.name}: ${JSON.stringify(jobs)}`).toBeDefined()
      const job = await okWorker(env.mf, 'harvest_job_show', { id: finished.id }, sys)
      added[s.name] = job.stats.added
      expect(job.stats.errored, s.name).toBe(0)
    }
    expect(added).toEqual({ 'edge-json': 2, 'edge-rdf': 2, 'edge-ttl': 3, 'edge-jsonld': 1 })

    const bridges = await okWorker(env.mf, 'package_show', { id: 'bridge-inspections' })
    expect(bridges.owner_org).toBe(org.id)
    expect(bridges.resources.map((r: { url: string }) => r.url)).toEqual(['https://county.example.gov/files/bridges.csv', 'https://county.example.gov/bridges/map'])
    expect((await okWorker(env.mf, 'package_show', { id: 'tide-gauge-readings' })).license_id).toBe('odc-odbl')
    expect((await okWorker(env.mf, 'package_show', { id: 'sea-ice-extent' })).resources[0].url).toBe('https://fjord.example.net/ice/')
    expect((await okWorker(env.mf, 'package_show', { id: 'heather-cover' })).resources[0].mimetype).toBe('application/geo+json')

    // ALWAYS is due again at the next event: nothing changed remotely, so nothing is written
    await worker.scheduled({ cron: '* * * * *' })
    const jobs = await okWorker(env.mf, 'harvest_job_list', { source_id: json.id }, sys)
    const done = jobs.filter((j: { status: string }) => j.status === 'Finished')
    expect(done.length).toBeGreaterThanOrEqual(2)
    const newest = await okWorker(env.mf, 'harvest_job_show', { id: done[0].id }, sys)
    expect(newest.stats).toMatchObject({ added: 0, updated: 0, 'not modified': 2 })
  }, 120_000)
})
