// Resources given without a mimetype get one guessed from their URL (ckan.mimetype_guess = file_ext).
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Caller

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

const dataset = (fields: Record<string, unknown> = {}) =>
  t.ok('package_create', { name: uniq('mime-ds'), ...fields }, sys)

describe('mimetype guessing', () => {
  it('guesses on resource_create from the URL extension', async () => {
    const d = await dataset()
    const r = await t.ok('resource_create', { package_id: d.id, url: 'http://e.com/data.csv' }, sys)
    expect(r.mimetype).toBe('text/csv')
    const none = await t.ok('resource_create', { package_id: d.id, url: 'http://e.com/data' }, sys)
    expect(none.mimetype).toBeNull()
    const host = await t.ok('resource_create', { package_id: d.id, url: 'http://e.com' }, sys)
    expect(host.mimetype).toBeNull()
  })

  it('never overwrites a given mimetype, even null', async () => {
    const d = await dataset()
    const given = await t.ok(
      'resource_create',
      { package_id: d.id, url: 'http://e.com/data.csv', mimetype: 'application/x-custom' },
      sys,
    )
    expect(given.mimetype).toBe('application/x-custom')
    const nulled = await t.ok(
      'resource_create',
      { package_id: d.id, url: 'http://e.com/data.csv', mimetype: null },
      sys,
    )
    expect(nulled.mimetype).toBeNull()
  })

  it('guesses on resource_update without a mimetype and keeps one on resource_patch', async () => {
    const d = await dataset({ resources: [{ url: 'http://e.com/a.csv' }] })
    const id = d.resources[0].id
    expect(d.resources[0].mimetype).toBe('text/csv')
    const updated = await t.ok('resource_update', { id, url: 'http://e.com/a.json' }, sys)
    expect(updated.mimetype).toBe('application/json')
    const kept = await t.ok(
      'resource_update',
      { id, url: 'http://e.com/a.xml', mimetype: 'text/plain' },
      sys,
    )
    expect(kept.mimetype).toBe('text/plain')
    // ckan: a patch sends the stored mimetype along, so there is nothing to guess
    const patched = await t.ok('resource_patch', { id, url: 'http://e.com/a.pdf' }, sys)
    expect(patched.mimetype).toBe('text/plain')
  })

  it('guesses for resources inside package_create, package_update and package_patch', async () => {
    const d = await dataset({
      resources: [{ url: 'http://e.com/a.xlsx' }, { url: 'http://e.com/b.png', mimetype: 'x/y' }],
    })
    expect(d.resources.map((r: any) => r.mimetype)).toEqual([
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'x/y',
    ])
    const u = await t.ok(
      'package_update',
      { id: d.id, name: d.name, resources: [{ id: d.resources[0].id, url: 'http://e.com/c.pdf' }] },
      sys,
    )
    expect(u.resources[0].mimetype).toBe('application/pdf')
    const p = await t.ok(
      'package_patch',
      { id: d.id, resources: [...u.resources, { url: 'http://e.com/d.geojson' }] },
      sys,
    )
    expect(p.resources.map((r: any) => r.mimetype)).toEqual([
      'application/pdf',
      'application/geo+json',
    ])
  })

  it('guesses from an uploaded file name when the URL gives nothing', async () => {
    const d = await dataset()
    const form = new FormData()
    form.set('package_id', d.id)
    form.set('upload', new File(['<a/>'], 'layer.kml'))
    const res = await t.app.request('/api/3/action/resource_create', {
      method: 'POST',
      headers: { authorization: sys.apikey },
      body: form,
    })
    const body = (await res.json()) as any
    expect(body.result.mimetype).toBe('application/vnd.google-earth.kml+xml')
  })
})

describe('ckan.mimetype_guess', () => {
  const upload = async (env: TestEnv, as: Caller, action: string, fields: Record<string, string>, body: string, name: string) => {
    const form = new FormData()
    for (const [k, v] of Object.entries(fields)) form.set(k, v)
    form.set('upload', new File([body], name))
    const res = await env.app.request(`/api/3/action/${action}`, { method: 'POST', headers: { authorization: as.apikey }, body: form })
    return ((await res.json()) as any).result
  }
  const CSV = '\n  Snow Course Name, Number\n  SKINS LAKE,1B05\n'

  it('file_contents: an upload is judged by its first bytes, and no URL guesses', async () => {
    const env = await setup({ 'ckan.mimetype_guess': 'file_contents' })
    const admin = await env.make.sysadmin()
    const d = await env.ok('package_create', { name: uniq('mime-ds') }, admin)
    const byUrl = await env.ok('resource_create', { package_id: d.id, url: 'http://e.com/data.csv' }, admin)
    expect(byUrl.mimetype).toBeNull()
    const made = await upload(env, admin, 'resource_create', { package_id: d.id, url: 'http://data' }, CSV, 'test.csv')
    expect(made.mimetype).toBe('text/plain')
    const updated = await upload(env, admin, 'resource_update', { id: byUrl.id, url: 'http://localhost' }, CSV, 'update_test')
    expect(updated.mimetype).toBe('text/plain')
  })

  it('file_ext (the default): the file name decides', async () => {
    const d = await dataset()
    const made = await upload(t, sys, 'resource_create', { package_id: d.id, url: 'http://data' }, CSV, 'test.csv')
    expect(made.mimetype).toBe('text/csv')
  })

  it('none: nothing is guessed', async () => {
    const env = await setup({ 'ckan.mimetype_guess': 'none' })
    const admin = await env.make.sysadmin()
    const d = await env.ok('package_create', { name: uniq('mime-ds') }, admin)
    expect((await env.ok('resource_create', { package_id: d.id, url: 'http://e.com/data.csv' }, admin)).mimetype).toBeNull()
    expect((await upload(env, admin, 'resource_create', { package_id: d.id }, CSV, 'test.csv')).mimetype).toBeNull()
  })

  it('refuses an unknown setting at start-up', async () => {
    await expect(setup({ 'ckan.mimetype_guess': 'magic' })).rejects.toThrow(/mimetype_guess/)
  })
})
