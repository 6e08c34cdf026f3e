// Trigger functions over the action API: datastore_function_create/delete, triggers on
// datastore_create, how inserts, upserts and updates run them (changes, rejections, skipped rows,
// all-or-nothing, full text), and datastore_run_triggers.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller
let user: Caller & { name: string }

const UPPER = 'BEGIN NEW.name := upper(NEW.name); RETURN NEW; END;'
const CHECK = `BEGIN
  IF NEW.n < 0 THEN
    RAISE EXCEPTION 'row % has a negative n: % (%%)', NEW.name, NEW.n;
  END IF;
  RETURN NEW;
END;`
const SKIP = `BEGIN IF NEW.name = 'skip' THEN RETURN NULL; END IF; RETURN NEW; END;`
const SUFFIX = `BEGIN NEW.name := NEW.name || '-x'; RETURN NEW; END;`
const ZEBRA = `BEGIN NEW.note := replace(NEW.note, 'cat', 'zebra'); RETURN NEW; END;`
// total from the merged row; prev from OLD (NULL on insert)
const TOTAL = `BEGIN
  NEW.total := coalesce(NEW.a, 0) + coalesce(NEW.b, 0);
  NEW.op := TG_OP;
  IF TG_OP = 'UPDATE' THEN NEW.prev := OLD.total; END IF;
  RETURN NEW;
END;`

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
  user = await t.make.user()
  const fns: [string, string][] = [
    ['trg_upper', UPPER],
    ['trg_check', CHECK],
    ['trg_skip', SKIP],
    ['trg_suffix', SUFFIX],
    ['trg_zebra', ZEBRA],
    ['trg_total', TOTAL],
  ]
  for (const [name, definition] of fns) await createFn(name, definition)
})

const invalid = (field: string, ...msgs: string[]) => ({
  __type: 'Validation Error',
  [field]: msgs,
})
const denied = (message: string) => ({ __type: 'Authorization Error', message })

const createFn = (name: string, definition: string, extra: Record<string, unknown> = {}) =>
  t.ok('datastore_function_create', { name, rettype: 'trigger', definition, ...extra }, admin)

const insert = (id: string, records: object[]) =>
  t.ok('datastore_upsert', { resource_id: id, method: 'insert', records }, admin)
/** Status and error (or result) of datastore_function_create with rettype trigger. */
const createOutcome = (params: Record<string, unknown>) =>
  outcome('datastore_function_create', { rettype: 'trigger', ...params })

/** Status and error (or result) of a call. */
async function outcome(name: string, params: object, as: Caller | null = admin) {
  const r = await t.call(name, params, as)
  return [r.status, r.body.success ? r.body.result : r.body.error]
}

const NAMED = [
  { id: 'name', type: 'text' },
  { id: 'n', type: 'int' },
  { id: 'note', type: 'text' },
]

/** A datastore resource with a table; returns the resource id. */
async function table(params: Record<string, unknown>): Promise<string> {
  const ds = await t.make.dataset(admin)
  const made = await t.ok(
    'datastore_create',
    { resource: { package_id: ds.id }, fields: NAMED, ...params },
    admin,
  )
  return made.resource_id as string
}

/** A datastore resource without a table yet. */
async function bareResource(): Promise<string> {
  const ds = await t.make.dataset(admin)
  const res = await t.ok('resource_create', { package_id: ds.id, url: 'http://x/y.csv' }, admin)
  return res.id as string
}

const search = (id: string, params: Record<string, unknown> = {}) =>
  t.ok('datastore_search', { resource_id: id, sort: '_id', ...params }, admin)
const rows = async (id: string) => (await search(id)).records
const names = async (id: string, params: Record<string, unknown> = {}) =>
  (await search(id, params)).records.map((r: { name: string }) => r.name)

