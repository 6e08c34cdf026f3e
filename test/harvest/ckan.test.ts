// The `ckan` harvester against a second instance of this app (and a few broken remotes): what a
// run creates, updates and deletes, incremental runs, the config keys, and errors in the report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { runHarvest } from '../helpers/harvest'
import { mungeTag, siteRoot } from '../../src/jobs/harvest/harvesters/ckan'

type Caller = { apikey: string; id: string; name: string }
let remote: TestEnv
let rsys: Caller
let srv: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: Caller
const closers: (() => Promise<void>)[] = []

beforeAll(async () => {
  remote = await setup()
  rsys = await remote.make.sysadmin()
  srv = await listen(remote.app)
  closers.push(srv.close)
  t = await setup({ 'service.loader.allow_private_urls': 'true', 'service.harvest.timeout_seconds': '1' })
  sys = await t.make.sysadmin()
})
afterAll(async () => {
  for (const c of closers) await c()
})

/** The guids and report statuses of a job's objects. */
async function objectsOf(env: TestEnv, jobId: string) {
  const rows = await env.deps.read('SELECT guid, report_status FROM harvest_object WHERE harvest_job_id = ? ORDER BY guid', [jobId])
  return rows.map((r): [string, string] => [String(r.guid), String(r.report_status)])
}

/** Runs `fn` with the remote's clock `hours` back (its datasets then look that old). */
async function remoteInThePast<T>(hours: number, fn: () => Promise<T>): Promise<T> {
  const real = remote.deps.now
  remote.deps.now = () => new Date(Date.now() - hours * 3_600_000).toISOString().replace('Z', '000')
  try {
    return await fn()
  } finally {
    remote.deps.now = real
  }
}

const extra = (d: { extras: { key: string; value: unknown }[] }, key: string) => d.extras.find((e) => e.key === key)?.value

/** A JSON server for broken remotes: `handler` answers every package_search. */
async function fakeRemote(handler: (c: any) => Response | Promise<Response>) {
  const app = new Hono().get('/api/3/action/package_search', handler)
  const s = await listen(app as never)
  closers.push(s.close)
  return s.url
}

let n = 0
async function source(url: string, config?: object, extra: object = {}) {
  const name = `src-${n++}`
  await t.ok('harvest_source_create', { name, url, source_type: 'ckan', ...(config ? { config: JSON.stringify(config) } : {}), ...extra }, sys)
  return name
}

