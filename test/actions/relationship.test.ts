// Dataset relationships: package_relationship_create/update/delete and package_relationships_list
// (types and inverses, CKAN's messages, edit rights on both datasets, private datasets kept out).
import { beforeAll, describe, expect, it } from 'vitest'
import { eq, or } from 'drizzle-orm'
import { packageRelationships } from '../../src/db/schema'
import { setup, type CallResult, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }
type Dataset = { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who // admin of org
let editor: Who // editor of org
let member: Who // member of org
let outsider: Who
let org: { id: string }
let otherOrg: { id: string } // administered by outsider

const TYPES = [
  'depends_on',
  'dependency_of',
  'derives_from',
  'has_derivation',
  'links_to',
  'linked_from',
  'child_of',
  'parent_of',
]
const TYPE_MESSAGE = `Value must be one of [${TYPES.map((x) => `'${x}'`).join(', ')}]`
const PAIRS = [
  ['depends_on', 'dependency_of'],
  ['derives_from', 'has_derivation'],
  ['links_to', 'linked_from'],
  ['child_of', 'parent_of'],
] as const

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  outsider = await t.make.user()
  org = await t.make.organization(admin)
  otherOrg = await t.make.organization(outsider)
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const)
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
})

/** A public dataset of org (or of `owner`'s organization). */
const dataset = (fields: Record<string, unknown> = {}): Promise<Dataset> =>
  t.make.dataset(admin, { owner_org: org.id, ...fields })

const show = (id: string) => t.ok('package_show', { id }, sys)

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

const relRows = (a: string, b: string) =>
  t.db
    .select()
    .from(packageRelationships)
    .where(
      or(
        eq(packageRelationships.subject_package_id, a),
        eq(packageRelationships.subject_package_id, b),
      ),
    )