describe('datastore_function_create', () => {
  const body = { name: 'trg_refused', rettype: 'trigger', definition: UPPER }

  it('refuses anonymous callers and normal users, and creates nothing', async () => {
    expect(await outcome('datastore_function_create', body, null)).toEqual([
      403,
      denied('Access denied: Action datastore_function_create requires an authenticated user'),
    ])
    expect(await outcome('datastore_function_create', body, user)).toEqual([
      403,
      denied(`Access denied: User ${user.name} not authorized to datastore_function_create`),
    ])
    expect(await outcome('datastore_function_delete', { name: 'trg_refused' })).toEqual([
      409,
      invalid('name', 'function trg_refused() does not exist'),
    ])
  })

  it('validates before it checks the caller, as CKAN does', async () => {
    expect(await outcome('datastore_function_create', { definition: UPPER }, null)).toEqual([
      409,
      invalid('name', 'Missing value'),
    ])
    expect(await outcome('datastore_function_delete', {}, user)).toEqual([
      409,
      invalid('name', 'Missing value'),
    ])
  })

  it('answers a syntax error under "definition" and stores nothing', async () => {
    const cases: [string, string][] = [
      ['BEGIN HELLO; END;', 'syntax error at or near "HELLO"'],
      ['BEGIN NEW.a := nosuch(1); RETURN NEW; END;', 'function nosuch(integer) does not exist'],
    ]
    for (const [definition, msg] of cases) {
      const r = await outcome('datastore_function_create', { ...body, name: 'trg_bad', definition })
      expect(r).toEqual([409, invalid('definition', msg)])
    }
    expect((await outcome('datastore_function_delete', { name: 'trg_bad' }))[0]).toBe(409)
  })

  it('refuses an existing name without or_replace; or_replace replaces the body', async () => {
    await createFn('trg_swap', UPPER)
    const id = await table({ triggers: [{ function: 'trg_swap' }], records: [{ name: 'a' }] })
    expect(await createOutcome({ name: 'trg_swap', definition: SUFFIX })).toEqual([
      409,
      invalid('name', 'function "trg_swap" already exists with same argument types'),
    ])
    await insert(id, [{ name: 'b' }])
    expect(await createFn('trg_swap', SUFFIX, { or_replace: true })).toBeNull()
    await insert(id, [{ name: 'c' }])
    expect(await names(id)).toEqual(['A', 'B', 'c-x'])
  })

  it('accepts only trigger functions', async () => {
    for (const rettype of ['void', 'int', 'text']) {
      expect(await createOutcome({ ...body, name: 'trg_r', rettype })).toEqual([
        409,
        invalid('rettype', "Value must be one of ['trigger']"),
      ])
    }
    // rettype left out means a trigger function
    const { rettype: _, ...noType } = body
    expect(await outcome('datastore_function_create', { ...noType, name: 'trg_default' })).toEqual([
      200,
      null,
    ])
  })

  it('validates the name and the definition', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ definition: UPPER }, 'name', 'Missing value'],
      [{ name: '', definition: UPPER }, 'name', 'Missing value'],
      [{ name: '_hidden', definition: UPPER }, 'name', '"_hidden" is not a valid function name'],
      [{ name: 'trg_nodef' }, 'definition', 'Missing value'],
    ]
    for (const [params, field, msg] of cases) {
      expect(await createOutcome(params)).toEqual([
        409,
        invalid(field, msg),
      ])
    }
  })
})