describe('the ckan harvester', () => {
  it('accepts the site root with a slash or the API address', () => {
    expect(siteRoot('http://x.org/')).toBe('http://x.org')
    expect(siteRoot('http://x.org/api/3')).toBe('http://x.org')
    expect(siteRoot('http://x.org/sub/api/3/action/')).toBe('http://x.org/sub')
    expect(mungeTag('Économie Sociale!')).toBe('economie-sociale')
    expect(mungeTag('a')).toBe('a_')
  })

  it('creates, updates, deletes, and never harvests private datasets', async () => {
    const org = await remote.ok('organization_create', { name: 'main-org' }, rsys)
    const { one, two } = await remoteInThePast(3, async () => ({
      one: await remote.ok(
        'package_create',
        {
          name: 'ds-one',
          title: 'One',
          notes: 'First dataset',
          owner_org: org.id,
          license_id: 'cc-by',
          tags: [{ name: 'alpha' }, { name: 'beta' }],
          extras: [{ key: 'theme', value: 'health' }],
          resources: [{ url: 'http://example.com/one.csv', name: 'One CSV', format: 'CSV' }],
        },
        rsys,
      ),
      two: await remote.ok('package_create', { name: 'ds-two', title: 'Two', owner_org: org.id }, rsys),
    }))
    await remote.ok('package_create', { name: 'ds-secret', owner_org: org.id, private: true }, rsys)

    const localOrg = await t.ok('organization_create', { name: 'harvested' }, sys)
    const src = await source(`${srv.url}/`, undefined, { owner_org: localOrg.id })
    let job = await runHarvest(t, src, sys)
    expect(job.status).toBe('Finished')
    expect(job.stats).toMatchObject({ added: 2, updated: 0, 'not modified': 0, errored: 0, deleted: 0 })
    const a = await t.ok('package_show', { id: 'ds-one' })
    expect(a).toMatchObject({ id: one.id, title: 'One', notes: 'First dataset', license_id: 'cc-by', owner_org: localOrg.id })
    expect(a.tags.map((x: { name: string }) => x.name).sort()).toEqual(['alpha', 'beta'])
    expect(extra(a, 'theme')).toBe('health')
    expect(extra(a, 'harvest_source_title')).toBe(src)
    expect(a.resources).toHaveLength(1)
    expect(a.resources[0]).toMatchObject({ id: one.resources[0].id, url: 'http://example.com/one.csv', name: 'One CSV', format: 'CSV' })
    expect((await t.call('package_show', { id: 'ds-secret' }, sys)).status).toBe(404)
    const shown = await t.ok('harvest_object_show', { id: extra(a, 'harvest_object_id') }, sys)
    expect(shown.guid).toBe(one.id)

    // incremental: only the dataset changed since (the others are older than the run)
    await remote.ok('package_patch', { id: 'ds-two', title: 'Two, revised' }, rsys)
    job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ added: 0, updated: 1, 'not modified': 0, errored: 0, deleted: 0 })
    expect(await objectsOf(t, job.id)).toEqual([[two.id, 'updated']])
    expect((await t.ok('package_show', { id: 'ds-two' })).title).toBe('Two, revised')

    // a change the search window lists again is found unchanged
    job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ updated: 0, 'not modified': 1 })

    // a remote deletion and a dataset made private: gone here (the id listing lacks them)
    await remote.ok('package_delete', { id: 'ds-one' }, rsys)
    await remote.ok('package_patch', { id: 'ds-two', private: true }, rsys)
    job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ deleted: 2, errored: 0 })
    for (const id of ['ds-one', 'ds-two']) expect((await t.call('package_show', { id })).status).not.toBe(200)
    await remote.ok('package_patch', { id: 'ds-two', private: false }, rsys)
    job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ added: 0, updated: 1 })
    expect((await t.ok('package_show', { id: 'ds-two' })).state).toBe('active')
  })

  it('harvests private datasets too with an api_key', async () => {
    const org = await remote.ok('organization_create', { name: 'key-org' }, rsys)
    await remote.ok('package_create', { name: 'key-public', owner_org: org.id }, rsys)
    const secret = await remote.ok('package_create', { name: 'key-secret', owner_org: org.id, private: true }, rsys)
    const localOrg = await t.ok('organization_create', { name: 'key-mirror' }, sys)
    const src = await source(srv.url, { organizations_filter_include: ['key-org'], api_key: rsys.apikey }, { owner_org: localOrg.id })
    const job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ added: 2, errored: 0 })
    expect(await t.ok('package_show', { id: secret.id }, sys)).toMatchObject({ private: true, owner_org: localOrg.id })
    expect((await t.call('package_show', { id: secret.id })).status).toBe(403)
  })

  it('filters by organization and group, as include or exclude lists', async () => {
    const ors = await Promise.all(['f-org-a', 'f-org-b'].map((name) => remote.ok('organization_create', { name }, rsys)))
    await remote.ok('group_create', { name: 'f-grp' }, rsys)
    await remote.ok('package_create', { name: 'f-a1', owner_org: ors[0].id, groups: [{ name: 'f-grp' }] }, rsys)
    await remote.ok('package_create', { name: 'f-a2', owner_org: ors[0].id }, rsys)
    await remote.ok('package_create', { name: 'f-b1', owner_org: ors[1].id, groups: [{ name: 'f-grp' }] }, rsys)
    const local = await remote.ok('package_search', { rows: 1000 }).then((r: { count: number }) => r.count)

    const names = async (config: object) => {
      const src = await source(srv.url, config)
      const job = await runHarvest(t, src, sys)
      expect(job.stats.errored).toBe(0)
      const ids = (await objectsOf(t, job.id)).map(([g]) => g)
      const rows = await remote.deps.read(`SELECT name FROM package WHERE id IN (${ids.map(() => '?').join(',')})`, ids)
      return rows.map((r) => String(r.name)).sort()
    }
    expect(await names({ organizations_filter_include: ['f-org-a', 'f-org-b'] })).toEqual(['f-a1', 'f-a2', 'f-b1'])
    expect(await names({ organizations_filter_include: ['f-org-a'], groups_filter_include: ['f-grp'] })).toEqual(['f-a1'])
    expect(await names({ groups_filter_include: ['f-grp'] })).toEqual(['f-a1', 'f-b1'])
    const excluded = await names({ organizations_filter_exclude: ['f-org-a'], groups_filter_exclude: ['f-grp'] })
    expect(excluded).not.toContain('f-a1')
    expect(excluded).not.toContain('f-a2')
    expect(excluded).not.toContain('f-b1')
    expect(excluded.length).toBe(local - 3)
  })

  it('adds default tags, groups and extras, keeps or overrides remote extras, and maps remote organizations and groups', async () => {
    const org = await remote.ok('organization_create', { name: 'm-org', title: 'Mapped Org', description: 'remote org' }, rsys)
    await remote.ok('group_create', { name: 'm-grp-here' }, rsys)
    await remote.ok('group_create', { name: 'm-grp-away' }, rsys)
    const ds = await remote.ok(
      'package_create',
      {
        name: 'm-ds',
        owner_org: org.id,
        tags: [{ name: 'Mixed Case' }],
        extras: [{ key: 'origin', value: 'remote' }],
        groups: [{ name: 'm-grp-here' }, { name: 'm-grp-away' }],
      },
      rsys,
    )
    const localGroup = await t.ok('group_create', { name: 'm-grp-here' }, sys)
    const defaultGroup = await t.ok('group_create', { name: 'm-default' }, sys)
    const config = {
      organizations_filter_include: ['m-org'],
      default_tags: [{ name: 'harvested' }],
      default_groups: ['m-default'],
      default_extras: { origin: 'local', from: '{harvest_source_url}/dataset/{dataset_id}', job: '{harvest_job_id}' },
      remote_orgs: 'create',
      remote_groups: 'only_local',
      clean_tags: true,
    }
    const src = await source(`${srv.url}/api/3`, config)
    let job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ added: 1, errored: 0 })
    let d = await t.ok('package_show', { id: ds.id })
    expect(d.tags.map((x: { name: string }) => x.name).sort()).toEqual(['harvested', 'mixed-case'])
    expect(extra(d, 'origin')).toBe('remote') // not overridden
    expect(extra(d, 'from')).toBe(`${srv.url}/api/3/dataset/${ds.id}`)
    expect(extra(d, 'job')).toBe(job.id)
    expect(d.groups.map((g: { id: string }) => g.id).sort()).toEqual([localGroup.id, defaultGroup.id].sort())
    // the remote organization made here, with the remote's id, name and title
    expect(d.owner_org).toBe(org.id)
    expect(await t.ok('organization_show', { id: org.id })).toMatchObject({ name: 'm-org', title: 'Mapped Org', description: 'remote org' })

    const over = await source(`${srv.url}/api/3/`, { ...config, override_extras: true })
    job = await runHarvest(t, over, sys)
    // same remote id: the dataset another source wrote keeps its id, this one gets its own
    expect(job.stats).toMatchObject({ added: 1, errored: 0 })
    const [guid] = (await objectsOf(t, job.id))[0]!
    const rows = await t.deps.read(`SELECT package_id FROM harvest_object WHERE harvest_job_id = ?`, [job.id])
    d = await t.ok('package_show', { id: String(rows[0]!.package_id) })
    expect(guid).toBe(ds.id)
    expect(extra(d, 'origin')).toBe('local')
    expect(d.name).not.toBe('m-ds')
  })

  it('creates a remote organization and group once when datasets of it are imported together', async () => {
    // imports run concurrently (service.harvest.import_concurrency): all of them race to create it
    const org = await remote.ok('organization_create', { name: 'race-org', title: 'Race Org' }, rsys)
    const grp = await remote.ok('group_create', { name: 'race-grp' }, rsys)
    const made = []
    for (let i = 0; i < 6; i++)
      made.push(await remote.ok('package_create', { name: `race-${i}`, owner_org: org.id, groups: [{ name: 'race-grp' }], private: i === 0 }, rsys))
    const src = await source(srv.url, { organizations_filter_include: ['race-org'], api_key: rsys.apikey, remote_orgs: 'create', remote_groups: 'create' })
    const job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ added: 6, errored: 0 })
    for (const d of made) {
      const here = await t.ok('package_show', { id: d.id }, sys)
      expect(here.owner_org).toBe(org.id)
      expect(here.groups.map((g: { id: string }) => g.id)).toEqual([grp.id])
    }
    const logs = await t.deps.read(`SELECT content FROM harvest_log WHERE level = 'ERROR' AND content LIKE '%race-%'`)
    expect(logs).toEqual([])
  })

  it('refuses a config ckanext-harvest refuses, with its messages', async () => {
    await t.ok('group_create', { name: 'v-grp' }, sys)
    const cases: [object, string][] = [
      [{ api_version: 'x' }, 'api_version must be an integer'],
      [{ default_tags: 'a' }, 'default_tags must be a list'],
      [{ default_tags: ['a'] }, 'default_tags must be a list of dictionaries'],
      [{ default_groups: 'v-grp' }, 'default_groups must be a *list* of group names/ids'],
      [{ default_groups: [1] }, 'default_groups must be a list of group names/ids (i.e. strings)'],
      [{ default_groups: ['v-grp', 'no-such-group'] }, 'Default group not found'],
      [{ default_extras: [] }, 'default_extras must be a dictionary'],
      [
        { organizations_filter_include: ['a'], organizations_filter_exclude: ['b'] },
        'Harvest configuration cannot contain both organizations_filter_include and organizations_filter_exclude',
      ],
      [{ groups_filter_include: ['a'], groups_filter_exclude: ['b'] }, 'Harvest configuration cannot contain both groups_filter_include and groups_filter_exclude'],
      [{ user: 'nobody-here' }, 'User not found'],
      [{ read_only: 'yes' }, 'read_only must be boolean'],
      [{ force_all: 1 }, 'force_all must be boolean'],
    ]
    for (const [config, message] of cases) {
      const r = await t.call('harvest_source_create', { name: `bad-${n++}`, url: `${srv.url}/x${n}`, source_type: 'ckan', config: JSON.stringify(config) }, sys)
      expect(r.status, JSON.stringify(config)).toBe(409)
      expect(r.body.error.config).toEqual([`Error parsing the configuration options: ${message}`])
    }
    const fine = { api_version: 3, default_groups: ['v-grp'], user: sys.name, force_all: true, default_tags: [{ name: 'x' }] }
    await t.ok('harvest_source_create', { name: `good-${n++}`, url: `${srv.url}/ok`, source_type: 'ckan', config: JSON.stringify(fine) }, sys)
  })

  it('force_all lists everything again', async () => {
    const org = await remote.ok('organization_create', { name: 'fa-org' }, rsys)
    await remoteInThePast(3, async () => {
      for (const name of ['fa-1', 'fa-2']) await remote.ok('package_create', { name, owner_org: org.id }, rsys)
    })
    const src = await source(srv.url, { organizations_filter_include: ['fa-org'] })
    expect((await runHarvest(t, src, sys)).stats.added).toBe(2)
    let job = await runHarvest(t, src, sys)
    expect(await objectsOf(t, job.id)).toEqual([])
    await t.ok('harvest_source_patch', { id: src, config: JSON.stringify({ organizations_filter_include: ['fa-org'], force_all: true }) }, sys)
    job = await runHarvest(t, src, sys)
    // a changed config writes them again
    expect(job.stats).toMatchObject({ updated: 2, errored: 0 })
    job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ 'not modified': 2, updated: 0 })
  })
})

