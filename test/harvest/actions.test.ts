// ckanext-harvest's actions: answers, validation messages, not found and refusals, with the test
// harvester against a local server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { drainAll, runHarvest, useListHarvester } from '../helpers/harvest'
import { uniq } from '../helpers/make'
import { scheduleDueHarvests } from '../../src/jobs/harvest/schedule'

useListHarvester()

type Feed = { datasets: { guid: string; dataset: Record<string, unknown> }[]; next?: string }
const feeds = new Map<string, Feed>()
let server: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: Caller & { name: string }
let admin: Caller & { id: string; name: string }
let editor: Caller & { id: string; name: string }
let member: Caller & { id: string; name: string }
let stranger: Caller & { id: string; name: string }
let org: { id: string; name: string }
let otherOrg: { id: string; name: string }

/** A feed served at <server>/<key>.json, and its URL. */
function feed(key: string, datasets: Feed['datasets']): string {
  feeds.set(key, { datasets })
  return `${server.url}/${key}.json`
}

beforeAll(async () => {
  const remote = new Hono()
    .get('/broken.json', (c) => c.text('{"datasets": [', 200))
    .get('/fails.json', (c) => c.text('down', 500))
    .get('/:key{.+\\.json}', (c) => {
      const f = feeds.get(c.req.param('key').replace(/\.json$/, ''))
      return f ? c.json(f) : c.notFound()
    })
  server = await listen(remote as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(admin)
  otherOrg = await t.make.organization(sys)
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, admin)
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, admin)
})
afterAll(() => server.close())

const newSource = (fields: Record<string, unknown> = {}, as: Caller = admin) =>
  t.ok(
    'harvest_source_create',
    { name: uniq('src'), url: feed(uniq('f'), []), source_type: 'test_list', owner_org: org.id, ...fields },
    as,
  )

describe('harvesters_info_show', () => {
  it('lists the harvesters with show_config, for anyone', async () => {
    const r = await t.ok('harvesters_info_show', {})
    const mine = r.find((h: { name: string }) => h.name === 'test_list')
    expect(mine).toMatchObject({ title: 'Test list', show_config: true })
  })
})

describe('harvest_source_create', () => {
  it('creates a dataset of type harvest with its settings top-level', async () => {
    const s = await newSource({ frequency: 'daily', config: '{"page_limit": 2}', notes: 'Pulled nightly' })
    expect(s).toMatchObject({
      type: 'harvest',
      source_type: 'test_list',
      frequency: 'DAILY',
      config: '{"page_limit":2}',
      page_limit: 2,
      owner_org: org.id,
      title: s.name,
      notes: 'Pulled nightly',
      status: { job_count: 0, last_job: null, total_datasets: 0 },
    })
    expect(s.extras.map((e: { key: string }) => e.key)).toEqual([])
    const shown = await t.ok('package_show', { id: s.id })
    expect(shown.type).toBe('harvest')
  })

  it('answers ckanext-harvest validation messages', async () => {
    let r = await t.call('harvest_source_create', { name: uniq('src'), owner_org: org.id }, admin)
    expect(r.status).toBe(409)
    expect(r.body.error).toMatchObject({ __type: 'Validation Error', url: ['Missing value'], source_type: ['Missing value'] })
    r = await t.call(
      'harvest_source_create',
      { name: uniq('src'), url: 'http://example.com/x', source_type: 'nope', frequency: 'sometimes', config: '{bad', owner_org: org.id },
      admin,
    )
    expect(r.body.error.source_type[0]).toMatch(/^Unknown harvester type: nope\. Registered types: \[.*'test_list'.*\]$/)
    expect(r.body.error.frequency).toEqual(['Frequency sometimes not recognised'])
    expect(r.body.error.config[0]).toMatch(/^Error parsing the configuration options: /)
    r = await t.call(
      'harvest_source_create',
      { name: uniq('src'), url: 'http://example.com/x', source_type: 'test_list', config: '{"page_limit": "two"}', owner_org: org.id },
      admin,
    )
    expect(r.body.error.config).toEqual(['Error parsing the configuration options: page_limit must be a number'])
  })

  it('refuses a second source for the same URL and config', async () => {
    const s = await newSource()
    const r = await t.call(
      'harvest_source_create',
      { name: uniq('src'), url: `${s.url}/`, source_type: 'test_list', owner_org: org.id },
      admin,
    )
    expect(r.body.error.url[0]).toMatch(/^There already is a Harvest Source for this URL \(& config\): url=http:\/\/127\.0\.0\.1/)
    // another config is another source
    await newSource({ url: s.url, config: '{"page_limit": 1}' })
  })

  it('refuses anonymous callers, members and other organizations', async () => {
    const fields = { name: uniq('src'), url: 'http://example.com/y', source_type: 'test_list', owner_org: org.id }
    expect((await t.call('harvest_source_create', fields)).status).toBe(403)
    const r = await t.call('harvest_source_create', fields, member)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(`Access denied: User ${member.name} not authorized to create harvest sources`)
    expect((await t.call('harvest_source_create', { ...fields, owner_org: otherOrg.id }, editor)).status).toBe(403)
    await t.ok('harvest_source_create', fields, editor)
  })
})

