// task_status_show/update/update_many/delete: CKAN's shapes and messages, create-or-update, one batch.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { taskStatuses } from '../../src/db/schema'
import { setup, type CallResult, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let user: Who
let orgAdmin: Who

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  user = await t.make.user()
  orgAdmin = await t.make.user()
  await t.make.organization(orgAdmin)
})

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

function expectInvalid(r: CallResult, errors: Record<string, unknown>) {
  expect(r.status).toBe(409)
  expect(r.body.success).toBe(false)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...errors })
}

function expectDenied(r: CallResult, message: string) {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({
    __type: 'Authorization Error',
    message: `Access denied: ${message}`,
  })
}

function expectNotFound(r: CallResult, message: string) {
  expect(r.status).toBe(404)
  expect(r.body.error).toEqual({ __type: 'Not Found Error', message })
}

/** The four key fields of a new task status. */
const task = (fields: Record<string, unknown> = {}) => ({
  entity_id: uniq('entity'),
  entity_type: 'resource',
  task_type: 'qa',
  key: 'openness_score',
  ...fields,
})

const rowsOf = (entityId: string) =>
  t.db.select().from(taskStatuses).where(eq(taskStatuses.entity_id, entityId))

describe('task_status_update', () => {
  it('creates a task status with CKAN defaults: empty value, no state or error, now', async () => {
    const params = task()
    const r = await t.call('task_status_update', params, sys)
    expect(r.status).toBe(200)
    const d = r.body.result
    expect(Object.keys(d)).toEqual([
      'id',
      'entity_id',
      'entity_type',
      'task_type',
      'key',
      'value',
      'state',
      'error',
      'last_updated',
    ])
    expect(d).toMatchObject({ ...params, value: '', state: null, error: null })
    expect(d.id).toMatch(UUID)
    expect(d.last_updated).toMatch(ISO)
    expect(await rowsOf(params.entity_id)).toHaveLength(1)
  })

  it('updates the task status with the same entity_id, task_type and key', async () => {
    const params = task({ value: '3', state: 'done', error: 'none' })
    const first = await t.ok('task_status_update', params, sys)
    const second = await t.ok(
      'task_status_update',
      { ...params, value: '4', state: undefined },
      sys,
    )
    expect(second).toEqual({ ...first, value: '4' })
    // ckan: left out or null, a value keeps what is stored
    const third = await t.ok('task_status_update', { ...params, value: null, error: 'oops' }, sys)
    expect(third).toEqual({ ...first, value: '4', error: 'oops' })
    expect(await rowsOf(params.entity_id)).toHaveLength(1)
    // another key is another task status
    const other = await t.ok('task_status_update', { ...params, key: 'other' }, sys)
    expect(other.id).not.toBe(first.id)
    expect(await rowsOf(params.entity_id)).toHaveLength(2)
  })

  it('updates the task status named by id, key fields included', async () => {
    const made = await t.ok('task_status_update', task({ value: 'a' }), sys)
    const moved = task({ task_type: 'archiver' })
    const r = await t.ok('task_status_update', { id: made.id, ...moved }, sys)
    expect(r).toEqual({ ...made, ...moved })
    expect(await rowsOf(made.entity_id)).toEqual([])
    expect(await t.ok('task_status_show', { id: made.id })).toEqual(r)
  })

  it('stores values as text and last_updated in ISO form', async () => {
    const r = await t.ok(
      'task_status_update',
      task({ entity_id: 42, value: 5, state: true, last_updated: '2012-03-04 05:06:07' }),
      sys,
    )
    expect(r).toMatchObject({ entity_id: '42', value: '5', state: 'True' })
    expect(r.last_updated).toBe('2012-03-04T05:06:07')
    const again = await t.ok(
      'task_status_update',
      { ...task({ entity_id: 42 }), last_updated: '2013-01-02T03:04:05.123456' },
      sys,
    )
    expect(again).toMatchObject({
      id: r.id,
      value: '5',
      last_updated: '2013-01-02T03:04:05.123456',
    })
  })

  it('reports missing key fields and a bad last_updated', async () => {
    expectInvalid(await t.call('task_status_update', {}, sys), {
      entity_id: ['Missing value'],
      entity_type: ['Missing value'],
      task_type: ['Missing value'],
      key: ['Missing value'],
    })
    expectInvalid(await t.call('task_status_update', task({ key: '', entity_type: null }), sys), {
      entity_type: ['Missing value'],
      key: ['Missing value'],
    })
    const params = task({ last_updated: 'yesterday' })
    expectInvalid(await t.call('task_status_update', params, sys), {
      last_updated: ['Date format incorrect'],
    })
    expect(await rowsOf(params.entity_id)).toEqual([])
  })

  it('answers 404 for an unknown id, before checking the caller', async () => {
    const msg = 'Not found: TaskStatus was not found.'
    expectNotFound(await t.call('task_status_update', { id: 'nope', ...task() }, sys), msg)
    expectNotFound(await t.call('task_status_update', { id: 'nope', ...task() }), msg)
    expectNotFound(await t.call('task_status_update', { id: 'nope' }, user), msg)
  })

  it('refuses to give one task status the keys of another', async () => {
    const a = await t.ok('task_status_update', task(), sys)
    const b = await t.ok('task_status_update', task(), sys)
    const r = await t.call(
      'task_status_update',
      { id: b.id, entity_id: a.entity_id, entity_type: 'x', task_type: a.task_type, key: a.key },
      sys,
    )
    expectInvalid(r, { key: ['Another task status has this entity_id, task_type and key.'] })
    expect(await t.ok('task_status_show', { id: b.id })).toEqual(b)
  })

  it('is for sysadmins only', async () => {
    const params = task()
    expectDenied(
      await t.call('task_status_update', params),
      'Action task_status_update requires an authenticated user',
    )
    for (const who of [user, orgAdmin])
      expectDenied(
        await t.call('task_status_update', params, who),
        `User ${who.name} not authorized to update task_status table`,
      )
    expect(await rowsOf(params.entity_id)).toEqual([])
  })
})