describe('package_relationship_create', () => {
  it('returns the relationship by dataset names and shows it in both package_show dicts', async () => {
    const a = await dataset()
    const b = await dataset()
    // cached before the write: the change log must make both dicts stale
    expect((await show(a.id)).relationships_as_subject).toEqual([])
    expect((await show(b.id)).relationships_as_object).toEqual([])
    const r = await t.call(
      'package_relationship_create',
      { subject: a.name, object: b.id, type: 'depends_on', comment: 'needs it' },
      admin,
    )
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual({
      subject: a.name,
      type: 'depends_on',
      object: b.name,
      comment: 'needs it',
    })
    const entry = {
      id: expect.any(String),
      subject_package_id: a.id,
      object_package_id: b.id,
      type: 'depends_on',
      comment: 'needs it',
    }
    expect((await show(a.id)).relationships_as_subject).toEqual([entry])
    expect((await show(a.id)).relationships_as_object).toEqual([])
    expect((await show(b.id)).relationships_as_object).toEqual([entry])
    expect((await show(b.id)).relationships_as_subject).toEqual([])
    // anonymous readers get the same dicts as the sysadmin
    expect((await t.ok('package_show', { id: b.name })).relationships_as_object).toEqual([entry])
  })

  it('stores each reverse type swapped to its forward form, seen reversed from the other side', async () => {
    for (const [fwd, rev] of PAIRS) {
      const a = await dataset()
      const b = await dataset()
      // "b <rev> a" is stored as "a <fwd> b"
      const made = await t.ok(
        'package_relationship_create',
        { subject: b.id, type: rev, object: a.id },
        admin,
      )
      expect(made).toEqual({ subject: a.name, type: fwd, object: b.name, comment: '' })
      const rows = await relRows(a.id, b.id)
      expect(rows.map((x) => [x.subject_package_id, x.type, x.object_package_id])).toEqual([
        [a.id, fwd, b.id],
      ])
      expect(await t.ok('package_relationships_list', { id: b.name })).toEqual([
        { subject: b.name, type: rev, object: a.name, comment: '' },
      ])
      expect(await t.ok('package_relationships_list', { id: a.name })).toEqual([
        { subject: a.name, type: fwd, object: b.name, comment: '' },
      ])
      expect((await show(a.id)).relationships_as_subject).toMatchObject([
        { type: fwd, object_package_id: b.id },
      ])
      expect((await show(b.id)).relationships_as_object).toMatchObject([
        { type: fwd, subject_package_id: a.id },
      ])
    }
  })

  it('keeps forward types as given', async () => {
    for (const [fwd] of PAIRS) {
      const a = await dataset()
      const b = await dataset()
      const made = await t.ok(
        'package_relationship_create',
        { subject: a.name, type: fwd, object: b.name },
        sys,
      )
      expect(made).toEqual({ subject: a.name, type: fwd, object: b.name, comment: '' })
    }
  })

  it('updates the comment of an existing relationship instead of adding another', async () => {
    const a = await dataset()
    const b = await dataset()
    await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'links_to', object: b.id, comment: 'one' },
      admin,
    )
    // the same relationship named from the other side
    const again = await t.ok(
      'package_relationship_create',
      { subject: b.id, type: 'linked_from', object: a.id, comment: 'two' },
      admin,
    )
    expect(again).toEqual({ subject: a.name, type: 'links_to', object: b.name, comment: 'two' })
    expect(await relRows(a.id, b.id)).toHaveLength(1)
    expect((await show(b.id)).relationships_as_object).toMatchObject([{ comment: 'two' }])
    // ckan: sent again without a comment, the comment is emptied
    const third = await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'links_to', object: b.id },
      admin,
    )
    expect(third.comment).toBe('')
  })

  it('brings a deleted relationship back, keeping its comment unless a new one is sent', async () => {
    const a = await dataset()
    const b = await dataset()
    await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'child_of', object: b.id, comment: 'kept' },
      admin,
    )
    const [before] = await relRows(a.id, b.id)
    await t.ok(
      'package_relationship_delete',
      { subject: a.id, type: 'child_of', object: b.id },
      admin,
    )
    expect(await t.ok('package_relationships_list', { id: a.id })).toEqual([])
    const back = await t.ok(
      'package_relationship_create',
      { subject: b.id, type: 'parent_of', object: a.id },
      admin,
    )
    expect(back).toEqual({ subject: a.name, type: 'child_of', object: b.name, comment: 'kept' })
    const rows = await relRows(a.id, b.id)
    expect(rows).toEqual([{ ...before, state: 'active' }])
    expect((await show(b.id)).relationships_as_object).toMatchObject([
      { id: before!.id, comment: 'kept' },
    ])
    await t.ok(
      'package_relationship_delete',
      { subject: a.id, type: 'child_of', object: b.id },
      admin,
    )
    const renewed = await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'child_of', object: b.id, comment: 'new' },
      admin,
    )
    expect(renewed.comment).toBe('new')
    expect(await relRows(a.id, b.id)).toHaveLength(1)
  })

  it('reports missing keys together, before looking anything up or checking the caller', async () => {
    expectInvalid(await t.call('package_relationship_create', {}), {
      subject: ['Missing value'],
      object: ['Missing value'],
      type: ['Missing value'],
    })
    const a = await dataset()
    expectInvalid(
      await t.call('package_relationship_create', { subject: a.id, object: null }, admin),
      {
        object: ['Missing value'],
        type: ['Missing value'],
      },
    )
  })

  it('answers 404 for an unknown subject or object, even to anonymous callers', async () => {
    const a = await dataset()
    expectNotFound(
      await t.call('package_relationship_create', {
        subject: 'no-such-ds',
        object: a.id,
        type: 'depends_on',
      }),
      "Not found: Subject package 'no-such-ds' was not found.",
    )
    // ckan 2.9 crashes here (it returns the exception instead of raising it)
    expectNotFound(
      await t.call(
        'package_relationship_create',
        { subject: a.id, object: 'nope', type: 'depends_on' },
        admin,
      ),
      "Not found: Object package 'nope' was not found.",
    )
    expectNotFound(
      await t.call('package_relationship_create', { subject: '', object: a.id, type: 'x' }, admin),
      "Not found: Subject package '' was not found.",
    )
  })

  it('checks the type and refuses an id', async () => {
    const a = await dataset()
    const b = await dataset()
    const params = { subject: a.id, object: b.id }
    expectInvalid(
      await t.call('package_relationship_create', { ...params, type: 'sibling_of' }, admin),
      {
        type: [TYPE_MESSAGE],
      },
    )
    expectInvalid(await t.call('package_relationship_create', { ...params, type: '' }, admin), {
      type: ['Missing value'],
    })
    expectInvalid(
      await t.call('package_relationship_create', { ...params, type: 'links_to', id: 'x' }, sys),
      {
        id: ['The input field id was not expected.'],
      },
    )
    // ckan's `empty` validator: a false id is no id
    for (const id of ['', null, 0, false])
      expect(
        (await t.call('package_relationship_create', { ...params, type: 'links_to', id }, sys))
          .status,
      ).toBe(200)
    // a bad type is reported before the caller is refused, as CKAN does
    expectInvalid(await t.call('package_relationship_create', { ...params, type: 'bad' }), {
      type: [TYPE_MESSAGE],
    })
    expect(await relRows(a.id, b.id)).toHaveLength(1)
  })

  it('needs edit rights on both datasets', async () => {
    const a = await dataset()
    const b = await dataset()
    const foreign = await t.make.dataset(outsider, { owner_org: otherOrg.id })
    const params = { subject: a.id, object: b.id, type: 'depends_on' }
    expectDenied(
      await t.call('package_relationship_create', params),
      'Action package_relationship_create requires an authenticated user',
    )
    for (const who of [outsider, member])
      expectDenied(
        await t.call('package_relationship_create', params, who),
        `User ${who.name} not authorized to edit these packages`,
      )
    // editing one of the two is not enough, whichever side it is on
    for (const p of [
      { subject: a.id, object: foreign.id, type: 'depends_on' },
      { subject: foreign.id, object: a.id, type: 'depends_on' },
    ]) {
      expectDenied(
        await t.call('package_relationship_create', p, editor),
        `User ${editor.name} not authorized to edit these packages`,
      )
      expectDenied(
        await t.call('package_relationship_create', p, outsider),
        `User ${outsider.name} not authorized to edit these packages`,
      )
    }
    expect(await relRows(a.id, foreign.id)).toEqual([])
    expect(await relRows(a.id, b.id)).toEqual([])
    for (const who of [editor, admin, sys])
      expect((await t.call('package_relationship_create', params, who)).status).toBe(200)
    expect(
      (await t.call('package_relationship_create', { ...params, object: foreign.id }, sys)).status,
    ).toBe(200)
  })

  it('works under the dataset_ alias', async () => {
    const a = await dataset()
    const b = await dataset()
    const r = await t.ok(
      'dataset_relationship_create',
      { subject: a.id, object: b.id, type: 'links_to' },
      admin,
    )
    expect(r.type).toBe('links_to')
  })
})

