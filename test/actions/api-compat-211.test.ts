// service.api_compat 2.11: site_read's removal, group type changes, activities of private datasets.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }
let v29: TestEnv
let v211: TestEnv
let sys29: Who
let sys211: Who

beforeAll(async () => {
  v29 = await setup({ 'service.api_compat': '2.9' })
  v211 = await setup({ 'service.api_compat': '2.11' })
  sys29 = await v29.make.sysadmin()
  sys211 = await v211.make.sysadmin()
})

const each = () =>
  [
    ['2.9', () => ({ t: v29, sys: sys29 })],
    ['2.11', () => ({ t: v211, sys: sys211 })],
  ] as const

describe('site_read', () => {
  it('answers True under 2.9', async () => {
    expect(await v29.ok('site_read')).toBe(true)
    const r = await v29.get('/api/3/action/site_read')
    expect(r.body.result).toBe(true)
    expect(await v29.ok('help_show', { name: 'site_read' })).toContain('Return True')
  })

  it('is an unknown action under 2.11', async () => {
    for (const r of [await v211.call('site_read'), await v211.get('/api/3/action/site_read')]) {
      expect(r.status).toBe(400)
      expect(r.body).toBe('Bad request - Action name not known: site_read')
    }
    const h = await v211.call('help_show', { name: 'site_read' })
    expect(h.status).toBe(404)
  })
})

describe('a group or organization type change', () => {
  for (const [name, isOrg] of [['group', false], ['organization', true]] as const)
    for (const verb of ['update', 'patch'])
      for (const [version, env] of each())
        it(`${name}_${verb} with another type (api_compat ${version})`, async () => {
          const { t, sys } = env()
          const admin = await t.make.user()
          const g = isOrg
            ? await t.make.organization(admin)
            : await t.make.group(admin)
          const stranger = await t.make.user()
          const change = { id: g.id, name: g.name, type: 'ragtagband' }
          if (version === '2.9') {
            const r = await t.ok(`${name}_${verb}`, change, admin)
            expect(r.type).toBe(name)
            // unchanged: a stranger is refused for want of rights
            expect((await t.call(`${name}_${verb}`, change, stranger)).status).toBe(403)
          } else {
            for (const who of [admin, stranger, sys]) {
              const r = await t.call(`${name}_${verb}`, change, who)
              expect(r.status).toBe(409)
              expect(r.body.error).toEqual({ __type: 'Validation Error', message: 'Type cannot be updated' })
            }
            // its own type, or none, is fine
            await t.ok(`${name}_${verb}`, { ...change, type: name }, admin)
          }
          expect((await t.ok(`${name}_show`, { id: g.id })).type).toBe(name)
        })
})
