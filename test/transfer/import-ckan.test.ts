// import-ckan: a second instance of this app serving CKAN's API as 2.9 and as 2.11 (users,
// private datasets, uploads, DataStore tables) copied over HTTP with a sysadmin's key, cut short
// once and resumed; then every object compared with the source's.
import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CkanSource, httpCall, httpDownload } from '../../src/transfer/ckan-source'
import { importCatalogue, reportText } from '../../src/transfer/importer'
import type { TransferSource } from '../../src/transfer/source'
import { ensureSiteUser } from '../../src/model/site-user'
import { setup, type TestEnv } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'
import { expectSameCatalogue, populate, servedInstance, type Populated } from './fixture'
import { expectSpecShape } from './spec-shapes'

let src: Awaited<ReturnType<typeof servedInstance>>
let data: Populated

/** The actions the importer called on the source and what they answered. */
let read: { name: string; params: Record<string, any>; result: unknown }[] = []

const remote = (key: string, tablePage = 500): TransferSource => {
  const call = httpCall(src.url, key)
  return new CkanSource({
    label: src.url,
    call: async (name, params) => {
      const result = await call(name, params)
      read.push({ name, params, result })
      return result
    },
    download: httpDownload(src.url, key),
    tablePage,
  })
}

/** The source, but the copy stops (as a killed process would) in the middle of the nth dataset's table. */
function cutShort(inner: TransferSource, atDataset: number): TransferSource {
  let n = 0
  return Object.assign(Object.create(inner), {
    datasets: async function* () {
      for await (const d of inner.datasets()) {
        if (++n > atDataset) throw new Error('interrupted')
        yield d
      }
    },
    table: async (r: Record<string, any>) => {
      const table = await inner.table(r)
      if (!table || n < atDataset) return table
      return {
        ...table,
        pages: async function* () {
          for await (const p of table.pages()) {
            yield p
            throw new Error('interrupted')
          }
        },
      }
    },
  })
}