describe('package_relationship_update', () => {
  it('changes only the comment and returns the stored form', async () => {
    const a = await dataset()
    const b = await dataset()
    await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'derives_from', object: b.id, comment: 'old' },
      admin,
    )
    await show(a.id) // cached
    const r = await t.call(
      'package_relationship_update',
      { subject: b.name, type: 'has_derivation', object: a.name, comment: 'new' },
      editor,
    )
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual({
      subject: a.name,
      type: 'derives_from',
      object: b.name,
      comment: 'new',
    })
    expect((await show(a.id)).relationships_as_subject).toMatchObject([
      { type: 'derives_from', comment: 'new' },
    ])
    expect((await show(b.id)).relationships_as_object).toMatchObject([{ comment: 'new' }])
    // ckan: without a comment the comment becomes empty
    const cleared = await t.ok(
      'package_relationship_update',
      { subject: a.id, type: 'derives_from', object: b.id },
      admin,
    )
    expect(cleared.comment).toBe('')
    expect(await relRows(a.id, b.id)).toHaveLength(1)
  })

  it('answers 404 when the datasets have no such relationship', async () => {
    const a = await dataset()
    const b = await dataset()
    await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'depends_on', object: b.id },
      admin,
    )
    const msg = 'Not found: This relationship between the packages was not found.'
    for (const type of ['links_to', 'dependency_of', 'bogus'])
      expectNotFound(
        await t.call('package_relationship_update', { subject: a.id, type, object: b.id }, admin),
        msg,
      )
    // the other way round it is b's dependency_of, not its depends_on
    expectNotFound(
      await t.call(
        'package_relationship_update',
        { subject: b.id, type: 'depends_on', object: a.id },
        admin,
      ),
      msg,
    )
  })

  it('reports missing keys and unknown datasets', async () => {
    const a = await dataset()
    expectInvalid(await t.call('package_relationship_update', { subject: a.id }, admin), {
      object: ['Missing value'],
      type: ['Missing value'],
    })
    expectNotFound(
      await t.call(
        'package_relationship_update',
        { subject: 'gone', object: a.id, type: 'links_to' },
        admin,
      ),
      "Not found: Subject package 'gone' was not found.",
    )
    expectNotFound(
      await t.call('package_relationship_update', {
        subject: a.id,
        object: 'gone',
        type: 'links_to',
      }),
      "Not found: Object package 'gone' was not found.",
    )
  })

  it('needs edit rights on both datasets', async () => {
    const a = await dataset()
    const b = await dataset()
    const params = { subject: a.id, type: 'links_to', object: b.id, comment: 'x' }
    await t.ok('package_relationship_create', params, admin)
    expectDenied(
      await t.call('package_relationship_update', params),
      'Action package_relationship_update requires an authenticated user',
    )
    for (const who of [outsider, member])
      expectDenied(
        await t.call('package_relationship_update', { ...params, comment: 'changed' }, who),
        `User ${who.name} not authorized to edit these packages`,
      )
    expect((await relRows(a.id, b.id))[0]!.comment).toBe('x')
    for (const who of [editor, admin, sys])
      expect((await t.call('package_relationship_update', params, who)).status).toBe(200)
  })
})

