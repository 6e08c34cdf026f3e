// The catalogue's own `ckan` and `ckan_changes` harvesters against a remote catalogue on a real
// socket speaking the other API version: a 2.11 remote harvested into a 2.9 catalogue and a 2.9
// remote into a 2.11 one, with the remote's credential (an API token from 2.10 on, a legacy key
// under 2.9) so its private datasets come too (`ckan`; `ckan_changes` follows public ones only). Datasets, resources, organizations, groups, tags and
// extras arrive (ids kept, a 2.9 remote's non-UUID ids too), and a later run picks up a change and a
// deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { runHarvest } from '../helpers/harvest'
import { uniq } from '../helpers/make'
import { served, type ApiCompat, type Served } from './served'

type Caller = { apikey: string; id: string; name: string }
type Pair = { remote: ApiCompat; local: ApiCompat }
const pairs: Pair[] = [
  { remote: '2.11', local: '2.9' },
  { remote: '2.9', local: '2.11' },
]

const extra = (d: { extras: { key: string; value: unknown }[] }, key: string) => d.extras.find((e) => e.key === key)?.value
const names = (list: { name: string }[]) => list.map((x) => x.name).sort()

describe.each(pairs)('harvesting a $remote remote into a $local catalogue', ({ remote: remoteV, local: localV }) => {
  let remote: Served
  let rsys: Caller
  let t: TestEnv
  let sys: Caller

  beforeAll(async () => {
    remote = await served(remoteV)
    rsys = await remote.t.make.sysadmin()
    t = await setup({ 'service.api_compat': localV, 'service.loader.allow_private_urls': 'true', 'service.harvest.timeout_seconds': '10' })
    sys = await t.make.sysadmin()
  })
  afterAll(async () => {
    await remote?.close()
  })

  /** Runs `fn` with the remote's clock `hours` back (its datasets then look that old to an incremental run). */
  async function remoteInThePast<T>(hours: number, fn: () => Promise<T>): Promise<T> {
    const real = remote.t.deps.now
    remote.t.deps.now = () => new Date(Date.now() - hours * 3_600_000).toISOString().replace('Z', '000')
    try {
      return await fn()
    } finally {
      remote.t.deps.now = real
    }
  }

  /**
   * An organization with a group, three datasets (one private) in it. A 2.9 remote is given the
   * non-UUID ids 2.9 allows (datasets and groups by a sysadmin, resources by anyone).
   */
  async function remoteCatalogue(prefix: string) {
    const legacy = remoteV === '2.9'
    const rid = (kind: string) => (legacy ? { id: `${prefix}-${kind}-legacy-id` } : {})
    return remoteInThePast(3, async () => {
      const org = await remote.t.ok('organization_create', { name: `${prefix}-org`, title: `${prefix} Organization`, description: 'The remote one', ...rid('org') }, rsys)
      const group = await remote.t.ok('group_create', { name: `${prefix}-grp`, title: `${prefix} Group`, ...rid('grp') }, rsys)
      const full = await remote.t.ok(
        'package_create',
        {
          name: `${prefix}-full`,
          title: 'Full dataset',
          notes: 'Every part a harvester copies',
          owner_org: org.id,
          license_id: 'cc-by',
          version: '1.0',
          tags: [{ name: 'economy' }, { name: 'Health Care' }],
          extras: [
            { key: 'theme', value: 'health' },
            { key: 'spatial_text', value: 'Lyon' },
          ],
          groups: [{ name: group.name }],
          resources: [
            { url: 'http://example.com/a.csv', name: 'A', format: 'CSV', description: 'first', ...rid('res-a') },
            { url: 'http://example.com/b.json', name: 'B', format: 'JSON', ...rid('res-b') },
          ],
          ...rid('ds'),
        },
        rsys,
      )
      const plain = await remote.t.ok('package_create', { name: `${prefix}-plain`, title: 'Plain', owner_org: org.id }, rsys)
      const secret = await remote.t.ok('package_create', { name: `${prefix}-secret`, owner_org: org.id, private: true }, rsys)
      return { org, group, full, plain, secret }
    })
  }

  it('with a legacy key, gets what the remote gives an anonymous caller from 2.10 on', async () => {
    const prefix = uniq('hk')
    const { org, plain, secret } = await remoteCatalogue(prefix)
    const legacyKey = (await remote.t.ok('user_show', { id: rsys.id }, rsys)).apikey
    expect(legacyKey).toBeTruthy()
    const src = uniq('src')
    const config = { api_key: legacyKey, organizations_filter_include: [org.name] }
    const mirror = await t.make.organization(sys)
    await t.ok('harvest_source_create', { name: src, url: remote.url, source_type: 'ckan', config: JSON.stringify(config), owner_org: mirror.id }, sys)
    const job = await runHarvest(t, src, sys)
    expect(job.stats).toMatchObject({ added: remoteV === '2.9' ? 3 : 2, errored: 0 })
    expect((await t.ok('package_show', { id: plain.id })).title).toBe('Plain')
    expect((await t.call('package_show', { id: secret.id }, sys)).status).toBe(remoteV === '2.9' ? 200 : 404)
  })

  for (const type of ['ckan', 'ckan_changes']) {
    it(`${type}: copies datasets, resources, organizations, groups, tags and extras, then a change and a deletion`, async () => {
      const prefix = uniq(type === 'ckan' ? 'h' : 'hc')
      const { org, group, full, plain, secret } = await remoteCatalogue(prefix)
      if (remoteV === '2.9') {
        expect(full.id).toBe(`${prefix}-ds-legacy-id`)
        expect(full.resources[0].id).toBe(`${prefix}-res-a-legacy-id`)
      }
      const config = {
        api_key: rsys.apikey,
        organizations_filter_include: [org.name],
        remote_orgs: 'create',
        remote_groups: 'create',
      }
      const src = uniq('src')
      await t.ok('harvest_source_create', { name: src, url: `${remote.url}/`, source_type: type, config: JSON.stringify(config) }, sys)
      const seenBefore = remote.seen.length

      let job = await runHarvest(t, src, sys)
      expect(job.status).toBe('Finished')
      // ckan_changes follows public datasets only; ckan takes private ones with the credential
      const withPrivate = type === 'ckan'
      expect(job.stats).toMatchObject({ added: withPrivate ? 3 : 2, updated: 0, errored: 0, deleted: 0 })
      // every remote call carried the credential the remote's version takes
      const calls = remote.seen.slice(seenBefore)
      expect(calls.length).toBeGreaterThan(0)
      for (const c of calls) {
        expect(c.method).toBe('GET')
        expect(c.headers.get('authorization')).toBe(rsys.apikey)
      }

      const d = await t.ok('package_show', { id: full.id }, sys)
      expect(d).toMatchObject({ id: full.id, name: `${prefix}-full`, title: 'Full dataset', notes: 'Every part a harvester copies', license_id: 'cc-by', version: '1.0', owner_org: org.id })
      expect(names(d.tags)).toEqual(['Health Care', 'economy'])
      expect(extra(d, 'theme')).toBe('health')
      expect(extra(d, 'spatial_text')).toBe('Lyon')
      expect(extra(d, 'harvest_source_title')).toBeDefined()
      expect(d.resources.map((r: Record<string, unknown>) => [r.id, r.url, r.name, r.format])).toEqual(
        full.resources.map((r: Record<string, unknown>) => [r.id, r.url, r.name, r.format]),
      )
      expect(d.resources[0].description).toBe('first')
      expect(d.groups.map((g: { id: string; name: string }) => [g.id, g.name])).toEqual([[group.id, group.name]])
      expect(await t.ok('organization_show', { id: org.id })).toMatchObject({ name: org.name, title: `${prefix} Organization`, description: 'The remote one' })
      expect(await t.ok('group_show', { id: group.id })).toMatchObject({ name: group.name, title: `${prefix} Group` })
      expect((await t.ok('package_show', { id: plain.id })).title).toBe('Plain')
      if (withPrivate) {
        // the private one arrives private: the credential was taken
        expect(await t.ok('package_show', { id: secret.id }, sys)).toMatchObject({ private: true, owner_org: org.id })
        expect((await t.call('package_show', { id: secret.id })).status).toBe(403)
      } else expect((await t.call('package_show', { id: secret.id }, sys)).status).toBe(404)

      // a change (a title, a tag, a new resource) and a deletion on the remote
      const revised = await remote.t.ok(
        'package_patch',
        { id: plain.id, title: 'Plain, revised', tags: [{ name: 'revised' }], resources: [{ url: 'http://example.com/new.csv', name: 'New' }] },
        rsys,
      )
      await remote.t.ok('package_delete', { id: full.id }, rsys)
      job = await runHarvest(t, src, sys)
      expect(job.stats).toMatchObject({ added: 0, updated: 1, deleted: 1, errored: 0 })
      const p = await t.ok('package_show', { id: plain.id })
      expect(p.title).toBe('Plain, revised')
      expect(names(p.tags)).toEqual(['revised'])
      expect(p.resources.map((r: { id: string; url: string }) => [r.id, r.url])).toEqual([[revised.resources[0].id, 'http://example.com/new.csv']])
      const gone = await t.call('package_show', { id: full.id }, sys)
      expect(gone.status === 404 || gone.body.result?.state === 'deleted').toBe(true)
      expect((await t.ok('package_search', { fq: `organization:${org.name}`, include_private: true }, sys)).count).toBe(withPrivate ? 2 : 1)
    })
  }
})