describe('datastore_create: triggers', () => {
  it('refuses an unknown function and creates no table', async () => {
    const id = await bareResource()
    const r = await outcome('datastore_create', {
      resource_id: id,
      force: true,
      fields: NAMED,
      triggers: [{ function: 'trg_upper' }, { function: 'no_such_fn' }],
      records: [{ name: 'a' }],
    })
    expect(r).toEqual([409, invalid('triggers', 'function no_such_fn() does not exist')])
    expect(await outcome('datastore_search', { resource_id: id })).toEqual([
      404,
      { __type: 'Not Found Error', message: `Not found: Resource "${id}" was not found.` },
    ])
  })

  it('changes rows on insert, running the functions in list order', async () => {
    const upperFirst = await table({
      triggers: [{ function: 'trg_upper' }, { function: 'trg_suffix' }],
      records: [{ name: 'abc', n: 1 }],
    })
    const suffixFirst = await table({
      triggers: [{ function: 'trg_suffix' }, { function: 'trg_upper' }],
      records: [{ name: 'abc', n: 1 }],
    })
    expect(await rows(upperFirst)).toEqual([{ _id: 1, name: 'ABC-x', n: 1, note: null }])
    expect(await rows(suffixFirst)).toEqual([{ _id: 1, name: 'ABC-X', n: 1, note: null }])
    await insert(upperFirst, [{ name: 'd' }])
    expect(await names(upperFirst)).toEqual(['ABC-x', 'D-x'])
  })

  it('rejects a row with the formatted message, writing nothing of the request', async () => {
    const records = [
      { name: 'good', n: 1 },
      { name: 'bad', n: -2 },
    ]
    const id = await bareResource()
    const triggers = [{ function: 'trg_check' }]
    const create = { resource_id: id, force: true, fields: NAMED, triggers, records }
    const msg = 'row bad has a negative n: -2 (%)'
    // ckan 2.11: the failing record's index as records_row
    const named = { ...invalid('records', msg), records_row: 1 }
    expect(await outcome('datastore_create', create)).toEqual([409, named])
    expect((await outcome('datastore_search', { resource_id: id }))[0]).toBe(404)

    const kept = await table({ triggers, records: [{ name: 'first', n: 0 }] })
    const insert = { resource_id: kept, method: 'insert', records }
    expect(await outcome('datastore_upsert', insert)).toEqual([409, named])
    expect(await names(kept)).toEqual(['first'])
  })

  it('skips a row whose function returns NULL', async () => {
    const id = await table({
      triggers: [{ function: 'trg_skip' }],
      records: [{ name: 'a' }, { name: 'skip' }, { name: 'b' }],
    })
    expect(await names(id)).toEqual(['a', 'b'])
    await insert(id, [{ name: 'skip' }, { name: 'c' }])
    expect(await names(id)).toEqual(['a', 'b', 'c'])
  })

  it('keeps full text in step with the values the functions wrote', async () => {
    const id = await table({
      triggers: [{ function: 'trg_zebra' }],
      records: [{ name: 'a', note: 'the cat sat' }, { name: 'b', note: 'a dog' }],
    })
    expect(await names(id, { q: 'zebra' })).toEqual(['a'])
    expect(await names(id, { q: 'cat' })).toEqual([])
    await insert(id, [{ name: 'c', note: 'cat' }])
    expect(await names(id, { q: 'zebra' })).toEqual(['a', 'c'])
  })
})

describe('datastore_upsert: triggers on the update path', () => {
  const KEYED = [
    { id: 'code', type: 'text' },
    { id: 'a', type: 'int' },
    { id: 'b', type: 'int' },
    { id: 'total', type: 'int' },
    { id: 'prev', type: 'int' },
    { id: 'op', type: 'text' },
  ]

  async function keyed(records: object[]) {
    const ds = await t.make.dataset(admin)
    const made = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: KEYED,
        primary_key: 'code',
        triggers: [{ function: 'trg_total' }],
        records,
      },
      admin,
    )
    return made.resource_id as string
  }
  const upsert = (id: string, method: string, records: object[]) =>
    t.ok('datastore_upsert', { resource_id: id, method, records }, admin)
  type N = number | null
  const row = (code: string, a: N, b: N, total: N, prev: N, op: string) => ({
    code,
    a,
    b,
    total,
    prev,
    op,
  })
  const y = row('y', null, 4, 4, null, 'INSERT')
  const stripIds = (records: Record<string, unknown>[]) => records.map(({ _id, ...r }) => r)

  it('sees the merged row and OLD on upsert and update, NEW only on insert', async () => {
    const id = await keyed([{ code: 'x', a: 1, b: 2 }])
    expect(stripIds(await rows(id))).toEqual([row('x', 1, 2, 3, null, 'INSERT')])
    await upsert(id, 'upsert', [{ code: 'x', a: 10 }, { code: 'y', b: 4 }])
    expect(stripIds(await rows(id))).toEqual([row('x', 10, 2, 12, 3, 'UPDATE'), y])
    await upsert(id, 'update', [{ code: 'x', b: 5 }, { code: 'x', a: 0 }])
    expect(stripIds(await rows(id))).toEqual([row('x', 0, 5, 5, 15, 'UPDATE'), y])
  })

  it('rejects an update with the message and writes none of the records', async () => {
    const ds = await t.make.dataset(admin)
    const made = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: NAMED,
        primary_key: 'name',
        triggers: [{ function: 'trg_check' }],
        records: [{ name: 'a', n: 1 }, { name: 'b', n: 2 }],
      },
      admin,
    )
    const id = made.resource_id as string
    for (const method of ['update', 'upsert']) {
      const records = [{ name: 'a', n: 5 }, { name: 'b', n: -1 }]
      expect(await outcome('datastore_upsert', { resource_id: id, method, records })).toEqual([
        409,
        // ckan: 2.9's _records_row and 2.11's records_row
        { ...invalid('records', 'row b has a negative n: -1 (%)'), _records_row: 1, records_row: 1 },
      ])
    }
    expect((await rows(id)).map((r: { n: number }) => r.n)).toEqual([1, 2])
  })
})