describe('task_status_update_many', () => {
  it('saves every item and returns them in order', async () => {
    const a = task({ value: '1' })
    const b = task({ value: '2' })
    const r = await t.call('task_status_update_many', { data: [a, b] }, sys)
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.result)).toEqual(['results'])
    expect(r.body.result.results).toMatchObject([a, b])
    expect(await rowsOf(a.entity_id)).toHaveLength(1)
    expect(await rowsOf(b.entity_id)).toHaveLength(1)
  })

  it('lets a later item update what an earlier one created', async () => {
    const a = task({ value: '1', state: 's' })
    const { results } = await t.ok(
      'task_status_update_many',
      { data: [a, { ...a, value: '2' }] },
      sys,
    )
    expect(results[1]).toEqual({ ...results[0], value: '2' })
    expect(await rowsOf(a.entity_id)).toMatchObject([{ id: results[0].id, value: '2', state: 's' }])
  })

  it('saves nothing when one item fails', async () => {
    const a = task()
    const existing = await t.ok('task_status_update', task({ value: 'before' }), sys)
    const data = [a, { ...existing, value: 'after' }, { entity_id: 'x' }]
    expectInvalid(await t.call('task_status_update_many', { data }, sys), {
      entity_type: ['Missing value'],
      task_type: ['Missing value'],
      key: ['Missing value'],
    })
    expect(await rowsOf(a.entity_id)).toEqual([])
    expect((await rowsOf(existing.entity_id))[0]!.value).toBe('before')
    expectNotFound(
      await t.call('task_status_update_many', { data: [a, { id: 'nope', ...task() }] }, sys),
      'Not found: TaskStatus was not found.',
    )
    expect(await rowsOf(a.entity_id)).toEqual([])
  })

  it('needs a list of dicts in data', async () => {
    expectInvalid(await t.call('task_status_update_many', {}, sys), { data: ['Missing value'] })
    for (const data of ['x', [1], [task(), 'y'], { a: 1 }])
      expectInvalid(await t.call('task_status_update_many', { data }, sys), {
        data: ['Must be a list of dicts'],
      })
    expect(await t.ok('task_status_update_many', { data: [] }, sys)).toEqual({ results: [] })
  })

  it('is for sysadmins only', async () => {
    const a = task()
    expectDenied(
      await t.call('task_status_update_many', { data: [a] }),
      'Action task_status_update requires an authenticated user',
    )
    expectDenied(
      await t.call('task_status_update_many', { data: [a] }, user),
      `User ${user.name} not authorized to update task_status table`,
    )
    expectDenied(
      await t.call('task_status_update_many', { data: [] }, user),
      `User ${user.name} not authorized to update task_status table`,
    )
    expect(await rowsOf(a.entity_id)).toEqual([])
  })
})

