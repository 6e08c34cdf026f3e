// Issue 19: an MCP client from the official SDK connects to /mcp over a real socket, lists the
// tools (write tools only with a key), calls package_search and datastore_search, reads resources,
// and sees only what its caller may read.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { drain } from '../../src/jobs/runner'
import { jobKinds } from '../../src/jobs/kinds'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let sys: { apikey: string }
let tableId = ''

async function connect(apikey?: string) {
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: apikey ? { headers: { authorization: apikey } } : undefined,
  })
  await client.connect(transport)
  return client
}

const parsed = (r: any) => JSON.parse(r.content[0].text)

beforeAll(async () => {
  t = await setup()
  server = await listen(t.app)
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys, { name: 'mcp-org' })
  for (let i = 0; i < 15; i++) await t.ok('package_create', { name: `mcp-data-${i}`, title: `Tide table ${i}`, notes: 'x'.repeat(2000), owner_org: org.id }, sys)
  await t.ok('package_create', { name: 'mcp-secret', title: 'Tide secret', owner_org: org.id, private: true }, sys)
  const table = await t.ok(
    'datastore_create',
    { resource: { package_id: 'mcp-data-0', name: 'Tides' }, fields: [{ id: 'port', type: 'text' }, { id: 'height', type: 'float' }], records: Array.from({ length: 130 }, (_, i) => ({ port: `P${i}`, height: i / 10 })) },
    sys,
  )
  tableId = table.resource_id
})
afterAll(async () => server?.close())

