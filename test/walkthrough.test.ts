// A data publisher's walk-through over real HTTP: org, editor, private dataset, patch, publish, delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from './helpers/setup'
import { listen } from './helpers/server'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }

beforeAll(async () => {
  t = await setup()
  server = await listen(t.app)
})
afterAll(async () => server?.close())

async function api(action: string, body: unknown, apikey?: string, method: 'POST' | 'GET' = 'POST') {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (apikey) headers['X-CKAN-API-Key'] = apikey
  const res =
    method === 'POST'
      ? await fetch(`${server.url}/api/action/${action}`, { method, headers, body: JSON.stringify(body) })
      : await fetch(`${server.url}/api/3/action/${action}?${new URLSearchParams(body as Record<string, string>)}`, { headers })
  const json = await res.json()
  expect(json.help).toBe(`http://test.ckan.net/api/3/action/help_show?name=${action}`)
  return { status: res.status, ...json }
}

const DATASET_KEYS = [
  'author', 'author_email', 'creator_user_id', 'extras', 'groups', 'id', 'isopen', 'license_id',
  'license_title', 'maintainer', 'maintainer_email', 'metadata_created', 'metadata_modified', 'name',
  'notes', 'num_resources', 'num_tags', 'organization', 'owner_org', 'private',
  'relationships_as_object', 'relationships_as_subject', 'resources', 'state', 'tags', 'title', 'type',
  'url', 'version',
]

describe('publisher walk-through over HTTP', () => {
  it('goes from an organization to a published and then deleted dataset', async () => {
    const sysadmin = await t.make.sysadmin()

    const org = await api('organization_create', { name: 'walk-org', title: 'Walk Org' }, sysadmin.apikey)
    expect(org).toMatchObject({ success: true, result: { name: 'walk-org', is_organization: true, type: 'organization' } })

    const editor = await api('user_create', { name: 'walk-editor', email: 'editor@example.com', password: 'secret-pass' }, sysadmin.apikey)
    expect(editor.success).toBe(true)
    expect(editor.result.apikey).toBeTruthy()
    const editorKey = editor.result.apikey as string

    const member = await api('organization_member_create', { id: 'walk-org', username: 'walk-editor', role: 'editor' }, sysadmin.apikey)
    expect(member).toMatchObject({ success: true, result: { capacity: 'editor' } })

    const created = await api(
      'package_create',
      {
        name: 'walk-data',
        title: 'Walk Data',
        owner_org: 'walk-org',
        private: true,
        license_id: 'cc-by',
        tags: [{ name: 'economy' }, { name: 'health' }],
        extras: [{ key: 'source', value: 'survey' }],
        resources: [
          { name: 'Table', url: 'http://example.com/table.csv' },
          { name: 'Chart', url: 'http://example.com/chart.png', format: 'PNG' },
        ],
      },
      editorKey,
    )
    expect(created.success).toBe(true)
    const ds = created.result
    expect(Object.keys(ds).filter((k) => k !== 'license_url').sort()).toEqual([...DATASET_KEYS].sort())
    expect(ds).toMatchObject({
      private: true,
      num_resources: 2,
      num_tags: 2,
      license_title: 'Creative Commons Attribution',
      isopen: true,
      organization: { name: 'walk-org' },
      extras: [{ key: 'source', value: 'survey' }],
    })
    expect(ds.resources.map((r: { format: string }) => r.format)).toEqual(['CSV', 'PNG'])
    expect(ds.tags.map((x: { name: string }) => x.name)).toEqual(['economy', 'health'])

    // Private: anonymous clients cannot see it.
    const hidden = await api('package_show', { id: 'walk-data' }, undefined, 'GET')
    expect(hidden.status).toBe(403)
    expect(hidden.error.__type).toBe('Authorization Error')
    expect((await api('package_list', {}, undefined, 'GET')).result).not.toContain('walk-data')

    const patched = await api('package_patch', { id: 'walk-data', notes: 'Collected weekly.' }, editorKey)
    expect(patched.result).toMatchObject({ notes: 'Collected weekly.', num_resources: 2, num_tags: 2 })

    const published = await api('package_patch', { id: ds.id, private: false }, editorKey)
    expect(published.result.private).toBe(false)

    const seen = await api('package_show', { id: 'walk-data' }, undefined, 'GET')
    expect(seen.status).toBe(200)
    expect(seen.result).toMatchObject({ id: ds.id, notes: 'Collected weekly.', private: false })
    expect((await api('package_list', {}, undefined, 'GET')).result).toContain('walk-data')

    const deleted = await api('package_delete', { id: 'walk-data' }, editorKey)
    expect(deleted).toMatchObject({ success: true, result: null })
    const gone = await api('package_show', { id: 'walk-data' }, undefined, 'GET')
    expect(gone.status).toBe(403)
    expect((await api('package_list', {}, undefined, 'GET')).result).not.toContain('walk-data')
    // The editor still sees it, marked deleted.
    expect((await api('package_show', { id: 'walk-data' }, editorKey)).result.state).toBe('deleted')
  })
})