describe('datastore_run_triggers', () => {
  it('is for sysadmins only', async () => {
    const id = await table({ records: [{ name: 'a' }] })
    expect(await outcome('datastore_run_triggers', { resource_id: id }, null)).toEqual([
      403,
      denied('Access denied: Action datastore_run_triggers requires an authenticated user'),
    ])
    expect(await outcome('datastore_run_triggers', { resource_id: id }, user)).toEqual([
      403,
      denied(`Access denied: User ${user.name} not authorized to datastore_run_triggers`),
    ])
  })

  it('applies a newly attached function to existing rows and returns the row count', async () => {
    const records = [
      { name: 'a', note: 'cat one' },
      { name: 'b', note: 'dog' },
      { name: 'c', note: 'cat three' },
    ]
    const id = await table({ records })
    const triggers = [{ function: 'trg_upper' }, { function: 'trg_zebra' }]
    const attach = { resource_id: id, triggers }
    await t.ok('datastore_create', attach, admin)
    expect(await names(id)).toEqual(['a', 'b', 'c']) // attaching changes nothing yet
    expect(await outcome('datastore_run_triggers', { resource_id: id })).toEqual([200, 3])
    expect(await rows(id)).toEqual([
      { _id: 1, name: 'A', n: null, note: 'zebra one' },
      { _id: 2, name: 'B', n: null, note: 'dog' },
      { _id: 3, name: 'C', n: null, note: 'zebra three' },
    ])
    expect(await names(id, { q: 'zebra' })).toEqual(['A', 'C'])
    expect(await names(id, { q: 'cat' })).toEqual([])
    // idempotent functions: running again changes nothing and still counts every row
    expect(await outcome('datastore_run_triggers', { resource_id: id })).toEqual([200, 3])
  })

  it('rejects with the message under "records" and changes nothing', async () => {
    const id = await table({ records: [{ name: 'a', n: 1 }, { name: 'b', n: -1 }] })
    const triggers = [{ function: 'trg_upper' }, { function: 'trg_check' }]
    await t.ok('datastore_create', { resource_id: id, triggers }, admin)
    expect(await outcome('datastore_run_triggers', { resource_id: id })).toEqual([
      409,
      invalid('records', 'row B has a negative n: -1 (%)'),
    ])
    expect(await names(id)).toEqual(['a', 'b'])
  })

  it('does not count rows a function skips, and leaves them as they were', async () => {
    const id = await table({ records: [{ name: 'a' }, { name: 'skip' }, { name: 'c' }] })
    const triggers = [{ function: 'trg_skip' }, { function: 'trg_upper' }]
    await t.ok('datastore_create', { resource_id: id, triggers }, admin)
    expect(await outcome('datastore_run_triggers', { resource_id: id })).toEqual([200, 2])
    expect(await names(id)).toEqual(['A', 'skip', 'C'])
  })

  it('counts the rows of a table without triggers, and of an empty one', async () => {
    const id = await table({ records: [{ name: 'a' }, { name: 'b' }] })
    expect(await outcome('datastore_run_triggers', { resource_id: id })).toEqual([200, 2])
    const empty = await table({})
    expect(await outcome('datastore_run_triggers', { resource_id: empty })).toEqual([200, 0])
  })

  it('needs a resource_id naming a table', async () => {
    const missing = invalid('resource_id', 'Missing value')
    expect(await outcome('datastore_run_triggers', {})).toEqual([409, missing])
    expect(await outcome('datastore_run_triggers', { resource_id: 'no-such-table' })).toEqual([
      404,
      { __type: 'Not Found Error', message: 'Not found: Resource "no-such-table" was not found.' },
    ])
  })
})

