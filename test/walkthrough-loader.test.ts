// A publisher uploads a CSV over real HTTP and, with no other call, gets a searchable, dumpable DataStore table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobKinds } from '../src/jobs/kinds'
import { runOptionsFrom } from '../src/jobs/runner'
import { nodeJobRunners, type NodeJobRunner } from '../src/runtime/node-job-runner'
import { setup, type TestEnv } from './helpers/setup'
import { listen } from './helpers/server'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let runners: NodeJobRunner

beforeAll(async () => {
  t = await setup({ 'service.jobs.poll_ms': '50' })
  server = await listen(t.app)
  // what `npm start` runs beside the server: the in-process job runner
  runners = nodeJobRunners(t.deps.jobs, jobKinds, t.deps, runOptionsFrom(t.deps.config))
  runners.start()
})
afterAll(async () => {
  await runners?.stop()
  await server?.close()
})

const CITIES = ['Oslo', 'Bergen', 'Tromsø', 'Trondheim']

/** A CSV of `n` readings; `shift` changes every value so a reload is visible. */
function readings(n: number, shift = 0): string {
  const lines = ['station,city,level,measured']
  for (let i = 1; i <= n; i++) {
    const day = String((i % 28) + 1).padStart(2, '0')
    lines.push(`${i},${CITIES[i % 4]},${((i + shift) / 10).toFixed(1)},2026-02-${day}`)
  }
  return lines.join('\n') + '\n'
}

async function api(action: string, body: object | FormData, key?: string) {
  const headers: Record<string, string> = key ? { Authorization: key } : {}
  if (!(body instanceof FormData)) headers['content-type'] = 'application/json'
  const res = await fetch(`${server.url}/api/3/action/${action}`, {
    method: 'POST',
    headers,
    body: body instanceof FormData ? body : JSON.stringify(body),
  })
  return { status: res.status, ...((await res.json()) as { success: boolean; result?: any; error?: any }) }
}

async function ok(action: string, body: object | FormData, key?: string) {
  const r = await api(action, body, key)
  expect(r, `${action} ${JSON.stringify(r.error)}`).toMatchObject({ success: true })
  return r.result
}

/** Polls `check` until it returns something, for at most `ms`. */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const v = await check()
    if (v !== undefined) return v
    if (Date.now() > until) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 100))
  }
}

const upload = (fields: Record<string, string>, csv: string) => {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  form.append('upload', new Blob([csv], { type: 'text/csv' }), 'readings.csv')
  return form
}

describe('the loader over HTTP', () => {
  it('turns an uploaded CSV into a table without another call, and a new upload replaces its rows', async () => {
    const sys = (await t.make.sysadmin()).apikey
    const publisher = await t.make.user()
    await ok('organization_create', { name: 'walk-loader-org' }, sys)
    await ok('organization_member_create', { id: 'walk-loader-org', username: publisher.name, role: 'editor' }, sys)
    const ds = await ok('package_create', { name: 'walk-levels', owner_org: 'walk-loader-org' }, publisher.apikey)

    const res = await ok(
      'resource_create',
      upload({ package_id: ds.id, name: 'Levels', format: 'CSV' }, readings(10_000)),
      publisher.apikey,
    )
    expect(res.url_type).toBe('upload')

    // the rows arrive by themselves
    const total = async () => {
      const r = await api('datastore_search', { resource_id: res.id, limit: 0 })
      return r.success ? (r.result.total as number) : undefined
    }
    expect(await eventually(total)).toBe(10_000)
    const shown = await ok('resource_show', { id: res.id })
    expect(shown.datastore_active).toBe(true)

    const oslo = await ok('datastore_search', { resource_id: res.id, filters: { city: 'Oslo' }, limit: 1 })
    expect(oslo.total).toBe(2_500)
    expect(Object.fromEntries(oslo.fields.map((f: { id: string; type: string }) => [f.id, f.type]))).toMatchObject({
      station: 'int4',
      city: 'text',
      level: 'numeric',
    })
    const bergen = await ok('datastore_search', { resource_id: res.id, q: 'Bergen', limit: 1 })
    expect(bergen.total).toBe(2_500)

    const dump = await fetch(`${server.url}/datastore/dump/${res.id}`)
    expect(dump.status).toBe(200)
    // CKAN's dump: the header as Python's csv writes it (CRLF), rows as COPY writes them (LF)
    const lines = (await dump.text()).trim().split(/\r?\n/)
    expect(lines).toHaveLength(10_001)
    expect(lines[0]).toBe('_id,station,city,level,measured')

    const status = await ok('xloader_status', { resource_id: res.id }, publisher.apikey)
    expect(status.status).toBe('complete')
    expect(status.task_info?.rows_loaded ?? status.rows_loaded).toBe(10_000)

    // a changed file replaces the rows
    await ok('resource_update', upload({ id: res.id, name: 'Levels', format: 'CSV' }, readings(4_000, 7)), publisher.apikey)
    expect(await eventually(async () => ((await total()) === 4_000 ? 4_000 : undefined))).toBe(4_000)
    const first = await ok('datastore_search', { resource_id: res.id, filters: { station: 1 } })
    expect(first.records[0].level).toBe(0.8)
  }, 120_000)
})