describe('the MCP server at /mcp', () => {
  it('lists read tools to anyone and write tools only with a key', async () => {
    const anon = await connect()
    const tools = (await anon.listTools()).tools.map((x) => x.name)
    expect(tools).toEqual(expect.arrayContaining(['package_search', 'package_show', 'datastore_search', 'datastore_info', 'changes_list']))
    expect(tools).not.toContain('package_create')
    const search = (await anon.listTools()).tools.find((x) => x.name === 'package_search')!
    expect(search.description).not.toContain('Schema fields')
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['q', 'fq', 'rows', 'start']))
    await anon.close()
    const admin = await connect(sys.apikey)
    expect((await admin.listTools()).tools.map((x) => x.name)).toEqual(expect.arrayContaining(['package_create', 'datastore_upsert']))
    await admin.close()
  })

  it('calls package_search: trimmed dicts, a page size cap, next_start, and no private datasets for a visitor', async () => {
    const anon = await connect()
    const first = parsed(await anon.callTool({ name: 'package_search', arguments: { q: 'tide', rows: 10 } }))
    expect(first.count).toBe(15)
    expect(first.results).toHaveLength(10)
    expect(first.next_start).toBe(10)
    expect(first.results[0].notes.length).toBeLessThanOrEqual(501)
    expect(first.results.some((d: any) => d.name === 'mcp-secret')).toBe(false)
    const second = parsed(await anon.callTool({ name: 'package_search', arguments: { q: 'tide', rows: 10, start: 10 } }))
    expect(second.results).toHaveLength(5)
    expect(second.next_start).toBeUndefined()
    const capped = parsed(await anon.callTool({ name: 'package_search', arguments: { rows: 500 } }))
    expect(capped.results.length).toBeLessThanOrEqual(50)
    const hidden = await anon.callTool({ name: 'package_show', arguments: { id: 'mcp-secret' } })
    expect(hidden.isError).toBe(true)
    expect(parsed(hidden).__type).toBe('Authorization Error')
    await anon.close()
    const admin = await connect(sys.apikey)
    const all = parsed(await admin.callTool({ name: 'package_search', arguments: { q: 'tide', include_private: true } }))
    expect(all.count).toBe(16)
    await admin.close()
  })

  it('calls datastore_info with the column profile, trimmed, and never for a private table', async () => {
    await drain(t.deps.jobs, jobKinds, t.deps)
    const anon = await connect()
    const info = parsed(await anon.callTool({ name: 'datastore_info', arguments: { id: tableId, include_profile: true } }))
    expect(info.profile.status).toBe('current')
    const height = info.profile.columns.find((c: any) => c.id === 'height')
    expect(height).toMatchObject({ count: 130, distinct: 130, min: 0, max: 12.9, histogram: { from: 0, to: 12.9, bins: 20 } })
    expect(height.histogram.counts.reduce((a: number, b: number) => a + b, 0)).toBe(130)
    const whole = parsed(await anon.callTool({ name: 'datastore_info', arguments: { id: tableId, include_profile: true, full: true } }))
    expect(whole.profile.columns.find((c: any) => c.id === 'height').histogram).toHaveLength(20)
    const tool = (await anon.listTools()).tools.find((x) => x.name === 'datastore_info')!
    expect(Object.keys(tool.inputSchema.properties ?? {})).toContain('include_profile')
    // a private dataset's table: refused as datastore_info refuses it
    const secret = await t.ok('datastore_create', { resource: { package_id: 'mcp-secret', name: 'S' }, fields: [{ id: 'x', type: 'int' }], records: [{ x: 1 }] }, sys)
    await drain(t.deps.jobs, jobKinds, t.deps)
    const refused = await anon.callTool({ name: 'datastore_info', arguments: { id: secret.resource_id, include_profile: true } })
    expect(refused.isError).toBe(true)
    expect((refused.content as any)[0].text).not.toContain('columns')
    await anon.close()
  })

  it('calls datastore_search with group_by and aggregates for totals', async () => {
    const anon = await connect()
    const tool = (await anon.listTools()).tools.find((x) => x.name === 'datastore_search')!
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['group_by', 'aggregates']))
    expect(tool.description).toContain('group_by')
    const all = parsed(await anon.callTool({ name: 'datastore_search', arguments: { resource_id: tableId, aggregates: [{ function: 'count' }, { function: 'max', column: 'height' }] } }))
    expect(all.records).toEqual([{ count: 130, max_height: 12.9 }])
    expect(all.fields.map((f: any) => f.id)).toEqual(['count', 'max_height'])
    await anon.close()
  })

  it('lists a versioned table\'s versions and diffs two of them, a private one refused', async () => {
    const v = await t.ok('datastore_create', { resource: { package_id: 'mcp-data-1', name: 'V' }, versioned: true, fields: [{ id: 'k', type: 'text' }, { id: 'n', type: 'int' }], primary_key: ['k'], records: [{ k: 'a', n: 1 }, { k: 'b', n: 2 }] }, sys)
    await t.ok('datastore_upsert', { resource_id: v.resource_id, records: [{ k: 'a', n: 10 }, { k: 'c', n: 3 }] }, sys)
    const anon = await connect()
    const list = parsed(await anon.callTool({ name: 'datastore_versions_list', arguments: { resource_id: v.resource_id } }))
    expect(list.versions.length).toBeGreaterThanOrEqual(2)
    expect(list.versions[0]).not.toHaveProperty('fields')
    const [to, from] = [list.versions[0].version, list.versions[1].version]
    const diff = parsed(await anon.callTool({ name: 'datastore_diff', arguments: { resource_id: v.resource_id, from, to } }))
    expect(diff.added.map((r: any) => r.k)).toEqual(['c'])
    expect(diff.changed.map((c: any) => [c.before.n, c.after.n])).toEqual([[1, 10]])
    const secret = await t.ok('datastore_create', { resource: { package_id: 'mcp-secret', name: 'SV' }, versioned: true, fields: [{ id: 'x', type: 'int' }], records: [{ x: 1 }] }, sys)
    const refused = await anon.callTool({ name: 'datastore_versions_list', arguments: { resource_id: secret.resource_id } })
    expect(refused.isError).toBe(true)
    await anon.close()
  })

  it('calls datastore_search with an offset to continue, and reads the table and dataset resources', async () => {
    const anon = await connect()
    const page = parsed(await anon.callTool({ name: 'datastore_search', arguments: { resource_id: tableId, limit: 500 } }))
    expect(page.records).toHaveLength(100)
    expect(page.total).toBe(130)
    expect(page.next_offset).toBe(100)
    expect(page.fields.map((f: any) => f.id)).toEqual(['_id', 'port', 'height'])
    const rest = parsed(await anon.callTool({ name: 'datastore_search', arguments: { resource_id: tableId, offset: 100 } }))
    expect(rest.records[0].port).toBe('P100')
    const table = await anon.readResource({ uri: `ckan://datastore/${tableId}` })
    expect(JSON.parse((table.contents[0] as any).text).total).toBe(130)
    const ds = await anon.readResource({ uri: 'ckan://dataset/mcp-data-0' })
    expect(JSON.parse((ds.contents[0] as any).text).name).toBe('mcp-data-0')
    await expect(anon.readResource({ uri: 'ckan://dataset/mcp-secret' })).rejects.toThrow()
    const templates = await anon.listResourceTemplates()
    expect(templates.resourceTemplates.map((r) => r.uriTemplate)).toEqual(['ckan://dataset/{id}', 'ckan://datastore/{resource_id}'])
    // without metadata schemas: no schema resources or tool
    expect((await anon.listResources()).resources).toEqual([])
    expect((await anon.listTools()).tools.map((x) => x.name)).not.toContain('scheming_dataset_schema_show')
    await anon.close()
  })

  it('writes only within the caller\'s rights', async () => {
    const user = await t.make.user()
    const client = await connect(user.apikey as string)
    const refused = await client.callTool({ name: 'package_patch', arguments: { id: 'mcp-data-1', title: 'hijacked' } })
    expect(refused.isError).toBe(true)
    expect((await t.ok('package_show', { id: 'mcp-data-1' })).title).toBe('Tide table 1')
    await client.close()
    const admin = await connect(sys.apikey)
    const done = parsed(await admin.callTool({ name: 'package_patch', arguments: { id: 'mcp-data-1', title: 'Tide table one' } }))
    expect(done.title).toBe('Tide table one')
    await admin.close()
  })
})
