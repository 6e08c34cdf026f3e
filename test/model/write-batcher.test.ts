// Group commit: concurrent writes share a transaction yet each stays all-or-nothing.
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { clientExecutor } from '../../src/db/executor'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { WriteBatcher } from '../../src/model/write-batcher'
import { setup, TEST_PROFILE, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: { apikey: string }
beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
})

describe('WriteBatcher', () => {
  it('commits concurrent creates together and fails only the clashing one', async () => {
    const names = ['gc-a', 'gc-b', 'gc-c', 'gc-b', 'gc-d']
    const results = await Promise.all(
      names.map((name) => t.call('package_create', { name, resources: [{ url: 'http://x/y.csv' }] }, admin)),
    )
    const failed = results.filter((r) => !r.body.success)
    expect(failed).toHaveLength(1)
    expect(failed[0]!.body.error).toEqual({ __type: 'Validation Error', name: ['That URL is already in use.'] })
    const list = await t.ok('package_list')
    for (const n of ['gc-a', 'gc-b', 'gc-c', 'gc-d']) expect(list).toContain(n)
    // The loser left nothing behind: one package row per name and its resource only once.
    const rows = await t.client.execute("SELECT count(*) AS n FROM package WHERE name LIKE 'gc-%'")
    expect(Number(rows.rows[0]!.n)).toBe(4)
    const res = await t.client.execute(
      "SELECT count(*) AS n FROM resource r JOIN package p ON p.id = r.package_id WHERE p.name LIKE 'gc-%'",
    )
    expect(Number(res.rows[0]!.n)).toBe(4)
  })

  it('rejects a failing batch alone when it is committed by itself', async () => {
    const batcher = new WriteBatcher(clientExecutor(t.db.$client))
    await expect(
      batcher.write([{ sql: 'INSERT INTO no_such_table VALUES (1)', args: [] }]),
    ).rejects.toThrow()
    await expect(
      batcher.write([{ sql: "INSERT INTO system_info (key, value) VALUES ('batcher-ok', '1')", args: [] }]),
    ).resolves.toBeUndefined()
  })
})

describe('the portable path (client batch, no head probe) as on Workers', () => {
  it('writes through the client and a second process sees the write on its next request', async () => {
    const config = loadConfig(TEST_PROFILE)
    const one = buildDeps(config, t.db)
    const two = buildDeps(loadConfig(TEST_PROFILE), t.db)
    await warmUp(one)
    await warmUp(two)
    const app1 = createApp(one)
    const app2 = createApp(two)
    const headers = { 'content-type': 'application/json', authorization: admin.apikey }
    // Warm process two's cache with the dataset, then change it through process one.
    const created = await (
      await app1.request('/api/3/action/package_create', { method: 'POST', headers, body: JSON.stringify({ name: 'portable-1', notes: 'v1' }) })
    ).json()
    expect(created.success).toBe(true)
    const first = await (await app2.request('/api/3/action/package_show?id=portable-1')).json()
    expect(first.result.notes).toBe('v1')
    await app1.request('/api/3/action/package_patch', { method: 'POST', headers, body: JSON.stringify({ id: 'portable-1', notes: 'v2' }) })
    const second = await (await app2.request('/api/3/action/package_show?id=portable-1')).json()
    expect(second.result.notes).toBe('v2')
  })
})