describe('the ckan harvester with a broken remote', () => {
  const report = async (job: { id: string }) => t.ok('harvest_job_report', { id: job.id }, sys)

  it('reports an HTTP error of the remote as a gather error', async () => {
    const url = await fakeRemote((c) => c.json({ success: false, error: { message: 'Internal server error' } }, 500))
    const job = await runHarvest(t, await source(url), sys)
    expect(job.status).toBe('Finished')
    const r = await report(job)
    expect(r.gather_errors.map((e: { message: string }) => e.message)).toEqual([
      expect.stringMatching(/^Unable to search remote CKAN for datasets: Fetching .*package_search.* answered HTTP 500: Internal server error$/),
    ])
  })

  it('reports a remote that never answers as a timeout', async () => {
    const url = await fakeRemote(() => new Promise<Response>(() => {}))
    const job = await runHarvest(t, await source(url), sys)
    expect(job.status).toBe('Finished')
    const [e] = (await report(job)).gather_errors
    expect(e.message).toMatch(/Timed out after 1 s fetching/)
  })

  it('reports an answer that is not JSON, or not a search result', async () => {
    let url = await fakeRemote((c) => c.text('{"result": {"results": [', 200))
    let job = await runHarvest(t, await source(url), sys)
    expect((await report(job)).gather_errors[0].message).toMatch(/is not valid JSON/)
    url = await fakeRemote((c) => c.json({ success: true, result: { count: 3 } }))
    job = await runHarvest(t, await source(url), sys)
    expect((await report(job)).gather_errors[0].message).toMatch(/did not contain result\/results/)
  })

  it('reports a remote dataset this catalogue refuses as an object error with its guid', async () => {
    const results = [
      { id: 'good-1', name: 'fine-name', title: 'Fine' },
      { id: 'bad-1', name: 'Not A Valid Name!', title: 'Bad' },
    ]
    const url = await fakeRemote((c) =>
      c.json({ success: true, result: { count: 2, results: Number(c.req.query('start')) ? [] : results } }),
    )
    const job = await runHarvest(t, await source(url), sys)
    expect(job.stats).toMatchObject({ added: 1, errored: 1 })
    const errs = Object.values((await report(job)).object_errors) as { guid: string; errors: { message: string }[] }[]
    expect(errs).toHaveLength(1)
    expect(errs[0]!.guid).toBe('bad-1')
    expect(errs[0]!.errors[0]!.message).toMatch(/^Validation error: name: /)
  })

  it('does not move the incremental start past a run that failed', async () => {
    let fail = false
    const results = [{ id: 'inc-1', name: 'inc-one', title: 'Inc', metadata_modified: '2000-01-01T00:00:00' }]
    const seen: string[] = []
    const url = await fakeRemote((c) => {
      seen.push(c.req.query('fq') ?? '')
      if (fail) return c.json({ success: false }, 500)
      return c.json({ success: true, result: { count: 1, results: Number(c.req.query('start')) ? [] : results } })
    })
    const src = await source(url)
    await runHarvest(t, src, sys)
    const first = await t.ok('harvest_job_list', { source_id: src }, sys)
    fail = true
    await runHarvest(t, src, sys)
    fail = false
    seen.length = 0
    await runHarvest(t, src, sys)
    // the since point is the first (good) run's start, an hour back
    const since = new Date(Date.parse(`${first[0].gather_started}Z`) - 3_600_000).toISOString()
    expect(seen[0]).toBe(`+metadata_modified:[${since} TO *]`)
  })
})