describe('datastore_function_delete', () => {
  it('is for sysadmins only', async () => {
    await createFn('trg_keep', UPPER)
    expect(await outcome('datastore_function_delete', { name: 'trg_keep' }, null)).toEqual([
      403,
      denied('Access denied: Action datastore_function_delete requires an authenticated user'),
    ])
    expect(await outcome('datastore_function_delete', { name: 'trg_keep' }, user)).toEqual([
      403,
      denied(`Access denied: User ${user.name} not authorized to datastore_function_delete`),
    ])
    // still there: creating it again is refused
    const again = await createOutcome({ name: 'trg_keep', definition: UPPER })
    expect(again[0]).toBe(409)
  })

  it('names a missing function unless if_exists', async () => {
    expect(await outcome('datastore_function_delete', { name: 'trg_never' })).toEqual([
      409,
      invalid('name', 'function trg_never() does not exist'),
    ])
    const ifExists = { name: 'trg_never', if_exists: true }
    expect(await outcome('datastore_function_delete', ifExists)).toEqual([200, null])
    const missing = invalid('name', 'Missing value')
    expect(await outcome('datastore_function_delete', {})).toEqual([409, missing])
  })

  it('refuses while a table uses the function, and works once the table drops it', async () => {
    await createFn('trg_used', UPPER)
    const id = await table({ triggers: [{ function: 'trg_used' }], records: [{ name: 'a' }] })
    expect(await outcome('datastore_function_delete', { name: 'trg_used' })).toEqual([
      409,
      invalid('name', 'cannot drop function trg_used() because other objects depend on it'),
    ])
    await t.ok('datastore_create', { resource_id: id, triggers: [] }, admin)
    expect(await outcome('datastore_function_delete', { name: 'trg_used' })).toEqual([200, null])
    // the table writes without it, and cannot take it back
    await insert(id, [{ name: 'b' }])
    expect(await names(id)).toEqual(['A', 'b'])
    const back = { resource_id: id, triggers: [{ function: 'trg_used' }] }
    expect(await outcome('datastore_create', back)).toEqual([
      409,
      invalid('triggers', 'function trg_used() does not exist'),
    ])
  })

  it('can delete a function once the table using it is deleted', async () => {
    await createFn('trg_gone', UPPER)
    const id = await table({ triggers: [{ function: 'trg_gone' }] })
    await t.ok('datastore_delete', { resource_id: id }, admin)
    expect(await outcome('datastore_function_delete', { name: 'trg_gone' })).toEqual([200, null])
  })
})

describe('timestamps through triggers', () => {
  it('a row a trigger passes on keeps the fraction of its timestamps', async () => {
    const id = await table({
      fields: [...NAMED, { id: 'at', type: 'timestamp' }],
      triggers: [{ function: 'trg_upper' }],
      records: [{ name: 'a', at: '2005-03-01 10:11:12.123456' }],
    })
    await t.ok('datastore_upsert', { resource_id: id, method: 'insert', records: [{ name: 'b', at: '2005-03-01T10:11:12.5' }] }, admin)
    const sql = await t.ok('datastore_search_sql', { sql: `SELECT name, at FROM "${id}" ORDER BY _id` }, admin)
    expect(sql.records).toEqual([
      { name: 'A', at: '2005-03-01T10:11:12.123456' },
      { name: 'B', at: '2005-03-01T10:11:12.500000' },
    ])
  })
})