describe('harvest_source_show, _show_status, _list', () => {
  it('finds a source by id, name or URL; 404 for others', async () => {
    const s = await newSource()
    expect((await t.ok('harvest_source_show', { id: s.name })).id).toBe(s.id)
    expect((await t.ok('harvest_source_show', { url: s.url })).id).toBe(s.id)
    expect((await t.call('harvest_source_show', { id: 'no-such-source' })).status).toBe(404)
    const ds = await t.make.dataset(sys)
    const r = await t.call('harvest_source_show', { id: ds.id })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Harvest source not found')
    expect((await t.call('harvest_source_show_status', { id: 'no-such-source' })).status).toBe(404)
  })

  it('keeps a private source to its organization, in show, status, list and search', async () => {
    const s = await newSource({ private: true })
    const r = await t.call('harvest_source_show', { id: s.id }, stranger)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(`Access denied: User ${stranger.name} not authorized to read harvest source ${s.id}`)
    expect((await t.call('harvest_source_show_status', { id: s.id })).status).toBe(403)
    expect((await t.ok('harvest_source_show', { id: s.id }, member)).id).toBe(s.id)
    const anon = await t.ok('harvest_source_list', {})
    expect(anon.map((x: { id: string }) => x.id)).not.toContain(s.id)
    const mine = await t.ok('harvest_source_list', { organization_id: org.name }, member)
    expect(mine.map((x: { id: string }) => x.id)).toContain(s.id)
    const fq = await t.ok('package_search', { fq: 'dataset_type:harvest', rows: 1000 }, stranger)
    expect(fq.results.map((x: { id: string }) => x.id)).not.toContain(s.id)
  })

  it('lists sources in ckanext-harvest shape; package_search leaves them out unless asked', async () => {
    const s = await newSource({ frequency: 'WEEKLY' })
    const list = await t.ok('harvest_source_list', { organization_id: org.id, return_last_job_status: true })
    const entry = list.find((x: { id: string }) => x.id === s.id)
    expect(entry).toMatchObject({
      url: s.url,
      type: 'test_list',
      active: true,
      frequency: 'WEEKLY',
      publisher_id: org.id,
      publisher_title: 'An Organization',
      status: { job_count: 0, msg: 'No jobs yet' },
      last_job_status: {},
    })
    expect((await t.call('harvest_source_list', { organization_id: 'no-such-org' })).status).toBe(404)
    const plain = await t.ok('package_search', { q: `name:${s.name}` })
    expect(plain.count).toBe(0)
    const asked = await t.ok('package_search', { q: `name:${s.name}`, fq: 'dataset_type:harvest' })
    expect(asked.count).toBe(1)
  })
})

