// A small catalogue with everything a transfer copies, and an object-by-object comparison of two
// instances (what the copy promises to keep).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { expect } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Dict = Record<string, any>

/** A test instance on a real socket, its site_url the socket's address (download links work). */
export async function servedInstance(overrides: Record<string, string> = {}) {
  let handler: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 })
  const server: Server = createServer(getRequestListener((req) => handler(req)))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const t = await setup({ 'service.site_url': url, ...overrides })
  handler = (req) => t.app.fetch(req)
  const close = () => new Promise<void>((r) => server.close(() => r()))
  return { t, url, close }
}

export interface Populated {
  admin: Caller & { name: string }
  users: (Caller & { name: string; id: string })[]
  org: Dict
  group: Dict
  datasets: Dict[]
  privateDataset: Dict
  upload: { resource: Dict; bytes: string }
  table: { resource: Dict; rows: number }
}

/** Users, an organization with members of each role, a group, a vocabulary, public and private
 *  datasets, an uploaded file, DataStore tables (one with a primary key and a data dictionary),
 *  views, and the activity all of it made. */
export async function populate(t: TestEnv, opts: { rows?: number } = {}): Promise<Populated> {
  const admin = await t.make.sysadmin()
  const editor = await t.make.user({ fullname: 'Eda Editor', about: 'edits' })
  const member = await t.make.user({ fullname: 'Mo Member' })
  const plain = await t.make.user()
  const org = await t.ok(
    'organization_create',
    {
      name: uniq('org'),
      title: 'Ministry of Tests',
      description: 'Tests things',
      extras: [{ key: 'region', value: 'north' }],
      users: [
        { name: editor.name, capacity: 'editor' },
        { name: member.name, capacity: 'member' },
      ],
    },
    admin,
  )
  const group = await t.ok('group_create', { name: uniq('group'), title: 'Transport', users: [{ name: plain.name, capacity: 'admin' }, { name: editor.name, capacity: 'member' }] }, admin)
  const vocab = await t.ok('vocabulary_create', { name: uniq('vocab'), tags: [{ name: 'red' }, { name: 'blue' }] }, admin)
  const datasets: Dict[] = []
  for (let i = 0; i < 4; i++)
    datasets.push(
      await t.ok(
        'package_create',
        {
          name: uniq(`ds${i}`),
          title: `Dataset ${i}`,
          notes: `About **dataset** ${i}`,
          owner_org: org.id,
          license_id: 'cc-by',
          tags: [{ name: `tag${i}` }, { name: 'common' }, { name: 'red', vocabulary_id: vocab.id }],
          groups: i % 2 ? [{ id: group.id }] : [],
          extras: [{ key: 'source', value: `s${i}` }],
          resources: [{ url: `http://example.com/${i}.pdf`, name: `Link ${i}`, format: 'PDF' }],
        },
        editor,
      ),
    )
  await t.ok('package_patch', { id: datasets[0]!.id, title: 'Dataset 0, revised' }, editor)
  const privateDataset = await t.ok(
    'package_create',
    { name: uniq('secret'), title: 'Private one', owner_org: org.id, private: true, resources: [{ url: 'http://example.com/s.csv', name: 'S' }] },
    admin,
  )
  const bytes = 'city,population\nOslo,700000\nBergen,290000\n'
  const form = new FormData()
  form.set('package_id', datasets[1]!.id)
  form.set('name', 'Cities')
  form.set('format', 'CSV')
  form.set('upload', new File([bytes], 'cities.csv', { type: 'text/csv' }))
  const up = (await (
    await t.app.request('/api/3/action/resource_create', { method: 'POST', headers: { authorization: admin.apikey }, body: form })
  ).json()) as Dict
  expect(up.success, JSON.stringify(up)).toBe(true)
  const upload = { resource: up.result, bytes }
  // the uploaded file, loaded (as the loader would)
  await t.ok(
    'datastore_create',
    {
      resource_id: upload.resource.id,
      force: true,
      fields: [
        { id: 'city', type: 'text', info: { label: 'City', notes: 'Its name' } },
        { id: 'population', type: 'int' },
      ],
      records: [
        { city: 'Oslo', population: 700000 },
        { city: 'Bergen', population: 290000 },
      ],
    },
    admin,
  )
  // a table made through the API (a resource of url_type datastore), more rows than one page
  const rows = opts.rows ?? 1200
  const records = Array.from({ length: rows }, (_, i) => ({
    code: `c${i}`,
    value: i % 7 === 0 ? null : i * 1.5,
    day: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
    tags: [`t${i % 3}`],
    note: i % 5 === 0 ? '' : `row ${i}`,
  }))
  const made = await t.ok(
    'datastore_create',
    {
      resource: { package_id: datasets[2]!.id, name: 'Measurements' },
      fields: [
        { id: 'code', type: 'text' },
        { id: 'value', type: 'numeric' },
        { id: 'day', type: 'date' },
        { id: 'tags', type: '_text' },
        { id: 'note', type: 'text' },
      ],
      primary_key: ['code'],
      records,
    },
    admin,
  )
  const tableResource = await t.ok('resource_show', { id: made.resource_id }, admin)
  await t.ok(
    'resource_view_create',
    { resource_id: tableResource.id, view_type: 'recline_view', title: 'Grid of measurements', description: 'All rows' },
    admin,
  )
  await t.ok(
    'resource_view_create',
    { resource_id: datasets[0]!.resources[0].id, view_type: 'webpage_view', title: 'The page', page_url: 'http://example.com/page' },
    admin,
  )
  return {
    admin,
    users: [editor, member, plain],
    org,
    group,
    datasets,
    privateDataset,
    upload,
    table: { resource: tableResource, rows },
  }
}

