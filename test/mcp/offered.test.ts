// The MCP tool list holds only the actions the site offers (service.api_compat, offered(config)).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { actionOffered } from '../../src/actions/call'
import { setup } from '../helpers/setup'
import { listen } from '../helpers/server'

async function toolsOf(compat: string, withKey: boolean, withhold?: string) {
  const t = await setup({ 'service.api_compat': compat })
  const sys = await t.make.sysadmin()
  const server = await listen(t.app)
  const action = withhold ? registry.get(withhold)! : undefined
  if (action) action.offered = () => false
  try {
    const client = new Client({ name: 'test-agent', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: withKey ? { headers: { authorization: sys.apikey } } : undefined,
    })
    await client.connect(transport)
    const tools = (await client.listTools()).tools.map((x) => x.name)
    const call = withhold ? await client.callTool({ name: withhold, arguments: {} }) : undefined
    await client.close()
    return { t, tools, call }
  } finally {
    if (action) delete action.offered
    await server.close()
  }
}

describe('the MCP tool list follows the actions offered', () => {
  for (const compat of ['2.9', '2.11']) {
    it(`${compat}: every listed tool is an offered action (read and write tools)`, async () => {
      for (const withKey of [false, true]) {
        const { t, tools } = await toolsOf(compat, withKey)
        expect(tools).toContain('package_search')
        expect(tools.includes('package_create')).toBe(withKey)
        for (const name of tools) expect([name, !!actionOffered(name, t.deps.config)]).toEqual([name, true])
      }
    })
  }

  it('leaves out a tool whose action is not offered, and refuses a call of it', async () => {
    const { tools, call } = await toolsOf('2.11', true, 'status_show')
    expect(tools).not.toContain('status_show')
    expect(tools).toContain('package_show')
    expect(call?.isError).toBe(true)
    expect(JSON.stringify(call?.content)).toContain('Unknown tool status_show')
  })
})
