// The loader job end to end: files from a loopback server or the blob store, through the job
// runner, into DataStore tables read back with datastore_search and xloader_status.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobKinds } from '../../src/jobs/kinds'
import { drain, runOnce } from '../../src/jobs/runner'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

/** Files served on loopback by path; a gate holds a response after its first part. */
interface Served {
  body: Uint8Array
  type?: string
  gate?: { after: number; open: Promise<void> }
}
const files = new Map<string, Served>()
let server: Server
let base = ''

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const f = files.get(req.url ?? '')
    if (!f) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': f.type ?? 'text/csv' })
    if (f.gate) {
      res.write(f.body.subarray(0, f.gate.after))
      await f.gate.open
      res.end(f.body.subarray(f.gate.after))
    } else res.end(f.body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const enc = (s: string) => new TextEncoder().encode(s)
let n = 0

async function linked(t: TestEnv, as: Caller, body: Uint8Array, format = 'CSV', fields = {}) {
  const path = `/f${++n}.${format.toLowerCase()}`
  files.set(path, { body })
  const ds = await t.make.dataset(as)
  return t.ok('resource_create', { package_id: ds.id, url: base + path, format, ...fields }, as)
}

async function uploaded(t: TestEnv, as: Caller, name: string, body: Uint8Array, format: string) {
  const ds = await t.make.dataset(as)
  const id = crypto.randomUUID()
  await t.deps.blobs.put(`resources/${id}/${name}`, body)
  return t.ok(
    'resource_create',
    {
      package_id: ds.id,
      id,
      url: `http://test.ckan.net/dataset/${ds.id}/resource/${id}/download/${name}`,
      url_type: 'upload',
      format,
    },
    as,
  )
}

/**
 * Runs the queued jobs; a queue error (not a job's own failure, which tests check through
 * xloader_status) fails the test with its reason rather than leaving a job unrun.
 */
async function runJobs(t: TestEnv) {
  const ran = await drain(t.deps.jobs, jobKinds, t.deps)
  if (ran.last.status === 'error') throw new Error(`job queue error: ${String((ran.last as { error?: unknown }).error)}`)
  return ran
}

/** datastore_search of the loaded table; when there is none, the load's own status says why. */
async function search(t: TestEnv, id: string, extra = {}) {
  const r = await t.call('datastore_search', { resource_id: id, sort: '_id', ...extra })
  if (r.status === 200 && r.body.success) return r.body.result
  const status = await t.call('xloader_status', { resource_id: id })
  throw new Error(`datastore_search failed (${r.status}): ${JSON.stringify(r.body.error)}; xloader_status: ${JSON.stringify(status.body.result ?? status.body.error)}`)
}

const types = (r: { fields: { id: string; type: string }[] }) =>
  Object.fromEntries(r.fields.filter((f) => f.id !== '_id').map((f) => [f.id, f.type]))

describe('xloader job', () => {
  let t: TestEnv
  let admin: Caller
  beforeAll(async () => {
    t = await setup({ 'service.loader.allow_private_urls': 'true' })
    admin = await t.make.sysadmin()
  })

  it('loads a linked comma CSV with guessed types and reports it in xloader_status', async () => {
    const csv = 'id,price,day,at,name,zip\n1,2.5,2024-01-31,2024-01-31 10:00:00,alpha,007\n2,-3,2024-02-01,2024-02-01T11:30:00,beta,010\n'
    const res = await linked(t, admin, enc(csv))
    expect((await t.ok('xloader_status', { resource_id: res.id }, admin)).status).toBe('pending')
    const ranOut = await runJobs(t)
    // the load, then the column profile it asked for
    expect(ranOut.ran).toBe(2)
    expect((await t.ok('datastore_info', { id: res.id, include_profile: true }, admin)).profile).toMatchObject({ status: 'current', rows: 2 })
    const r = await search(t, res.id)
    expect(types(r)).toEqual({ id: 'int4', price: 'numeric', day: 'date', at: 'timestamp', name: 'text', zip: 'text' })
    expect(r.records.map((x: Record<string, unknown>) => [x.id, x.name, x.zip])).toEqual([
      [1, 'alpha', '007'],
      [2, 'beta', '010'],
    ])
    const st = await t.ok('xloader_status', { resource_id: res.id }, admin)
    expect(st).toMatchObject({ status: 'complete', rows_loaded: 2, error: null })
    expect(st.task_info).toMatchObject({ status: 'finished', rows_loaded: 2 })
    const shown = await t.ok('resource_show', { id: res.id })
    expect(shown.datastore_active).toBe(true)
    const views = await t.ok('resource_view_list', { id: res.id })
    expect(views.map((v: { view_type: string }) => v.view_type)).toContain('recline_view')
  })

  it('reads an uploaded Latin-1 file with semicolons', async () => {
    const latin1 = Uint8Array.from([...'name;city\nRen'].map((c) => c.charCodeAt(0)).concat(
      [0xe9, ...[...';Z'].map((c) => c.charCodeAt(0)), 0xfc, ...[...'rich\n'].map((c) => c.charCodeAt(0))],
    ))
    const res = await uploaded(t, admin, 'people.csv', latin1, 'CSV')
    await runJobs(t)
    expect((await search(t, res.id)).records).toMatchObject([{ name: 'René', city: 'Zürich' }])
  })

  it('reads a TSV with a byte-order mark and newlines inside quotes', async () => {
    const tsv = '\ufeffkey\tnote\n1\t"two\nlines"\n2\tplain\n'
    const res = await uploaded(t, admin, 'notes.tsv', enc(tsv), 'TSV')
    await runJobs(t)
    const r = await search(t, res.id)
    expect(types(r)).toEqual({ key: 'int4', note: 'text' })
    expect(r.records.map((x: Record<string, unknown>) => x.note)).toEqual(['two\nlines', 'plain'])
  })

  it('finds the tab delimiter of a linked CSV by itself', async () => {
    const res = await linked(t, admin, enc('a\tb\n1\tx\n2\ty\n'))
    await runJobs(t)
    expect((await search(t, res.id)).records).toMatchObject([{ a: 1, b: 'x' }, { a: 2, b: 'y' }])
  })

  it('loads only the first worksheet of an XLSX, with numbers and dates typed', async () => {
    const wb = new ExcelJS.Workbook()
    const first = wb.addWorksheet('data')
    first.addRow(['count', 'ratio', 'when', 'label'])
    first.addRow([3, 0.25, new Date(Date.UTC(2024, 0, 31, 12, 30)), 'x'])
    first.addRow([4, 1.5, new Date(Date.UTC(2024, 1, 1)), 'y'])
    const second = wb.addWorksheet('notes')
    second.addRow(['other'])
    second.addRow(['not loaded'])
    const bytes = new Uint8Array(await wb.xlsx.writeBuffer())
    const res = await uploaded(t, admin, 'book.xlsx', bytes, 'XLSX')
    await runJobs(t)
    const r = await search(t, res.id)
    expect(types(r)).toEqual({ count: 'int4', ratio: 'numeric', when: 'timestamp', label: 'text' })
    expect(r.records).toMatchObject([
      { count: 3, ratio: 0.25, when: '2024-01-31T12:30:00', label: 'x' },
      { count: 4, ratio: 1.5, when: '2024-02-01T00:00:00', label: 'y' },
    ])
  })

  it('refuses duplicate and blank headers with a job error naming them', async () => {
    const dup = await linked(t, admin, enc('a,b,A\n1,2,3\n'))
    const blank = await linked(t, admin, enc('a,,c\n1,2,3\n'))
    await runJobs(t)
    const d = await t.ok('xloader_status', { resource_id: dup.id }, admin)
    expect(d.status).toBe('error')
    expect(d.error.message).toBe('Duplicate column headers are not supported: "A"')
    const b = await t.ok('xloader_status', { resource_id: blank.id }, admin)
    expect(b.error.message).toBe('Blank column headers are not supported: column 2')
    const ds = await t.call('datastore_search', { resource_id: dup.id })
    expect(ds.status).toBe(404)
  })

  it('types a column as text when a value past the sample does not fit its guess', async () => {
    const lines = ['n,v']
    for (let i = 0; i < 7000; i++) lines.push(`${i},${i === 6500 ? 'n/a' : i}`)
    const res = await linked(t, admin, enc(lines.join('\n')))
    await runJobs(t)
    const r = await search(t, res.id, { limit: 1, offset: 6500 })
    expect(types(r)).toEqual({ n: 'int4', v: 'text' })
    expect(r.total).toBe(7000)
    expect(r.records[0]).toMatchObject({ n: 6500, v: 'n/a' })
  })

  it('honours type_override on the next load and keeps the data dictionary', async () => {
    const res = await linked(t, admin, enc('code,label\n1,a\n2,b\n'))
    await runJobs(t)
    expect(types(await search(t, res.id))).toEqual({ code: 'int4', label: 'text' })
    await t.ok(
      'datastore_create',
      {
        resource_id: res.id,
        force: true,
        fields: [
          { id: 'code', info: { type_override: 'text', label: 'Code' } },
          { id: 'label', info: { type_override: 'numeric' } },
        ],
      },
      admin,
    )
    // the file is unchanged: only ignore_hash loads it again
    expect(await t.ok('xloader_submit', { resource_id: res.id, ignore_hash: true }, admin)).toBe(true)
    await runJobs(t)
    const st = await t.ok('xloader_status', { resource_id: res.id }, admin)
    // "a" does not fit the override numeric: the load fails and says why, old rows stay
    expect(st.status).toBe('error')
    expect(st.error.message).toContain('column "label"')
    expect((await search(t, res.id)).total).toBe(2)
    await t.ok(
      'datastore_create',
      { resource_id: res.id, force: true, fields: [{ id: 'code', info: { type_override: 'text', label: 'Code' } }, { id: 'label', info: {} }] },
      admin,
    )
    await t.ok('xloader_submit', { resource_id: res.id, ignore_hash: true }, admin)
    await runJobs(t)
    const r = await search(t, res.id)
    expect(r.fields.find((f: { id: string }) => f.id === 'code')).toEqual({
      id: 'code',
      type: 'text',
      info: { type_override: 'text', label: 'Code' },
    })
    expect(r.records.map((x: Record<string, unknown>) => x.code)).toEqual(['1', '2'])
  })

  it('keeps the old rows visible until the new load is complete', async () => {
    const res = await linked(t, admin, enc('k,v\n1,old\n2,old\n'))
    await runJobs(t)
    const lines = ['k,v']
    for (let i = 0; i < 12000; i++) lines.push(`${i},new`)
    const body = enc(lines.join('\n') + '\n')
    let release!: () => void
    const path = new URL(res.url).pathname
    files.set(path, { body, gate: { after: Math.floor(body.length * 0.9), open: new Promise((r) => (release = r)) } })
    await t.ok('xloader_submit', { resource_id: res.id }, admin)
    const job = runOnce(t.deps.jobs, jobKinds, t.deps)
    // wait until rows sit in the shadow table, i.e. batches were written
    for (let i = 0; i < 200; i++) {
      const { rows } = await t.deps.datastore!.query(
        `SELECT count(*) FROM sqlite_schema WHERE name = ?`,
        [`_load_${res.id}`],
      )
      if (Number(rows[0]![0]) > 0) {
        const c = await t.deps.datastore!.query(`SELECT count(*) FROM "_load_${res.id}"`)
        if (Number(c.rows[0]![0]) > 0) break
      }
      await new Promise((r) => setTimeout(r, 20))
    }
    const during = await search(t, res.id)
    expect(during.total).toBe(2)
    expect(during.records[0].v).toBe('old')
    release()
    expect((await job).status).toBe('finished')
    const after = await search(t, res.id, { q: 'new' })
    expect(after.total).toBe(12000)
    expect((await search(t, res.id, { filters: { v: 'old' } })).total).toBe(0)
  })

  it('loads the file of a datastore_create with resource.url', async () => {
    const path = `/dc${++n}.csv`
    files.set(path, { body: enc('x\n1\n') })
    const ds = await t.make.dataset(admin)
    const out = await t.ok('datastore_create', { resource: { package_id: ds.id, url: base + path, format: 'CSV' } }, admin)
    expect(out.resource_id).toBeTruthy()
    const queued = await t.deps.jobs.list()
    expect(queued.map((j) => (j.payload as { resource_id: string }).resource_id)).toContain(out.resource_id)
    await runJobs(t)
    expect((await search(t, out.resource_id)).records).toMatchObject([{ x: 1 }])
  })

  it('lets a load give way to a later one of the same resource still queued', async () => {
    // the resource changes three times before a runner gets to it: only the last file is read
    const res = await linked(t, admin, enc('a\n1\n'))
    const paths: string[] = []
    for (const i of [2, 3]) {
      const path = `/again-${i}.csv`
      files.set(path, { body: enc(`a\n${'9\n'.repeat(i)}`) })
      paths.push(path)
      await t.ok('resource_patch', { id: res.id, url: base + path }, admin)
    }
    const jobs = await t.deps.jobs.list({ status: ['queued'] })
    const mine = jobs.filter((j) => (j.payload as { resource_id: string }).resource_id === res.id)
    expect(mine).toHaveLength(3)
    await runJobs(t)
    const done = await Promise.all(mine.map((j) => t.deps.jobs.show(j.id)))
    expect(done.map((j) => j!.status)).toEqual(['finished', 'finished', 'finished'])
    expect(done.map((j) => j!.result)).toEqual([
      { resource_id: res.id, superseded_by: mine[1]!.id },
      { resource_id: res.id, superseded_by: mine[2]!.id },
      { resource_id: res.id, rows_loaded: 3 },
    ])
    expect((await search(t, res.id)).total).toBe(3)
    expect(await t.ok('xloader_status', { resource_id: res.id }, admin)).toMatchObject({ status: 'complete', rows_loaded: 3 })
  })

  it('queues no load for a format it does not read, and again when the URL changes', async () => {
    const ds = await t.make.dataset(admin)
    const res = await t.ok('resource_create', { package_id: ds.id, url: base + '/x.json', format: 'JSON' }, admin)
    expect((await t.call('xloader_status', { resource_id: res.id }, admin)).status).toBe(404)
    await t.ok('resource_patch', { id: res.id, format: 'CSV', url: base + '/nothing-here.csv' }, admin)
    expect((await t.ok('xloader_status', { resource_id: res.id }, admin)).status).toBe('pending')
    await runJobs(t)
    const st = await t.ok('xloader_status', { resource_id: res.id }, admin)
    expect(st.error.message).toContain('HTTP 404')
  })
})

describe('xloader_submit ignore_hash', () => {
  let t: TestEnv
  let admin: Caller
  beforeAll(async () => {
    t = await setup({ 'service.loader.allow_private_urls': 'true' })
    admin = await t.make.sysadmin()
  })

  /** Adds a row the file does not have: it stays only while the table is not loaded again. */
  const addStray = (id: string) =>
    t.ok('datastore_upsert', { resource_id: id, method: 'insert', force: true, records: [{ k: 99 }] }, admin)
  const total = async (id: string) => (await search(t, id)).total
  const submit = async (id: string, extra = {}) => {
    expect(await t.ok('xloader_submit', { resource_id: id, ...extra }, admin)).toBe(true)
    await runJobs(t)
    return t.ok('xloader_status', { resource_id: id }, admin)
  }

  it('skips an unchanged upload unless ignore_hash is given', async () => {
    const res = await uploaded(t, admin, 'same.csv', enc('k\n1\n2\n'), 'CSV')
    await runJobs(t)
    expect(await total(res.id)).toBe(2)
    await addStray(res.id)
    const st = await submit(res.id)
    expect(st).toMatchObject({ status: 'complete', rows_loaded: 2, error: null })
    expect(st.task_info.logs.map((l: { message: string }) => l.message)).toContain(
      'The file is unchanged: not loaded again',
    )
    expect(await total(res.id)).toBe(3)
    expect(await submit(res.id, { ignore_hash: 'true' })).toMatchObject({ status: 'complete', rows_loaded: 2 })
    expect(await total(res.id)).toBe(2)
  })

  it('loads an upload whose bytes changed', async () => {
    const res = await uploaded(t, admin, 'grows.csv', enc('k\n1\n'), 'CSV')
    await runJobs(t)
    await t.deps.blobs.put(`resources/${res.id}/grows.csv`, enc('k\n1\n2\n3\n'), { contentType: 'text/csv' })
    expect(await submit(res.id)).toMatchObject({ status: 'complete', rows_loaded: 3 })
    expect(await total(res.id)).toBe(3)
  })

  it('loads a new upload even when a runner claims the job before the file is in place', async () => {
    // the write commits (queuing the load) before its file moves from staging to the resource's
    // key: a runner quick enough used to read the old file, find its hash unchanged and keep the
    // old rows
    const post = (action: string, fields: Record<string, string>, csv: string) => {
      const form = new FormData()
      for (const [k, v] of Object.entries(fields)) form.append(k, v)
      form.append('upload', new Blob([csv], { type: 'text/csv' }), 'levels.csv')
      return t.app.request(`/api/3/action/${action}`, { method: 'POST', headers: { Authorization: admin.apikey }, body: form })
    }
    const ds = await t.make.dataset(admin)
    const created = await post('resource_create', { package_id: ds.id, format: 'CSV' }, 'k\n1\n2\n')
    const res = ((await created.json()) as { result: { id: string } }).result
    await runJobs(t)
    expect(await total(res.id)).toBe(2)

    const blobs = t.deps.blobs
    const move = blobs.move.bind(blobs)
    let moved = false
    blobs.move = async (from, to) => {
      await new Promise((r) => setTimeout(r, 400))
      await move(from, to)
      moved = true
    }
    try {
      const updating = post('resource_update', { id: res.id, format: 'CSV' }, 'k\n1\n2\n3\n4\n')
      const queued = async () =>
        (await t.deps.jobs.list({ status: ['queued'] })).some((j) => (j.payload as { resource_id: string }).resource_id === res.id)
      while (!(await queued())) await new Promise((r) => setTimeout(r, 5))
      expect(moved).toBe(false)
      const [ran] = await Promise.all([runJobs(t), updating])
      expect(ran.ran).toBeGreaterThan(0)
    } finally {
      blobs.move = move
    }
    const st = await t.ok('xloader_status', { resource_id: res.id }, admin)
    expect(st).toMatchObject({ status: 'complete', rows_loaded: 4 })
    expect(await total(res.id)).toBe(4)
  })

  it('hashes a linked file while loading it and keeps the table when it is unchanged', async () => {
    const res = await linked(t, admin, enc('k\n5\n6\n'))
    await runJobs(t)
    await addStray(res.id)
    expect(await submit(res.id)).toMatchObject({ status: 'complete', rows_loaded: 2 })
    expect(await total(res.id)).toBe(3)
    files.set(new URL(res.url).pathname, { body: enc('k\n5\n6\n7\n') })
    expect(await submit(res.id)).toMatchObject({ status: 'complete', rows_loaded: 3 })
    expect(await total(res.id)).toBe(3)
    expect((await search(t, res.id, { filters: { k: 99 } })).total).toBe(0)
  })

  it('loads again after a failed load only when the file changed or ignore_hash is given', async () => {
    const res = await linked(t, admin, enc('k\n1\n'))
    await runJobs(t)
    const path = new URL(res.url).pathname
    files.delete(path)
    expect((await submit(res.id)).status).toBe('error')
    files.set(path, { body: enc('k\n1\n') })
    await addStray(res.id)
    expect((await submit(res.id)).status).toBe('complete')
    expect(await total(res.id)).toBe(2) // the last successful load's hash was kept through the error
  })
})

describe('xloader_submit and xloader_status', () => {
  let t: TestEnv
  let admin: Caller
  beforeAll(async () => {
    t = await setup()
    admin = await t.make.sysadmin()
  })

  it('refuses a loopback URL by default', async () => {
    const res = await linked(t, admin, enc('a\n1\n'))
    await runJobs(t)
    const st = await t.ok('xloader_status', { resource_id: res.id }, admin)
    expect(st.status).toBe('error')
    expect(st.error.message).toMatch(/^Refusing to fetch http:\/\/127\.0\.0\.1:\d+: it is a loopback/)
  })

  it('answers 404 for an unknown resource and asks for resource_id', async () => {
    const r = await t.call('xloader_status', { resource_id: 'nope' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.__type).toBe('Not Found Error')
    const s = await t.call('xloader_submit', {}, admin)
    expect(s.status).toBe(409)
    expect(s.body.error).toMatchObject({ __type: 'Validation Error', resource_id: ['Missing value'] })
  })

  it("hides a private dataset's status from callers who may not edit it", async () => {
    const owner = await t.make.user()
    const org = await t.ok('organization_create', { name: `org-${crypto.randomUUID().slice(0, 8)}` }, owner)
    const ds = await t.make.dataset(owner, { owner_org: org.id, private: true })
    const res = await t.ok('resource_create', { package_id: ds.id, url: 'http://example.com/a.csv', format: 'CSV' }, owner)
    const stranger = await t.make.user()
    for (const as of [stranger, null]) {
      for (const action of ['xloader_status', 'xloader_submit', 'datapusher_status', 'datapusher_submit']) {
        const r = await t.call(action, { resource_id: res.id }, as)
        expect(r.status, action).toBe(403)
        expect(r.body.error.__type).toBe('Authorization Error')
      }
    }
    const st = await t.ok('datapusher_status', { resource_id: res.id }, owner)
    expect(st).toMatchObject({ status: 'pending', job_key: null })
    expect(await t.ok('datapusher_submit', { resource_id: res.id }, owner)).toBe(true)
  })
})