const VOLATILE_USER = ['apikey', 'number_created_packages', 'number_of_edits', 'state', 'email_hash', 'image_display_url']

/** Strips what legitimately differs between two instances: the site's own URL. */
const sited = (v: unknown, from: string, to: string) => JSON.parse(JSON.stringify(v).split(from).join(to))

/**
 * Every object of `a` is in `b` as it was: users (but passwords), organizations and groups with
 * members and roles, vocabularies, datasets as package_show gives them, their views, files and
 * DataStore tables, and the activity of datasets and organizations.
 */
export async function expectSameCatalogue(
  a: { t: TestEnv; url: string; admin: Caller },
  b: { t: TestEnv; url: string; admin: Caller },
  opts: { siteUsers?: string[] } = {},
) {
  const skipUsers = new Set(opts.siteUsers ?? [])
  const byName = (l: Dict[]) => [...l].sort((x, y) => String(x.name).localeCompare(String(y.name)))
  const usersA = byName((await a.t.ok('user_list', {}, a.admin)).filter((u: Dict) => !skipUsers.has(u.name)))
  const usersB = byName((await b.t.ok('user_list', {}, b.admin)).filter((u: Dict) => usersA.some((x: Dict) => x.name === u.name)))
  const strip = (u: Dict) => Object.fromEntries(Object.entries(u).filter(([k]) => !VOLATILE_USER.includes(k)))
  expect(usersB.map(strip)).toEqual(usersA.map(strip))

  for (const kind of ['organization', 'group']) {
    const names: string[] = await a.t.ok(`${kind}_list`, {}, a.admin)
    expect(await b.t.ok(`${kind}_list`, {}, b.admin)).toEqual(names)
    for (const name of names) {
      const params = { id: name, include_users: true, include_datasets: false, include_extras: true }
      const ga = sited(await a.t.ok(`${kind}_show`, params, a.admin), a.url, b.url)
      const gb = await b.t.ok(`${kind}_show`, params, b.admin)
      // an extra's own id is not kept (extras are key and value)
      for (const g of [ga, gb]) for (const e of g.extras ?? []) delete e.id
      expect(gb, `${kind} ${name}`).toEqual(ga)
      const acts = async (t: TestEnv, as: Caller) =>
        ((await t.ok(`${kind}_activity_list`, { id: name, limit: 100 }, as)) as Dict[]).map((x) => [x.id, x.activity_type, x.timestamp])
      expect(await acts(b.t, b.admin), `${kind} ${name} activity`).toEqual(await acts(a.t, a.admin))
    }
  }
  // vocabularies are made by name here (vocabulary_create takes no id)
  const vocabs = async (t: TestEnv, as: Caller) =>
    ((await t.ok('vocabulary_list', {}, as)) as Dict[]).map((v) => ({ name: v.name, tags: v.tags.map((x: Dict) => x.name).sort() }))
  expect(await vocabs(b.t, b.admin)).toEqual(await vocabs(a.t, a.admin))

  const all = async (t: TestEnv, as: Caller) =>
    (await t.ok('package_search', { include_private: true, include_drafts: true, rows: 1000, sort: 'name asc' }, as)).results as Dict[]
  const dsA = await all(a.t, a.admin)
  const dsB = await all(b.t, b.admin)
  expect(dsB.map((d) => d.name)).toEqual(dsA.map((d) => d.name))
  for (const d of dsA) {
    const showA = sited(await a.t.ok('package_show', { id: d.id }, a.admin), a.url, b.url)
    const showB = await b.t.ok('package_show', { id: d.id }, b.admin)
    // tags are known by name, vocabularies made anew: their ids are not kept
    const vocabName = async (t: TestEnv, as: Caller) =>
      new Map(((await t.ok('vocabulary_list', {}, as)) as Dict[]).map((v) => [v.id, v.name]))
    const [va, vb] = [await vocabName(a.t, a.admin), await vocabName(b.t, b.admin)]
    for (const [show, names] of [[showA, va], [showB, vb]] as const)
      show.tags = show.tags.map(({ id: _, vocabulary_id, ...tag }: Dict) => ({ ...tag, vocabulary: vocabulary_id && names.get(vocabulary_id) }))
    expect(showB, `dataset ${d.name}`).toEqual(showA)
    const acts = async (t: TestEnv, as: Caller) =>
      ((await t.ok('package_activity_list', { id: d.id, limit: 100 }, as)) as Dict[]).map((x) => [x.id, x.activity_type, x.timestamp])
    expect(await acts(b.t, b.admin), `dataset ${d.name} activity`).toEqual(await acts(a.t, a.admin))
    // each with the whole dataset as it was (CKAN 2.9's lists give only its title)
    for (const [id] of await acts(a.t, a.admin)) {
      const whole = async (t: TestEnv, as: Caller) => (await t.ok('activity_show', { id, include_data: true }, as)).data
      expect(sited(await whole(b.t, b.admin), b.url, a.url), `activity ${id}`).toEqual(await whole(a.t, a.admin))
    }
    for (const r of showA.resources as Dict[]) {
      const views = async (t: TestEnv, as: Caller, url: string) =>
        sited(await t.ok('resource_view_list', { id: r.id }, as), url, b.url).map(({ id: _, ...v }: Dict) => v)
      expect(await views(b.t, b.admin, b.url), `views of ${r.id}`).toEqual(await views(a.t, a.admin, a.url))
      if (r.url_type === 'upload') {
        const get = async (t: TestEnv, as: Caller) =>
          (await t.app.request(`/dataset/${d.id}/resource/${r.id}/download/${r.url.split('/').pop()}`, { headers: { authorization: as.apikey } })).text()
        expect(await get(b.t, b.admin), `file of ${r.id}`).toBe(await get(a.t, a.admin))
      }
      if (r.datastore_active) {
        const rows = async (t: TestEnv, as: Caller) => {
          const s = await t.ok('datastore_search', { resource_id: r.id, limit: 32000, sort: '_id' }, as)
          return { fields: s.fields, records: s.records, total: s.total }
        }
        expect(await rows(b.t, b.admin), `table of ${r.id}`).toEqual(await rows(a.t, a.admin))
      }
    }
  }
}