describe.each(['2.9', '2.11'])('import-ckan from a CKAN %s API', (version) => {
  let dst: TestEnv
  beforeAll(async () => {
    src = await servedInstance({ 'service.api_compat': version })
    data = await populate(src.t)
  })
  afterAll(() => src.close())

  it('copies a site, resumes after an interruption, and keeps every object', async () => {
    dst = await setup()
    const dstAdmin = await dst.make.sysadmin()
    // the table dataset (the 3rd created) is cut short after its first page of rows
    const order = (await src.t.ok('package_search', { include_private: true, include_drafts: true, rows: 100, sort: 'metadata_created asc, id asc' }, data.admin)).results
    const tableAt = order.findIndex((d: any) => d.id === data.datasets[2]!.id) + 1
    read = []
    await expect(importCatalogue(dst.deps, cutShort(remote(data.admin.apikey), tableAt))).rejects.toThrow('interrupted')
    // what was cut short is here in part: half its rows
    const half = await dst.ok('datastore_search', { resource_id: data.table.resource.id, limit: 0 }, dstAdmin)
    expect(half.total).toBe(500)

    const report = await importCatalogue(dst.deps, remote(data.admin.apikey))
    const text = reportText(report)
    expect(report.failed, text).toEqual({ users: 0, organizations: 0, groups: 0, vocabularies: 0, datasets: 0, files: 0, tables: 0, views: 0, activities: 0 })
    // the first run's users, organizations and finished datasets are skipped, the rest copied
    expect(report.copied.users).toBe(0)
    expect(report.skipped.users).toBeGreaterThanOrEqual(4)
    expect(report.skipped.datasets).toBe(tableAt - 1)
    expect(report.copied.datasets).toBe(order.length - tableAt + 1)
    expect(report.copied.tables).toBeGreaterThanOrEqual(1)
    expect(text).toMatch(/datasets\s+\d+ copied\s+\d+ skipped/)

    const siteUser = (await ensureSiteUser(src.t.deps)).user.name
    await expectSameCatalogue(
      { t: src.t, url: src.url, admin: data.admin },
      { t: dst, url: 'http://test.ckan.net', admin: dstAdmin },
      { siteUsers: [siteUser, (await ensureSiteUser(dst.deps)).user.name, dstAdmin.name] },
    )

    // what both runs read has CKAN's shapes (2.9's, checked against the spec, under 2.9)
    if (version === '2.9') {
      expect(new Set(read.map((r) => r.name))).toEqual(
        new Set(['status_show', 'user_list', 'organization_list', 'organization_show', 'group_list', 'group_show', 'vocabulary_list', 'package_search', 'resource_view_list', 'datastore_search', 'package_activity_list', 'organization_activity_list', 'group_activity_list', 'activity_show', 'scheming_dataset_schema_list', 'scheming_organization_schema_list', 'scheming_group_schema_list']),
      )
      for (const r of read) expectSpecShape(r.name, r.params, r.result)
    }

    // a third run finds everything here
    const again = await importCatalogue(dst.deps, remote(data.admin.apikey))
    expect(again.copied.datasets + again.copied.users + again.copied.organizations).toBe(0)
    expect(again.skipped.datasets).toBe(order.length)
  })

  it('gives each copied user a reset link, and no password', async () => {
    const t = await setup()
    const report = await importCatalogue(t.deps, remote(data.admin.apikey))
    const editor = data.users[0]!
    const link = report.resetLinks.find((l) => l.name === editor.name)
    expect(link?.mailed).toBe(false)
    expect(link?.link).toMatch(new RegExp(`^http://test.ckan.net/user/reset/${editor.id}\\?key=\\w+`))
    expect(reportText(report)).toContain(link!.link)
    // no password moved: the old one does not sign in
    const login = await t.app.request('/user/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login: editor.name, password: 'password123' }),
    })
    expect(login.headers.get('set-cookie') ?? '').not.toMatch(/auth_tkt|session/)
    // the link lets them choose one
    const page = await t.app.request(new URL(link!.link).pathname + new URL(link!.link).search)
    expect(page.status).toBe(200)
  })

  it('copies only what the key may read', async () => {
    const t = await setup()
    const editor = data.users[0]!
    const plain = data.users[2]!
    const report = await importCatalogue(t.deps, remote(plain.apikey))
    // the plain user reads no e-mails and no private dataset
    const sys = await t.make.sysadmin()
    const copied = await t.ok('user_show', { id: editor.name }, sys)
    expect(copied.email ?? null).toBeNull()
    expect((await t.call('package_show', { id: data.privateDataset.id }, sys)).status).toBe(404)
    expect(report.copied.datasets).toBe(data.datasets.length)
    // the uploaded file is public: copied
    expect(report.copied.files).toBe(1)
  })

  it('reports a dataset it could not copy, and goes on', async () => {
    const t = await setup()
    const sys = await t.make.sysadmin()
    // a dataset here already has the name of one at the source
    await t.ok('package_create', { name: data.datasets[3]!.name }, sys)
    const report = await importCatalogue(t.deps, remote(data.admin.apikey))
    expect(report.lines).toContainEqual({ kind: 'datasets', name: data.datasets[3]!.name, reason: 'another dataset here has this name' })
    expect(report.copied.datasets).toBe(data.datasets.length + 1 - 1)
  })
})