describe('package_relationship_delete', () => {
  it('marks the relationship deleted and drops it from both datasets', async () => {
    const a = await dataset()
    const b = await dataset()
    await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'depends_on', object: b.id },
      admin,
    )
    await show(a.id)
    await show(b.id)
    const r = await t.call(
      'package_relationship_delete',
      { subject: b.name, type: 'dependency_of', object: a.name },
      editor,
    )
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect((await show(a.id)).relationships_as_subject).toEqual([])
    expect((await show(b.id)).relationships_as_object).toEqual([])
    expect(await t.ok('package_relationships_list', { id: a.id })).toEqual([])
    // ckan keeps the row
    expect((await relRows(a.id, b.id)).map((x) => x.state)).toEqual(['deleted'])
    expectNotFound(
      await t.call(
        'package_relationship_delete',
        { subject: a.id, type: 'depends_on', object: b.id },
        editor,
      ),
      'Not found',
    )
  })

  it('answers 404 for missing relationships and unknown datasets, before checking the caller', async () => {
    const a = await dataset()
    const b = await dataset()
    expectNotFound(
      await t.call('package_relationship_delete', {
        subject: a.id,
        type: 'depends_on',
        object: b.id,
      }),
      'Not found',
    )
    expectNotFound(
      await t.call('package_relationship_delete', {
        subject: 'nope',
        type: 'depends_on',
        object: b.id,
      }),
      "Not found: Subject package 'nope' was not found.",
    )
    expectNotFound(
      await t.call('package_relationship_delete', {
        subject: a.id,
        type: 'depends_on',
        object: 'nope',
      }),
      "Not found: Object package 'nope' was not found.",
    )
    expectInvalid(await t.call('package_relationship_delete', { type: 'depends_on' }), {
      subject: ['Missing value'],
      object: ['Missing value'],
    })
  })

  it('needs edit rights on both datasets', async () => {
    const a = await dataset()
    const b = await dataset()
    const params = { subject: a.id, type: 'parent_of', object: b.id }
    await t.ok('package_relationship_create', params, admin)
    const [row] = await relRows(a.id, b.id)
    expectDenied(
      await t.call('package_relationship_delete', params),
      'Action package_relationship_delete requires an authenticated user',
    )
    for (const who of [outsider, member])
      expectDenied(
        await t.call('package_relationship_delete', params, who),
        `User ${who.name} not authorized to delete relationship ${row!.id}`,
      )
    expect((await relRows(a.id, b.id))[0]!.state).toBe('active')
    expect((await t.call('package_relationship_delete', params, sys)).status).toBe(200)
  })
})