describe('harvest_source_update and _patch', () => {
  it('patches only what is given, updates replace; both validate', async () => {
    const s = await newSource({ notes: 'keep me', config: '{"page_limit": 3}' })
    const p = await t.ok('harvest_source_patch', { id: s.id, frequency: 'HOURLY' }, editor)
    expect(p).toMatchObject({ frequency: 'HOURLY', notes: 'keep me', config: '{"page_limit":3}', source_type: 'test_list' })
    const u = await t.ok('harvest_source_update', { id: s.id, name: s.name, url: s.url, source_type: 'test_list', owner_org: org.id }, admin)
    expect(u.notes).toBeNull()
    expect(u.frequency).toBe('MANUAL')
    expect(u.config).toBeNull()
    const bad = await t.call('harvest_source_patch', { id: s.id, frequency: 'YEARLY' }, admin)
    expect(bad.body.error.frequency).toEqual(['Frequency YEARLY not recognised'])
  })

  it('refuses members and strangers; 404 for unknown sources', async () => {
    const s = await newSource()
    const r = await t.call('harvest_source_patch', { id: s.id, notes: 'x' }, member)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(`Access denied: User ${member.name} not authorized to update harvest source ${s.id}`)
    expect((await t.call('harvest_source_patch', { id: 'no-such-source', notes: 'x' }, sys)).status).toBe(404)
  })
})

describe('harvest jobs', () => {
  it('creates one job at a time, shows, lists and reports it', async () => {
    const s = await newSource({ url: feed(uniq('f'), [{ guid: 'x1', dataset: { name: uniq('ds') } }]) })
    const job = await t.ok('harvest_job_create', { source_id: s.name }, editor)
    expect(job).toMatchObject({ source_id: s.id, status: 'New', gather_started: null, stats: { added: 0, errored: 0 } })
    const again = await t.call('harvest_job_create', { source_id: s.id }, editor)
    expect(again.status).toBe(409)
    expect(again.body.error.message).toBe('There already is an unrun job for this source')
    await drainAll(t)
    const done = await t.ok('harvest_job_show', { id: job.id }, editor)
    expect(done).toMatchObject({ status: 'Finished', stats: { added: 1 }, object_error_summary: [], gather_error_summary: [] })
    expect(done.gather_started <= done.gather_finished && done.gather_finished <= done.finished).toBe(true)
    const list = await t.ok('harvest_job_list', { source_id: s.id }, admin)
    expect(list.map((j: { id: string }) => j.id)).toEqual([job.id])
    expect(list[0].object_error_summary).toBeUndefined()
    expect(await t.ok('harvest_job_report', { id: job.id }, admin)).toEqual({ gather_errors: [], object_errors: {} })
    expect((await t.ok('harvest_job_list', { status: 'Finished' }, sys)).length).toBeGreaterThan(0)
  })

  it('refuses jobs to those who may not edit the source, and not found', async () => {
    const s = await newSource()
    let r = await t.call('harvest_job_create', { source_id: s.id }, member)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(`Access denied: User not authorized to create a job for source ${s.id}`)
    r = await t.call('harvest_job_create', { source_id: 'no-such-source' }, sys)
    expect(r.status).toBe(404)
    r = await t.call('harvest_job_create', {}, sys)
    expect(r.body.error.source_id).toEqual(['Missing value'])
    const job = await t.ok('harvest_job_create', { source_id: s.id }, admin)
    r = await t.call('harvest_job_show', { id: job.id }, member)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(`Access denied: User ${member.name} not authorized to see jobs from source ${s.id}`)
    expect((await t.call('harvest_job_report', { id: job.id }, stranger)).status).toBe(403)
    r = await t.call('harvest_job_list', { source_id: s.id }, member)
    expect(r.body.error.message).toBe(`Access denied: User ${member.name} not authorized to list jobs for source ${s.id}`)
    r = await t.call('harvest_job_list', {}, admin)
    expect(r.status).toBe(403)
    expect((await t.call('harvest_job_show', { id: 'no-such-job' }, sys)).status).toBe(404)
    await t.ok('harvest_job_abort', { source_id: s.id }, admin)
  })

  it('aborts a waiting job (its queued stage is dropped) and leaves finished ones', async () => {
    const s = await newSource({ url: feed(uniq('f'), [{ guid: 'y', dataset: { name: uniq('ds') } }]) })
    expect((await t.call('harvest_job_abort', { source_id: s.id }, admin)).body.error.message).toBe('Not found: Error: source has no jobs')
    const job = await t.ok('harvest_job_create', { source_id: s.id }, admin)
    expect((await t.call('harvest_job_abort', { source_id: s.id }, member)).status).toBe(403)
    const aborted = await t.ok('harvest_job_abort', { source_id: s.id }, admin)
    expect(aborted.status).toBe('Aborted')
    expect((await t.ok('job_list', {}, sys)).map((j: { title: string }) => j.title)).not.toContain(`harvest gather: ${job.id}`)
    const done = await runHarvest(t, s.id, admin)
    expect((await t.ok('harvest_job_abort', { id: done.id }, admin)).status).toBe('Finished')
  })

  it('refuses a job for a deleted source', async () => {
    const s = await newSource()
    await t.ok('harvest_source_delete', { id: s.id }, admin)
    const r = await t.call('harvest_job_create', { source_id: s.id }, admin)
    expect(r.body.error.message).toBe('Can not create jobs on inactive sources')
  })
})