describe('npm run admin -- import-ckan | export | import', () => {
  beforeAll(async () => {
    src = await servedInstance()
    data = await populate(src.t, { rows: 50 })
  })
  afterAll(() => src.close())

  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      // not spawnSync: the source site answers from this process
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { env: { ...process.env, ...env } })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (b) => (stdout += b))
      child.stderr.on('data', (b) => (stderr += b))
      child.on('close', (status) => resolve({ status, stdout, stderr }))
    })

  it('copies a site with a progress line and a report, then exports and imports it', async () => {
    const dir = tempDir('ckan-edge-import-cli-')
    const env = { DATABASE_URL: `file:${join(dir, 'a', 'catalogue.db')}`, SERVICE__STORAGE_PATH: join(dir, 'a', 'uploads') }
    mkdirSync(join(dir, 'a'))
    const copied = await run(['import-ckan', src.url, '--api-key', data.admin.apikey], env)
    expect(copied.status, copied.stderr + copied.stdout).toBe(0)
    expect(copied.stderr).toMatch(/datasets\s+\[#*\.*\] \d+\/5/)
    expect(copied.stdout).toMatch(/Copied from http:\/\/127\.0\.0\.1:\d+ \(CKAN 2\.9\.\d+\):/)
    expect(copied.stdout).toMatch(/datasets\s+5 copied\s+0 skipped\s+0 failed/)
    expect(copied.stdout).toMatch(/tables\s+2 copied\s+0 skipped\s+0 failed \(52 rows\)/)
    expect(copied.stdout).toContain(`${data.users[0]!.name} http://`)
    // again: everything is here
    const again = await run(['import-ckan', src.url, '--api-key', data.admin.apikey], env)
    expect(again.stdout).toMatch(/datasets\s+0 copied\s+5 skipped/)
    // each run was a job, with its figures and no reset link (a credential) kept
    const here = await setup({}, { file: join(dir, 'a', 'catalogue.db') })
    const jobs = await here.deps.jobs.list({ status: ['finished'], queues: ['transfer'] })
    expect(jobs.map((j) => [j.kind, j.title])).toEqual([
      ['transfer_import', `import ${src.url}`],
      ['transfer_import', `import ${src.url}`],
    ])
    expect(jobs[0]!.result).toMatchObject({ copied: { datasets: 5, tables: 2 }, rows: 52 })
    expect(JSON.stringify(jobs.map((j) => j.result))).not.toMatch(/reset|key=/)

    const out = join(dir, 'export')
    const exported = await run(['export', out], env)
    expect(exported.status, exported.stderr).toBe(0)
    expect(exported.stdout).toMatch(/^Exported into .*: \d+ users, 1 organizations, 1 groups, 1 vocabularies, 5 datasets \(\d+ views, 1 files, 2 tables of 52 rows\)/)
    mkdirSync(join(dir, 'b'))
    const envB = { DATABASE_URL: `file:${join(dir, 'b', 'catalogue.db')}`, SERVICE__STORAGE_PATH: join(dir, 'b', 'uploads') }
    const imported = await run(['import', out, '--report', join(dir, 'report.json')], envB)
    expect(imported.status, imported.stderr + imported.stdout).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')).copied).toMatchObject({ datasets: 5, files: 1, tables: 2 })
    expect(readFileSync(join(dir, 'b', 'uploads', 'resources', data.upload.resource.id, 'cities.csv'), 'utf8')).toBe(data.upload.bytes)
  })

  it('says how to call it', async () => {
    const env = { DATABASE_URL: `file:${join(tempDir(), 'catalogue.db')}` }
    expect((await run(['import-ckan'], env)).status).toBe(2)
    expect((await run(['import-ckan', 'ckan.example.org'], env)).stderr).toMatch(/needs the site's address/)
    expect((await run(['export', 'x', '--api-key', 'k'], env)).status).toBe(2)
    const missing = await run(['import', join(tempDir(), 'nothing')], env)
    expect(missing.status).toBe(1)
    expect(missing.stderr).toMatch(/no manifest\.json/)
  })
})

describe('import-ckan downloads', () => {
  it("fetch files from the address given, not from the host the source's URLs name", async () => {
    // the source calls itself by a name that does not resolve here (its site_url)
    const other = await servedInstance({ 'service.site_url': 'http://ckan.internal.invalid' })
    try {
      const admin = await other.t.make.sysadmin()
      const ds = await other.t.make.dataset(admin)
      const form = new FormData()
      form.set('package_id', ds.id)
      form.set('upload', new File(['a,b\n1,2\n'], 'small.csv', { type: 'text/csv' }))
      const up = (await (await other.t.app.request('/api/3/action/resource_create', { method: 'POST', headers: { authorization: admin.apikey }, body: form })).json()) as any
      expect(up.result.url).toMatch(/^http:\/\/ckan\.internal\.invalid\//)
      const asked: string[] = []
      const spy: typeof fetch = (input, init) => {
        asked.push(String(input))
        return fetch(input, init)
      }
      const t = await setup()
      const report = await importCatalogue(
        t.deps,
        new CkanSource({ label: other.url, call: httpCall(other.url, admin.apikey), download: httpDownload(other.url, admin.apikey, spy) }),
      )
      expect(report.copied.files, reportText(report)).toBe(1)
      expect(asked).toEqual([`${other.url}/dataset/${ds.id}/resource/${up.result.id}/download/small.csv`])
      const file = await t.deps.blobs.get(`resources/${up.result.id}/small.csv`)
      expect(await new Response(file!.body).text()).toBe('a,b\n1,2\n')
    } finally {
      await other.close()
    }
  })
})