describe('package_relationships_list', () => {
  let hub: Dataset
  let up: Dataset
  let down: Dataset
  let hidden: Dataset // private, linked from hub

  beforeAll(async () => {
    hub = await dataset()
    up = await dataset()
    down = await dataset()
    hidden = await dataset({ private: true })
    await t.ok(
      'package_relationship_create',
      { subject: hub.id, type: 'depends_on', object: up.id, comment: 'u' },
      admin,
    )
    await t.ok(
      'package_relationship_create',
      { subject: down.id, type: 'depends_on', object: hub.id },
      admin,
    )
    await t.ok(
      'package_relationship_create',
      { subject: hub.id, type: 'links_to', object: hidden.id },
      admin,
    )
  })

  it("gives each relationship from the first dataset's point of view", async () => {
    expect(await t.ok('package_relationships_list', { id: hub.name }, member)).toEqual([
      { subject: hub.name, type: 'depends_on', object: up.name, comment: 'u' },
      { subject: hub.name, type: 'dependency_of', object: down.name, comment: '' },
      { subject: hub.name, type: 'links_to', object: hidden.name, comment: '' },
    ])
    expect(await t.ok('package_relationships_list', { id: up.id })).toEqual([
      { subject: up.name, type: 'dependency_of', object: hub.name, comment: 'u' },
    ])
  })

  it('narrows to a second dataset and to a type as seen from the first', async () => {
    expect(await t.ok('package_relationships_list', { id: hub.id, id2: down.name })).toEqual([
      { subject: hub.name, type: 'dependency_of', object: down.name, comment: '' },
    ])
    expect(await t.ok('package_relationships_list', { id: hub.id, rel: 'dependency_of' })).toEqual([
      { subject: hub.name, type: 'dependency_of', object: down.name, comment: '' },
    ])
    expect(
      await t.ok('package_relationships_list', { id: down.id, id2: hub.id, rel: 'depends_on' }),
    ).toHaveLength(1)
    // ckan: rel=relationships means any type
    expect(
      await t.ok('package_relationships_list', { id: up.id, rel: 'relationships' }),
    ).toHaveLength(1)
    expect(await t.ok('package_relationships_list', { id: up.id, id2: down.id })).toEqual([])
  })

  it('answers GET', async () => {
    const r = await t.get(
      `/api/3/action/package_relationships_list?id=${up.name}&rel=dependency_of`,
    )
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual([
      { subject: up.name, type: 'dependency_of', object: hub.name, comment: 'u' },
    ])
  })

  it("answers CKAN's 404s", async () => {
    expectInvalid(await t.call('package_relationships_list', {}), { id: ['Missing value'] })
    expectNotFound(
      await t.call('package_relationships_list', { id: 'no-such' }),
      'Not found: First package named in request was not found.',
    )
    expectNotFound(
      await t.call('package_relationships_list', { id: hub.id, id2: 'no-such' }),
      'Not found: Second package named in address was not found.',
    )
    expectNotFound(
      await t.call('package_relationships_list', { id: up.name, rel: 'depends_on' }),
      `Not found: Relationship "${up.name} depends_on None" not found.`,
    )
    expectNotFound(
      await t.call('package_relationships_list', { id: up.name, id2: down.name, rel: 'child_of' }),
      `Not found: Relationship "${up.name} child_of ${down.name}" not found.`,
    )
    expectNotFound(
      await t.call('package_relationships_list', { id: up.name, rel: 'bogus' }),
      `Not found: Relationship "${up.name} bogus None" not found.`,
    )
  })

  it('never shows a relationship to a private dataset the caller cannot read', async () => {
    for (const who of [null, outsider]) {
      const list = await t.ok('package_relationships_list', { id: hub.id }, who)
      expect(list.map((r: { object: string }) => r.object)).toEqual([up.name, down.name])
      expect(JSON.stringify(list)).not.toContain(hidden.name)
      expectNotFound(
        await t.call('package_relationships_list', { id: hub.id, rel: 'links_to' }, who),
        `Not found: Relationship "${hub.id} links_to None" not found.`,
      )
    }
    for (const who of [member, editor, sys])
      expect(
        await t.ok('package_relationships_list', { id: hub.id, rel: 'links_to' }, who),
      ).toEqual([{ subject: hub.name, type: 'links_to', object: hidden.name, comment: '' }])
  })

  it('needs read rights on both datasets named', async () => {
    expectDenied(
      await t.call('package_relationships_list', { id: hidden.id }),
      'User  not authorized to read these packages',
    )
    expectDenied(
      await t.call('package_relationships_list', { id: hidden.name }, outsider),
      `User ${outsider.name} not authorized to read these packages`,
    )
    expectDenied(
      await t.call('package_relationships_list', { id: hub.id, id2: hidden.id }, outsider),
      `User ${outsider.name} not authorized to read these packages`,
    )
    expect(await t.ok('package_relationships_list', { id: hidden.id }, member)).toEqual([
      { subject: hidden.name, type: 'linked_from', object: hub.name, comment: '' },
    ])
  })

  it('leaves out deleted relationships', async () => {
    const a = await dataset()
    const b = await dataset()
    await t.ok(
      'package_relationship_create',
      { subject: a.id, type: 'links_to', object: b.id },
      admin,
    )
    await t.ok(
      'package_relationship_delete',
      { subject: a.id, type: 'links_to', object: b.id },
      admin,
    )
    expect(await t.ok('package_relationships_list', { id: b.id })).toEqual([])
    expectNotFound(
      await t.call('package_relationships_list', { id: b.id, rel: 'linked_from' }),
      `Not found: Relationship "${b.id} linked_from None" not found.`,
    )
  })
})