describe('harvest objects and the log', () => {
  it('shows objects by id and by dataset, lists them, keeps them to those who may see the source', async () => {
    const name = uniq('ds')
    const s = await newSource({ private: true, url: feed(uniq('f'), [{ guid: 'o1', dataset: { name, title: 'Object one' } }]) })
    await runHarvest(t, s.id, admin)
    const ids = await t.ok('harvest_object_list', { source_id: s.id }, member)
    expect(ids).toHaveLength(1)
    const obj = await t.ok('harvest_object_show', { id: ids[0] }, member)
    expect(obj).toMatchObject({ guid: 'o1', state: 'COMPLETE', report_status: 'added', current: true, source: s.id, errors: [], extras: {} })
    expect(JSON.parse(obj.content)).toEqual({ name, title: 'Object one' })
    const byDataset = await t.ok('harvest_object_show', { dataset_id: name }, member)
    expect(byDataset.id).toBe(obj.id)
    expect(byDataset.package).toBe(obj.package_id)
    expect((await t.call('harvest_object_show', { id: obj.id })).status).toBe(403)
    expect((await t.call('harvest_object_list', { source_id: s.id }, stranger)).status).toBe(403)
    expect((await t.call('harvest_object_list', {}, member)).status).toBe(403)
    expect((await t.call('harvest_object_show', { id: 'nope' }, sys)).body.error.message).toBe('Not found: Harvest object not found')
    expect((await t.call('harvest_object_show', { dataset_id: 'nope' }, sys)).body.error.message).toBe('Not found: Dataset not found')
    const none = await t.call('harvest_object_show', {}, sys)
    expect(none.status).toBe(409)
    expect(none.body.error.message).toBe('Please provide either an "id" or a "dataset_id" parameter')
  })

  it('gives the log to sysadmins, by level', async () => {
    const all = await t.ok('harvest_log_list', { limit: 5 }, sys)
    expect(all.length).toBeGreaterThan(0)
    expect(Object.keys(all[0]).sort()).toEqual(['content', 'created', 'level'])
    const info = await t.ok('harvest_log_list', { level: 'info', per_page: 'x' }, sys)
    expect(info.every((l: { level: string }) => l.level === 'INFO')).toBe(true)
    expect((await t.call('harvest_log_list', {}, admin)).status).toBe(403)
  })
})

