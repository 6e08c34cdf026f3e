// Issue 28: with metadata schemas (ckanext-scheming) the MCP tools tell a model the dataset types:
// package_create's and package_patch's input schemas carry every type's fields (choices as enums,
// which type requires what), package_search names the fields worth a facet, and a type's schema is
// a tool and a resource. A model's create with those fields works.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { SCHEMING } from '../scheming/config'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let sys: { apikey: string }

async function connect(apikey?: string) {
  const client = new Client({ name: 'test-agent', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: apikey ? { headers: { authorization: apikey } } : undefined,
  })
  await client.connect(transport)
  return client
}

beforeAll(async () => {
  t = await setup(SCHEMING)
  server = await listen(t.app)
  sys = await t.make.sysadmin()
})
afterAll(async () => server?.close())

describe('the MCP server with dataset schemas', () => {
  it('describes the types and their fields in package_create and package_patch', async () => {
    const admin = await connect(sys.apikey)
    const tools = (await admin.listTools()).tools
    const create = tools.find((x) => x.name === 'package_create')!
    expect(create.description).toContain('river-photos (requires name, river_section, conditions, observed_on, is_public_domain)')
    expect(create.description).toContain('dataset (requires name, contact_email)')
    expect(create.description).toContain('ckan://schema/dataset/{type}')
    const props = create.inputSchema.properties as Record<string, any>
    expect(props.river_section.enum).toEqual(['source', 'upper', 'middle', 'lower', 'estuary'])
    expect(props.river_section.description).toMatch(/Types: river-photos; required for river-photos\./)
    expect(props.conditions).toMatchObject({ type: 'array', items: { enum: ['flood', 'ice', 'low', 'algae'] } })
    expect(props.stations.items.properties.status.enum).toEqual(['active', 'suspended', 'closed'])
    expect(props.contact_email.description).toMatch(/required for dataset/)
    expect(props.type.description).toContain('river-photos')
    // the tool's own parameters keep their descriptions
    expect(props.name.description).toMatch(/the name of the new dataset/)
    expect(props.full).toBeDefined()
    const patch = tools.find((x) => x.name === 'package_patch')!
    expect((patch.inputSchema.properties as any).river_section.enum).toHaveLength(5)
    expect(patch.inputSchema.required ?? []).not.toContain('river_section')
    await admin.close()
  })

  it('names the facetable schema fields in package_search, and serves a type\'s schema as a tool and a resource', async () => {
    const anon = await connect()
    const tools = (await anon.listTools()).tools
    const search = tools.find((x) => x.name === 'package_search')!
    expect(search.description).toMatch(/fields with fixed choices: frequency, river_section, water_clarity, conditions/)
    expect(tools.map((x) => x.name)).toContain('scheming_dataset_schema_show')
    expect(tools.map((x) => x.name)).not.toContain('package_create')
    const shown = await anon.callTool({ name: 'scheming_dataset_schema_show', arguments: { type: 'river-photos' } })
    expect(JSON.parse((shown.content as any)[0].text).dataset_type).toBe('river-photos')
    const templates = (await anon.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)
    expect(templates).toContain('ckan://schema/dataset/{type}')
    const listed = (await anon.listResources()).resources.map((r) => r.uri)
    expect(listed).toContain('ckan://schema/dataset/monitoring-stations')
    const read = await anon.readResource({ uri: 'ckan://schema/dataset/monitoring-stations' })
    const schema = JSON.parse((read.contents[0] as any).text)
    expect(schema.dataset_fields.map((f: any) => f.field_name)).toContain('stations')
    await expect(anon.readResource({ uri: 'ckan://schema/dataset/camels' })).rejects.toThrow()
    await anon.close()
  })

  it('creates a dataset of a type with the fields the tool describes', async () => {
    const admin = await connect(sys.apikey)
    const made = await admin.callTool({
      name: 'package_create',
      arguments: { type: 'river-photos', name: 'mcp-weir', river_section: 'middle', conditions: ['flood'], observed_on: '2024-04-02', is_public_domain: 'true' },
    })
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy()
    expect((await t.ok('package_show', { id: 'mcp-weir' })).river_section).toBe('middle')
    const refused = await admin.callTool({ name: 'package_create', arguments: { type: 'river-photos', name: 'mcp-weir-2', river_section: 'delta' } })
    expect(refused.isError).toBe(true)
    expect(JSON.parse((refused.content as any)[0].text).river_section[0]).toMatch(/Value must be one of/)
    await admin.close()
  })
})