describe('task_status_show', () => {
  it('finds a task status by id or by entity_id, task_type and key, for anyone', async () => {
    const made = await t.ok('task_status_update', task({ value: 'v' }), sys)
    expect(await t.ok('task_status_show', { id: made.id })).toEqual(made)
    const { entity_id, task_type, key } = made
    expect(await t.ok('task_status_show', { entity_id, task_type, key }, user)).toEqual(made)
    const r = await t.get(
      `/api/3/action/task_status_show?entity_id=${entity_id}&task_type=${task_type}&key=${key}`,
    )
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual(made)
  })

  it('answers 404 when there is none', async () => {
    const made = await t.ok('task_status_update', task(), sys)
    expectNotFound(await t.call('task_status_show', { id: 'nope' }), 'Not found')
    const { entity_id, task_type } = made
    expectNotFound(
      await t.call('task_status_show', { entity_id, task_type, key: 'x' }),
      'Not found',
    )
    expectNotFound(
      await t.call('task_status_show', { entity_id, task_type, key: null }),
      'Not found',
    )
  })

  it('asks for the keys one at a time when there is no id', async () => {
    expectInvalid(await t.call('task_status_show', {}), { entity_id: ['Missing value'] })
    expectInvalid(await t.call('task_status_show', { id: '', entity_id: 'e' }), {
      task_type: ['Missing value'],
    })
    expectInvalid(await t.call('task_status_show', { entity_id: 'e', task_type: 'q' }), {
      key: ['Missing value'],
    })
  })
})

describe('task_status_delete', () => {
  it('removes the task status', async () => {
    const made = await t.ok('task_status_update', task(), sys)
    const r = await t.call('task_status_delete', { id: made.id }, sys)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect(await rowsOf(made.entity_id)).toEqual([])
    expectNotFound(await t.call('task_status_show', { id: made.id }), 'Not found')
    expectNotFound(await t.call('task_status_delete', { id: made.id }, sys), 'Not found')
  })

  it('needs an id that names a task status', async () => {
    expectInvalid(await t.call('task_status_delete', {}, sys), { id: ['Missing value'] })
    expectNotFound(await t.call('task_status_delete', { id: 'nope' }, sys), 'Not found')
    expectNotFound(await t.call('task_status_delete', { id: '' }), 'Not found')
  })

  it('is for sysadmins only', async () => {
    const made = await t.ok('task_status_update', task(), sys)
    expectDenied(
      await t.call('task_status_delete', { id: made.id }),
      'Action task_status_delete requires an authenticated user',
    )
    for (const who of [user, orgAdmin])
      expectDenied(
        await t.call('task_status_delete', { id: made.id }, who),
        `User ${who.name} not authorized to delete task_status`,
      )
    expect(await rowsOf(made.entity_id)).toHaveLength(1)
  })
})
