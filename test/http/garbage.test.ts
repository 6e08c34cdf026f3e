// Every action answers garbage input with an envelope error (never a 500) and leaves data untouched.
import { beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller
let user: Caller
let dataset: { id: string; name: string }

const HUGE = 'x'.repeat(200_000)
const GARBAGE: unknown[] = [
  {},
  { id: 123, name: 456, q: [], limit: 'many', offset: -1 },
  { id: { nested: { deeper: [1, 2, { x: null }] } }, name: ['a', 'b'], tags: 'not-a-list' },
  { id: null, name: null, resources: [1, 'two', null], extras: { a: 1 }, groups: ['g'] },
  { id: HUGE, name: HUGE, title: HUGE, email: HUGE, password: HUGE },
  { id: '\u0000\u0001\ud800', name: 'Ünïcødé Name', url: 'javascript:alert(1)' },
  { id: true, all_fields: 'maybe', include_datasets: {}, sort: 'name sideways', order: 'x' },
  { users: [{ name: {} }], packages: 'x', capacity: 42, role: [], username: false, object: 1 },
]

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
  user = await t.make.user()
  dataset = await t.make.dataset(admin, { name: 'keep-me', notes: 'original' })
})

async function snapshot() {
  const counts: Record<string, unknown> = {}
  for (const table of ['package', 'resource', 'user', '"group"', 'member', 'tag', 'package_tag', 'package_extra', 'system_info']) {
    const r = await t.client.execute(`SELECT count(*) AS n FROM ${table}`)
    counts[table] = r.rows[0]!.n
  }
  return counts
}

describe('garbage input', () => {
  it('never produces a 500 for any action, caller or payload', async () => {
    const failures: string[] = []
    for (const name of registry.keys()) {
      for (const as of [null, user, admin]) {
        for (const payload of GARBAGE) {
          const r = await t.call(name, payload as object, as)
          const ok =
            r.status !== 500 &&
            (typeof r.body === 'string' || (typeof r.body === 'object' && typeof r.body.success === 'boolean'))
          if (!ok) failures.push(`${name} as ${as === admin ? 'sysadmin' : as ? 'user' : 'anon'}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`)
        }
      }
    }
    expect(failures).toEqual([])
  }, 120_000)

  it('leaves stored data alone after bad calls by non-sysadmins', async () => {
    const before = await snapshot()
    for (const name of registry.keys()) {
      if (name.includes('purge') || name.includes('delete')) continue
      for (const payload of GARBAGE.slice(1)) await t.call(name, payload as object, user)
    }
    expect(await snapshot()).toEqual(before)
    const ds = await t.ok('package_show', { id: dataset.id })
    expect(ds.notes).toBe('original')
  }, 120_000)
})
