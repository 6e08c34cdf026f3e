// Dataset writes: package_create, package_update and package_patch (validation, semantics, authorization).
import { beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { activities, members, packages, resources } from '../../src/db/schema'
import { requestContext } from '../../src/http/request-context'
import { runWrite } from '../../src/model/package-write'
import { ValidationError } from '../../src/errors'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who // admin of org
let editor: Who
let member: Who
let stranger: Who
let org: { id: string; name: string }
let group: { id: string; name: string; title: string }
let group2: { id: string; name: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(admin)
  group = await t.make.group(sys, { title: 'Zebra Group' })
  group2 = await t.make.group(sys, { title: 'Alpha Group' })
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const) {
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
  }
  await t.ok('group_member_create', { id: group.id, username: editor.name, role: 'member' }, sys)
})

const create = (as: Caller | null, fields: Record<string, unknown>) =>
  t.call('package_create', { name: uniq('ds'), ...fields }, as)

const show = (id: string) => t.ok('package_show', { id }, sys)

const denied = (body: { error: { __type: string; message: string } }, message: string) => {
  expect(body.error.__type).toBe('Authorization Error')
  expect(body.error.message).toBe(`Access denied: ${message}`)
}

const invalid = (r: { status: number; body: any }, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

const activitiesOf = (id: string) =>
  t.db.select().from(activities).where(eq(activities.object_id, id)).orderBy(activities.timestamp)

const tick = () => new Promise((r) => setTimeout(r, 3))

describe('package_create', () => {
  it('returns the full dataset dict, the same one package_show returns', async () => {
    const name = uniq('full')
    const d = await t.ok(
      'package_create',
      {
        name,
        owner_org: org.name,
        notes: 'Some notes',
        author_email: ' a@example.com ',
        license_id: 'cc-by',
        version: '1.0',
        tags: [{ name: 'zeta' }, { name: 'alpha beta' }, { name: 'zeta' }],
        extras: [
          { key: 'zz', value: 'last' },
          { key: 'aa', value: 'first' },
        ],
        resources: [
          { url: 'http://example.com/data.csv' },
          { url: 'http://example.com/x', name: 'R2', alt_url: 'alt' },
        ],
        groups: [{ id: group.id }, { name: group2.name }],
        unknown_key: 'dropped',
      },
      sys,
    )
    expect(Object.keys(d).sort()).toEqual(
      [
        'author',
        'author_email',
        'creator_user_id',
        'extras',
        'groups',
        'id',
        'isopen',
        'license_id',
        'license_title',
        'license_url',
        'maintainer',
        'maintainer_email',
        'metadata_created',
        'metadata_modified',
        'name',
        'notes',
        'num_resources',
        'num_tags',
        'organization',
        'owner_org',
        'private',
        'relationships_as_object',
        'relationships_as_subject',
        'resources',
        'state',
        'tags',
        'title',
        'type',
        'url',
        'version',
      ].sort(),
    )
    expect(d).toMatchObject({
      name,
      title: name,
      owner_org: org.id,
      organization: { id: org.id, name: org.name, is_organization: true },
      creator_user_id: sys.id,
      author_email: 'a@example.com',
      isopen: true,
      license_title: 'Creative Commons Attribution',
      private: false,
      state: 'active',
      type: 'dataset',
      url: null,
      maintainer: null,
      num_resources: 2,
      num_tags: 2,
    })
    expect(d.metadata_created).toBe(d.metadata_modified)
    expect(d.tags.map((x: { name: string }) => x.name)).toEqual(['alpha beta', 'zeta'])
    expect(d.tags[0]).toEqual({
      display_name: 'alpha beta',
      id: expect.any(String),
      name: 'alpha beta',
      state: 'active',
      vocabulary_id: null,
    })
    expect(d.extras).toEqual([
      { key: 'aa', value: 'first' },
      { key: 'zz', value: 'last' },
    ])
    expect(d.groups.map((g: { name: string }) => g.name)).toEqual([group2.name, group.name])
    expect(d.resources.map((r: { position: number }) => r.position)).toEqual([0, 1])
    expect(d.resources[0]).toMatchObject({
      format: 'CSV',
      url: 'http://example.com/data.csv',
      package_id: d.id,
      hash: '',
      name: null,
    })
    expect(d.resources[1]).toMatchObject({ format: '', name: 'R2', alt_url: 'alt' })
    expect(d).not.toHaveProperty('unknown_key')
    expect(await show(d.id)).toEqual(d)
  })

  it('records a "new package" activity holding the dict, but none for private datasets', async () => {
    const pub = await t.ok('package_create', { name: uniq('pub') }, sys)
    const [act] = await activitiesOf(pub.id)
    expect(act).toMatchObject({ activity_type: 'new package', user_id: sys.id })
    expect(JSON.parse(act!.data).package).toEqual(pub)
    const priv = await t.ok(
      'package_create',
      { name: uniq('priv'), owner_org: org.id, private: 'true' },
      sys,
    )
    expect(priv.private).toBe(true)
    expect(await activitiesOf(priv.id)).toEqual([])
  })

  it('lets a new dataset take the name of a deleted one, renaming that to its id', async () => {
    const name = uniq('reuse')
    const old = await t.ok('package_create', { name }, sys)
    await t.ok('package_delete', { id: old.id }, sys)
    const fresh = await t.ok('package_create', { name }, sys)
    expect(fresh.id).not.toBe(old.id)
    expect((await show(old.id)).name).toBe(old.id)
    expect((await show(name)).id).toBe(fresh.id)
  })

  it('lets sysadmins choose the id and the state', async () => {
    const id = crypto.randomUUID()
    const d = await t.ok('package_create', { name: uniq('mine'), id, state: 'draft' }, sys)
    expect(d).toMatchObject({ id, state: 'draft' })
    invalid(await create(sys, { id }), { id: ['Dataset id already exists'] })
  })

  it('ignores state from other users', async () => {
    const d = await t.ok('package_create', { name: uniq('st'), state: 'deleted' }, stranger)
    expect(d.state).toBe('active')
  })

  it('adds vocabulary tags and free tags with the same name separately', async () => {
    const vocab = await t.ok(
      'vocabulary_create',
      { name: uniq('vocab'), tags: [{ name: 'red' }] },
      sys,
    )
    const d = await t.ok(
      'package_create',
      {
        name: uniq('voc'),
        tags: [
          { name: 'red', vocabulary_id: vocab.id },
          { name: 'red' },
          { name: 'blue', vocabulary_id: vocab.name },
        ],
      },
      sys,
    )
    expect(
      d.tags.map((x: { name: string; vocabulary_id: string | null }) => [x.name, x.vocabulary_id]),
    ).toEqual([
      ['blue', vocab.id],
      ['red', vocab.id],
      ['red', null],
    ])
    expect(d.tags[1].id).toBe(vocab.tags[0].id)
  })

  it('appends tag_string tags', async () => {
    const d = await t.ok(
      'package_create',
      { name: uniq('ts'), tags: [{ name: 'one' }], tag_string: ' two , three,, ' },
      sys,
    )
    expect(d.tags.map((x: { name: string }) => x.name)).toEqual(['one', 'three', 'two'])
  })

  it('ignores unknown groups for sysadmins', async () => {
    const d = await t.ok(
      'package_create',
      { name: uniq('g'), groups: [{ name: 'no-such-group' }, { id: group.id }] },
      sys,
    )
    expect(d.groups.map((g: { id: string }) => g.id)).toEqual([group.id])
  })

  it('reports a missing or malformed name', async () => {
    invalid(await t.call('package_create', { title: 'x' }, sys), { name: ['Missing value'] })
    invalid(await create(sys, { name: 'A' }), { name: ['Must be at least 2 characters long'] })
    invalid(await create(sys, { name: 'Bad Name' }), {
      name: ['Must be purely lowercase alphanumeric (ascii) characters and these symbols: -_'],
    })
    invalid(await create(sys, { name: 'new' }), { name: ['That name cannot be used'] })
    invalid(await create(sys, { name: 'x'.repeat(101) }), {
      name: ['Name must be a maximum of 100 characters long'],
    })
  })

  it('reports a name already in use', async () => {
    const d = await t.make.dataset(sys)
    invalid(await create(sys, { name: d.name }), { name: ['That URL is already in use.'] })
  })

  it('checks version length and e-mail addresses', async () => {
    invalid(await create(sys, { version: 'v'.repeat(101), maintainer_email: 'not-an-email' }), {
      version: ['Version must be a maximum of 100 characters long'],
      maintainer_email: ['Email not-an-email is not a valid format'],
    })
  })

  it('checks extras', async () => {
    invalid(
      await create(sys, {
        extras: [
          { key: 'a', value: '1' },
          { key: 'b', value: '2' },
          { key: 'a', value: '3' },
        ],
      }),
      { extras_validation: ['Duplicate key "a"'] },
    )
    invalid(
      await create(sys, {
        extras: [{ key: 'ok', value: '1' }, { key: 'name', value: '2' }, { value: '3' }],
      }),
      {
        extras: [
          {},
          { key: ['There is a schema field with the same name'] },
          { key: ['Missing value'] },
        ],
      },
    )
    const d = await t.ok(
      'package_create',
      {
        name: uniq('ex'),
        extras: [
          { key: 'gone', value: 'x', deleted: true },
          { key: 'nil', value: null },
          { key: 'kept', value: '' },
        ],
      },
      sys,
    )
    expect(d.extras).toEqual([{ key: 'kept', value: '' }])
  })

  it('flattens tag errors into one list of strings', async () => {
    invalid(await create(sys, { tags: [{ name: 'ok' }, { name: 'a' }, { name: 'bad!' }, {}] }), {
      tags: [
        'Tag "a" length is less than minimum 2',
        'Tag "bad!" must be alphanumeric characters or symbols: -_.',
        'Missing value',
      ],
    })
    invalid(await create(sys, { tags: [{ name: 'x', vocabulary_id: 'no-such-vocab' }] }), {
      tags: ['Tag "x" length is less than minimum 2'],
    })
    invalid(await create(sys, { tags: [{ name: 'xyz', vocabulary_id: 'no-such-vocab' }] }), {
      tags: ['Tag vocabulary was not found.'],
    })
    invalid(await create(sys, { tag_string: 'fine,x' }), {
      tag_string: ['Tag "x" length is less than minimum 2'],
    })
  })

  it('reports resource errors as a list parallel to the resources', async () => {
    invalid(
      await create(sys, {
        resources: [
          { url: 'a' },
          { url: 'b', created: '2020-01-01T00:00:00Z', size: 'big' },
          { id: 'x!' },
        ],
      }),
      {
        resources: [
          {},
          { created: ['Date format incorrect'], size: ['Invalid integer'] },
          { id: ['Invalid characters in resource id'] },
        ],
      },
    )
  })

  it('refuses resource ids used by another dataset or twice in the list', async () => {
    const other = await t.ok('package_create', { name: uniq('o'), resources: [{ url: 'a' }] }, sys)
    const rid = other.resources[0].id
    invalid(await create(sys, { resources: [{ id: rid }] }), {
      resources: [{ id: ['Resource id already exists.'] }],
    })
    invalid(await create(sys, { resources: [{ id: 'same-id-1' }, { id: 'same-id-1' }] }), {
      resources: [{}, { id: ['Resource id already exists.'] }],
    })
  })

  it('answers 400 Integrity Error when a list of dicts holds something else', async () => {
    const r = await create(sys, { tags: ['a', 'b'] })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({
      __type: 'Integrity Error',
      message: "Only lists of dicts can be placed against subschema ('tags',), not <class 'list'>",
    })
  })

  it('checks owner_org and private', async () => {
    invalid(await create(sys, { owner_org: 'no-such-org' }), {
      owner_org: ['Organization does not exist'],
    })
    invalid(await create(sys, { private: true }), {
      private: ["Datasets with no organization can't be private."],
    })
    invalid(await create(sys, { owner_org: group.id }), {
      owner_org: ['Organization does not exist'],
    })
  })

  it('refuses an id from a non-sysadmin', async () => {
    invalid(await create(stranger, { id: crypto.randomUUID() }), {
      id: ['The input field id was not expected.'],
    })
  })

  it('lets org editors and admins create datasets in their organization', async () => {
    for (const who of [editor, admin]) {
      const d = await t.ok('package_create', { name: uniq('ok'), owner_org: org.id }, who)
      expect(d.owner_org).toBe(org.id)
    }
  })

  it('refuses org members and outsiders for that organization', async () => {
    for (const who of [member, stranger]) {
      denied(
        (await create(who, { owner_org: org.id })).body,
        `User ${who.name} not authorized to add dataset to this organization`,
      )
    }
  })

  it('refuses an anonymous caller unless anonymous creation is on', async () => {
    const r = await create(null, {})
    expect(r.status).toBe(403)
    denied(r.body, 'User  not authorized to create packages')
  })

  it('checks manage_group on every listed group before validation', async () => {
    denied(
      (await create(stranger, { groups: [{ id: group.id }], name: 'A' })).body,
      `User ${stranger.name} not authorized to edit these groups`,
    )
    const r = await create(stranger, { groups: [{ name: 'no-such-group' }] })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Group was not found.')
    const d = await t.ok('package_create', { name: uniq('gm'), groups: [{ id: group.id }] }, editor)
    expect(d.groups).toHaveLength(1)
  })
})

describe('package_create relationships', () => {
  it('stores relationships in their forward form, visible from both datasets', async () => {
    const a = await t.make.dataset(sys)
    const b = await t.ok(
      'package_create',
      {
        name: uniq('rel'),
        relationships_as_subject: [{ object: a.name, type: 'depends_on', comment: 'c' }],
        relationships_as_object: [{ subject: a.id, type: 'parent_of' }],
      },
      sys,
    )
    expect(b.relationships_as_subject).toEqual([
      {
        id: expect.any(String),
        subject_package_id: b.id,
        object_package_id: a.id,
        type: 'depends_on',
        comment: 'c',
      },
      {
        id: expect.any(String),
        subject_package_id: b.id,
        object_package_id: a.id,
        type: 'child_of',
        comment: '',
      },
    ])
    expect(b.relationships_as_object).toEqual([])
    expect((await show(a.id)).relationships_as_object).toHaveLength(2)
    expect(await show(b.id)).toEqual(b)
    const u = await t.ok('package_update', { id: b.id, relationships_as_subject: [] }, sys)
    expect(u.relationships_as_subject).toEqual([])
    expect((await show(a.id)).relationships_as_object).toEqual([])
  })

  it('checks relationship types and datasets', async () => {
    invalid(
      await create(sys, {
        relationships_as_subject: [
          { object: 'no-such-dataset', type: 'links_to' },
          { type: 'likes' },
        ],
      }),
      {
        relationships_as_subject: [
          { object: ['Not found: Dataset'] },
          {
            object: ['Missing value'],
            type: [
              "Value must be one of ['depends_on', 'dependency_of', 'derives_from', 'has_derivation', 'links_to', 'linked_from', 'child_of', 'parent_of']",
            ],
          },
        ],
      },
    )
  })

  it('maps a unique-name race in the write batch to That URL is already in use.', async () => {
    const d = await t.make.dataset(sys)
    const ctx = await requestContext(t.deps, null)
    const now = ctx.now()
    const row = {
      id: crypto.randomUUID(),
      name: d.name,
      metadata_created: now,
      metadata_modified: now,
    }
    const err = await runWrite(ctx, [ctx.db.insert(packages).values(row)], [row.id]).catch((e) => e)
    expect(err).toBeInstanceOf(ValidationError)
    expect(err.errors).toEqual({ name: ['That URL is already in use.'] })
  })

  it('gives a name to only one of two concurrent creates', async () => {
    const name = uniq('race')
    const results = await Promise.all([create(sys, { name }), create(sys, { name })])
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    expect(results.find((r) => r.status === 409)!.body.error.name).toEqual([
      'That URL is already in use.',
    ])
  })
})

describe('package_create under other site options', () => {
  it('requires an organization when unowned datasets are off', async () => {
    const u = await setup({
      'service.auth.create_unowned_dataset': 'false',
      'service.auth.create_dataset_if_not_in_organization': 'false',
    })
    const s = await u.make.sysadmin()
    const r = await u.call('package_create', { name: uniq('x') }, s)
    invalid(r, { owner_org: ['An organization must be provided'] })
    const plain = await u.make.user()
    denied(
      (await u.call('package_create', { name: uniq('x') }, plain)).body,
      `User ${plain.name} not authorized to create packages`,
    )
  })

  it('lets anonymous callers create unowned datasets when allowed', async () => {
    const u = await setup({ 'service.auth.anon_create_dataset': 'true' })
    const d = await u.ok('package_create', { name: uniq('anon') }, null)
    expect(d.creator_user_id).toBeNull()
  })
})

describe('package_update', () => {
  it('replaces the dataset: omitted text cleared, lists replaced, flags kept', async () => {
    const d = await t.ok(
      'package_create',
      {
        name: uniq('up'),
        title: 'Title',
        notes: 'n',
        author: 'a',
        owner_org: org.id,
        private: true,
        tags: [{ name: 'old' }],
        extras: [{ key: 'k', value: 'v' }],
        resources: [
          { url: 'http://e.com/1.csv', name: 'one' },
          { url: 'http://e.com/2.csv', name: 'two' },
        ],
      },
      sys,
    )
    await tick()
    const r1 = d.resources[1]
    const u = await t.ok(
      'package_update',
      {
        id: d.id,
        type: 'other',
        resources: [{ id: r1.id, url: 'http://e.com/2b.csv' }, { url: 'http://e.com/new.json' }],
        tags: [{ name: 'new' }],
      },
      sys,
    )
    expect(u).toMatchObject({
      id: d.id,
      name: d.name,
      title: null,
      notes: null,
      author: null,
      private: true,
      owner_org: org.id,
      type: 'dataset',
      state: 'active',
    })
    expect(u.extras).toEqual([])
    expect(u.tags.map((x: { name: string }) => x.name)).toEqual(['new'])
    expect(u.metadata_created).toBe(d.metadata_created)
    expect(u.metadata_modified > d.metadata_modified).toBe(true)
    expect(u.resources).toHaveLength(2)
    expect(u.resources[0]).toMatchObject({
      id: r1.id,
      position: 0,
      url: 'http://e.com/2b.csv',
      name: 'two',
      format: 'CSV',
      created: r1.created,
    })
    expect(u.resources[1]).toMatchObject({ position: 1, format: 'JSON' })
    const [gone] = await t.db.select().from(resources).where(eq(resources.id, d.resources[0].id))
    expect(gone!.state).toBe('deleted')
    expect(await show(d.id)).toEqual(u)
  })

  it('deletes every resource when resources is omitted', async () => {
    const d = await t.ok('package_create', { name: uniq('nr'), resources: [{ url: 'x' }] }, sys)
    const u = await t.ok('package_update', { id: d.id, name: d.name }, sys)
    expect(u.resources).toEqual([])
    expect(u.title).toBeNull()
  })

  it('finds the dataset by name when id is absent, and renames it', async () => {
    const d = await t.make.dataset(sys)
    const u = await t.ok('package_update', { name: d.name, title: 'T' }, sys)
    expect(u).toMatchObject({ id: d.id, title: 'T' })
    const newName = uniq('renamed')
    expect((await t.ok('package_update', { id: d.id, name: newName }, sys)).name).toBe(newName)
    expect((await show(newName)).id).toBe(d.id)
  })

  it('refuses a name used by another dataset', async () => {
    const a = await t.make.dataset(sys)
    const b = await t.make.dataset(sys)
    invalid(await t.call('package_update', { id: b.id, name: a.name }, sys), {
      name: ['That URL is already in use.'],
    })
  })

  it('reports a missing target as a string and an unknown one as Package was not found', async () => {
    invalid(await t.call('package_update', { title: 'x' }, sys), { id: 'Missing value' })
    const r = await t.call('package_update', { id: 'no-such-dataset' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Package was not found.')
  })

  it('records "changed package", then "deleted package" when the state becomes deleted', async () => {
    const d = await t.ok('package_create', { name: uniq('act') }, sys)
    await tick()
    await t.ok('package_update', { id: d.id, name: d.name }, sys)
    await tick()
    await t.ok('package_update', { id: d.id, name: d.name, state: 'deleted' }, sys)
    expect((await activitiesOf(d.id)).map((a) => a.activity_type)).toEqual([
      'new package',
      'changed package',
      'deleted package',
    ])
  })

  it('removes groups the caller can read and keeps the others', async () => {
    const d = await t.ok(
      'package_create',
      { name: uniq('gr'), owner_org: org.id, groups: [{ id: group.id }, { id: group2.id }] },
      sys,
    )
    // editor is a member of group only
    const u = await t.ok('package_update', { id: d.id, name: d.name }, editor)
    expect(u.groups.map((g: { id: string }) => g.id)).toEqual([group2.id])
    const rows = await t.db
      .select()
      .from(members)
      .where(and(eq(members.table_id, d.id), eq(members.group_id, group.id)))
    expect(rows[0]!.state).toBe('deleted')
    const back = await t.ok(
      'package_update',
      { id: d.id, name: d.name, groups: [{ id: group.id }, { id: group2.id }] },
      editor,
    )
    expect(back.groups).toHaveLength(2)
  })

  it('lets editors and admins of the organization update, and changes state', async () => {
    const d = await t.ok('package_create', { name: uniq('ed'), owner_org: org.id }, sys)
    for (const who of [editor, admin]) {
      expect((await t.ok('package_update', { id: d.id, notes: who.name }, who)).notes).toBe(
        who.name,
      )
    }
    expect((await t.ok('package_update', { id: d.id, state: 'draft' }, editor)).state).toBe('draft')
  })

  it('refuses members, outsiders and anonymous callers', async () => {
    const d = await t.ok('package_create', { name: uniq('no'), owner_org: org.id }, sys)
    for (const who of [member, stranger]) {
      denied(
        (await t.call('package_update', { id: d.id, name: 'BAD' }, who)).body,
        `User ${who.name} not authorized to edit package ${d.id}`,
      )
    }
    denied(
      (await t.call('package_update', { id: d.id }, null)).body,
      `User  not authorized to edit package ${d.id}`,
    )
  })

  it('needs manage_group to add a group', async () => {
    const d = await t.ok('package_create', { name: uniq('ag'), owner_org: org.id }, sys)
    denied(
      (await t.call('package_update', { id: d.id, groups: [{ id: group2.id }] }, editor)).body,
      `User ${editor.name} not authorized to edit these groups`,
    )
  })

  it('checks a new owner organization', async () => {
    const other = await t.make.organization(sys)
    const d = await t.ok('package_create', { name: uniq('mv'), owner_org: org.id }, sys)
    invalid(await t.call('package_update', { id: d.id, owner_org: other.id }, editor), {
      owner_org: ['You cannot add a dataset to this organization'],
    })
    expect(
      (await t.ok('package_update', { id: d.id, owner_org: other.name }, sys)).organization.id,
    ).toBe(other.id)
  })
})

describe('package_patch', () => {
  it('changes only the given keys and keeps resources, tags and extras', async () => {
    const d = await t.ok(
      'package_create',
      {
        name: uniq('pa'),
        title: 'T',
        notes: 'n',
        tags: [{ name: 'tag1' }],
        extras: [{ key: 'k', value: 'v' }],
        resources: [{ url: 'http://e.com/a.csv' }],
      },
      sys,
    )
    const p = await t.ok('package_patch', { id: d.name, notes: 'changed' }, sys)
    expect(p).toMatchObject({ id: d.id, title: 'T', notes: 'changed', extras: d.extras })
    expect(p.tags.map((x: { name: string }) => x.name)).toEqual(['tag1'])
    expect(p.resources.map((r: { id: string }) => r.id)).toEqual([d.resources[0].id])
    expect(await show(d.id)).toEqual(p)
  })

  it('replaces the resource list when one is given', async () => {
    const d = await t.ok(
      'package_create',
      { name: uniq('pr'), resources: [{ url: 'a' }, { url: 'b' }] },
      sys,
    )
    const p = await t.ok(
      'package_patch',
      { id: d.id, resources: [{ id: d.resources[1].id, url: 'b2' }, { url: 'c' }] },
      sys,
    )
    expect(p.resources.map((r: { url: string }) => r.url)).toEqual(['http://b2', 'http://c'])
    expect(p.resources[0].id).toBe(d.resources[1].id)
  })

  it('undeletes a dataset', async () => {
    const d = await t.make.dataset(sys)
    await t.ok('package_delete', { id: d.id }, sys)
    expect((await t.ok('package_patch', { id: d.id, state: 'active' }, sys)).state).toBe('active')
  })

  it('reports a missing id and an unknown dataset', async () => {
    invalid(await t.call('package_patch', { name: 'x' }, sys), { id: ['Missing value'] })
    const r = await t.call('package_patch', { id: 'no-such-dataset' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found')
  })

  it('refuses members and anonymous callers', async () => {
    const d = await t.ok('package_create', { name: uniq('pn'), owner_org: org.id }, sys)
    denied(
      (await t.call('package_patch', { id: d.id, notes: 'x' }, member)).body,
      `User ${member.name} not authorized to edit package ${d.id}`,
    )
    denied(
      (await t.call('package_patch', { id: d.id, notes: 'x' }, null)).body,
      'Action package_patch requires an authenticated user',
    )
    expect((await t.ok('package_patch', { id: d.id, notes: 'x' }, editor)).notes).toBe('x')
  })
})

describe('dataset rows', () => {
  it('stores owner_org as the organization id when given its name', async () => {
    const d = await t.ok('package_create', { name: uniq('row'), owner_org: org.name }, sys)
    const [row] = await t.db.select().from(packages).where(eq(packages.id, d.id))
    expect(row!.owner_org).toBe(org.id)
  })
})