describe('clearing and deleting sources', () => {
  it('clear purges the harvested datasets and the history; job history clear keeps the datasets', async () => {
    const [n1, n2] = [uniq('ds'), uniq('ds')]
    const s = await newSource({ url: feed(uniq('f'), [{ guid: 'c1', dataset: { name: n1 } }]) })
    await runHarvest(t, s.id, admin)
    expect((await t.call('harvest_source_job_history_clear', { id: s.id }, member)).status).toBe(403)
    expect(await t.ok('harvest_source_job_history_clear', { id: s.id, keep_current: true }, admin)).toEqual({ id: s.id })
    expect(await t.ok('harvest_object_list', { source_id: s.id }, admin)).toHaveLength(1)
    await t.ok('harvest_source_job_history_clear', { id: s.id }, admin)
    expect(await t.ok('harvest_object_list', { source_id: s.id, only_current: false }, admin)).toEqual([])
    expect((await t.ok('package_show', { id: n1 })).state).toBe('active')

    const s2 = await newSource({ url: feed(uniq('f'), [{ guid: 'c2', dataset: { name: n2 } }]) })
    await runHarvest(t, s2.id, admin)
    expect((await t.call('harvest_source_clear', { id: s2.id }, member)).status).toBe(403)
    expect(await t.ok('harvest_source_clear', { id: s2.id }, admin)).toEqual({ id: s2.id })
    expect((await t.call('package_show', { id: n2 }, sys)).status).toBe(404)
    expect((await t.ok('harvest_source_show', { id: s2.id })).status.job_count).toBe(0)
  })

  it('delete marks the source deleted; clear_source purges what it harvested', async () => {
    const n = uniq('ds')
    const s = await newSource({ url: feed(uniq('f'), [{ guid: 'd1', dataset: { name: n } }]) })
    await runHarvest(t, s.id, admin)
    expect((await t.call('harvest_source_delete', { id: s.id }, member)).status).toBe(403)
    expect((await t.call('harvest_source_delete', { id: 'no-such-source' }, sys)).status).toBe(404)
    await t.ok('harvest_source_delete', { id: s.id, clear_source: true }, admin)
    expect((await t.ok('package_show', { id: s.id }, admin)).state).toBe('deleted')
    expect((await t.call('package_show', { id: n }, sys)).status).toBe(404)
    expect((await t.ok('harvest_source_list', {})).map((x: { id: string }) => x.id)).not.toContain(s.id)
  })
})

describe('what a source can do wrong ends in the job report', () => {
  const gatherErrors = async (url: string, overrides?: Record<string, string>) => {
    const env = overrides ? await setup(overrides) : t
    const who = overrides ? await env.make.sysadmin() : admin
    const s = await env.ok(
      'harvest_source_create',
      { name: uniq('src'), url, source_type: 'test_list', ...(overrides ? {} : { owner_org: org.id }) },
      who,
    )
    const job = await runHarvest(env, s.id, who)
    expect(job.status).toBe('Finished')
    const report = await env.ok('harvest_job_report', { id: job.id }, who)
    return { job, messages: report.gather_errors.map((e: { message: string }) => e.message) }
  }

  it('HTTP errors, malformed JSON, refused addresses', async () => {
    let r = await gatherErrors(`${server.url}/fails.json`)
    expect(r.messages).toEqual([`Fetching ${server.url}/fails.json answered HTTP 500`])
    expect(r.job.stats.errored).toBe(1)
    r = await gatherErrors(`${server.url}/broken.json`)
    expect(r.messages[0]).toMatch(/^The answer of .*broken\.json is not valid JSON: /)
    r = await gatherErrors(`${server.url}/missing.json`)
    expect(r.messages[0]).toMatch(/answered HTTP 404$/)
    r = await gatherErrors('http://127.0.0.1:1/none.json')
    expect(r.messages[0]).toMatch(/^Could not fetch http:\/\/127\.0\.0\.1:1\/none\.json/)
    r = await gatherErrors(`${server.url}/x.json`, {})
    expect(r.messages[0]).toMatch(/^Refusing to fetch http:\/\/127\.0\.0\.1:\d+: it is a loopback/)
  })

  it('stops gathering at service.harvest.max_objects, deleting nothing', async () => {
    const env = await setup({ 'service.loader.allow_private_urls': 'true', 'service.harvest.max_objects': '2' })
    const who = await env.make.sysadmin()
    const url = feed(uniq('f'), [1, 2, 3].map((i) => ({ guid: `m${i}`, dataset: { name: uniq('ds') } })))
    const s = await env.ok('harvest_source_create', { name: uniq('src'), url, source_type: 'test_list' }, who)
    const job = await runHarvest(env, s.id, who)
    expect(job.stats).toMatchObject({ added: 2, errored: 1 })
    expect(job.gather_error_summary[0].message).toBe(
      'The source lists more than 2 datasets; only the first 2 were gathered (service.harvest.max_objects)',
    )
  })

  it('a dataset the catalogue refuses is an object error with its guid', async () => {
    const s = await newSource({ url: feed(uniq('f'), [{ guid: 'bad-1', dataset: { name: 'Not A Valid Name!' } }]) })
    const job = await runHarvest(t, s.id, admin)
    expect(job.stats).toMatchObject({ added: 0, errored: 1 })
    const report = await t.ok('harvest_job_report', { id: job.id }, admin)
    const [entry] = Object.values(report.object_errors) as { guid: string; original_url: string; errors: { message: string; type: string }[] }[]
    expect(entry!.guid).toBe('bad-1')
    expect(entry!.original_url).toBe(`${s.url}#bad-1`)
    expect(entry!.errors[0]!.type).toBe('Validation')
    expect(entry!.errors[0]!.message).toMatch(/^Validation error: name: /)
  })
})

describe('the schedule', () => {
  it('starts due sources only: never MANUAL, ALWAYS each time, DAILY once a day', async () => {
    const env = await setup({ 'service.loader.allow_private_urls': 'true' })
    const who = await env.make.sysadmin()
    const mk = (frequency: string) =>
      env.ok('harvest_source_create', { name: uniq('src'), url: feed(uniq('f'), []), source_type: 'test_list', frequency }, who)
    const [manual, always, daily] = [await mk('MANUAL'), await mk('ALWAYS'), await mk('DAILY')]
    expect((await scheduleDueHarvests(env.deps)).sort()).toEqual([always.id, daily.id].sort())
    // a job is waiting: nothing new
    expect(await scheduleDueHarvests(env.deps)).toEqual([])
    await drainAll(env)
    expect(await scheduleDueHarvests(env.deps)).toEqual([always.id])
    await drainAll(env)
    const jobs = await env.ok('harvest_job_list', { source_id: manual.id }, who)
    expect(jobs).toEqual([])
  })
})

describe('every action: missing and unknown ids', () => {
  it('answers Missing value for a missing id and Not Found for an unknown one', async () => {
    const byId: [string, string][] = [
      ['harvest_source_show_status', 'id'],
      ['harvest_source_update', 'id'],
      ['harvest_source_patch', 'id'],
      ['harvest_source_delete', 'id'],
      ['harvest_source_clear', 'id'],
      ['harvest_source_job_history_clear', 'id'],
      ['harvest_job_create', 'source_id'],
      ['harvest_job_show', 'id'],
      ['harvest_job_report', 'id'],
      ['harvest_job_abort', 'id'],
    ]
    for (const [action, key] of byId) {
      const missing = await t.call(action, {}, sys)
      expect(missing.status, action).toBe(409)
      expect(missing.body.error[key], action).toEqual(['Missing value'])
      const unknown = await t.call(action, { [key]: 'no-such-thing' }, sys)
      expect(unknown.status, action).toBe(404)
    }
    for (const action of ['harvest_object_list', 'harvest_job_list'])
      expect((await t.call(action, { source_id: 'no-such-thing' }, sys)).status, action).toBe(404)
  })

  it('refuses a job history clear while a job is open', async () => {
    const s = await newSource()
    await t.ok('harvest_job_create', { source_id: s.id }, admin)
    const r = await t.call('harvest_source_job_history_clear', { id: s.id }, admin)
    expect(r.status).toBe(409)
    expect(r.body.error.message).toBe('The source has a job waiting or running: abort it first (harvest_job_abort)')
    await t.ok('harvest_job_abort', { source_id: s.id }, admin)
    await t.ok('harvest_source_job_history_clear', { id: s.id }, admin)
  })
})
