// package_revise: match, filter, update (flattened keys too), include, errors, rights and races.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { activities, changeLog, packages } from '../../src/db/schema'
import { changeRow } from '../../src/model/changes'
import { packageVersion, packageVersionGuard } from '../../src/model/package-version'
import { systemContext } from '../../src/context'
import type { Stmt } from '../../src/model/write-batcher'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who
let editor: Who
let member: Who
let stranger: Who
let org: { id: string; name: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(admin)
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const)
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
})

const dataset = (fields: Record<string, unknown> = {}) =>
  t.make.dataset(editor, { owner_org: org.id, notes: 'old notes', ...fields })

const withResources = () =>
  dataset({
    resources: [
      { url: 'http://example.com/a.csv', name: 'first' },
      { url: 'http://example.com/b.csv', name: 'second' },
      { url: 'http://example.com/c.csv', name: 'third' },
    ],
  })

const revise = (params: Record<string, unknown>, as: Caller | null = editor) =>
  t.call('package_revise', params, as)

const show = (id: string) => t.ok('package_show', { id }, sys)

const invalid = (r: { status: number; body: any }, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

const denied = (r: { status: number; body: any }, message: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({ __type: 'Authorization Error', message: `Access denied: ${message}` })
}

/** A posted form (urlencoded or multipart), as ckanapi and browsers send one. */
async function postForm(body: URLSearchParams | FormData, as: Caller = editor) {
  const res = await t.app.request('/api/3/action/package_revise', {
    method: 'POST',
    headers: { authorization: as.apikey },
    body,
  })
  return { status: res.status, body: (await res.json()) as any }
}

describe('package_revise: match and update', () => {
  it('updates a dataset whose values match, and returns it under "package"', async () => {
    const d = await dataset()
    const r = await revise({ match: { notes: 'old notes', name: d.name }, update: { notes: 'new notes' } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.result)).toEqual(['package'])
    expect(r.body.result.package).toMatchObject({ id: d.id, name: d.name, notes: 'new notes', title: 'A Dataset' })
    expect((await show(d.id)).notes).toBe('new notes')
  })

  it('changes nothing when a value does not match, and names the keys that differ', async () => {
    const d = await withResources()
    const before = await show(d.id)
    const r = await revise({
      match: { notes: 'wrong', name: d.name, resources: [{ name: 'first' }, { name: 'other' }] },
      match__title: 'Not the title',
      match__resources__2__name: 'third',
      update: { notes: 'new notes' },
    })
    // ckan 2.9: a list with one dict under "message"; match paths sorted, then match__ keys sorted
    invalid(r, { message: [{ match: ['notes', 'resources__1__name', 'title'] }] })
    expect(await show(d.id)).toEqual(before)
  })

  it('takes flattened match__ and update__ keys', async () => {
    const d = await dataset()
    const r = await revise({ match__notes: 'old notes', match__name: d.name, update__notes: 'new notes' })
    expect(r.body.result.package.notes).toBe('new notes')
  })

  it('finds the dataset by match id or name and answers "Missing value" without either', async () => {
    const d = await dataset()
    expect((await revise({ match: { id: d.id }, update: { title: 'By id' } })).body.result.package.title).toBe('By id')
    expect((await revise({ match__name: d.name, update__title: 'By name' })).body.result.package.title).toBe('By name')
    invalid(await revise({ match: { title: 'By name' }, update: { title: 'x' } }), { match__id: 'Missing value' })
    invalid(await revise({ update: { title: 'x' } }), { match__id: 'Missing value' })
  })

  it('reads flattened values as JSON when they are JSON, else as strings', async () => {
    const d = await withResources()
    const r = await revise({
      match__id: d.id,
      match__num_resources: '3', // JSON: the number 3
      match__resources__0: '{"name": "first"}',
      update__resources__0: '{"description": "from JSON"}',
      update__notes: 'plain {text',
    })
    expect(r.status).toBe(200)
    expect(r.body.result.package.resources[0]).toMatchObject({ name: 'first', description: 'from JSON' })
    expect(r.body.result.package.notes).toBe('plain {text')
    // ckan: "1.0" is JSON for a number, so it does not match the string "1.0"; quoted, it does
    await revise({ match__id: d.id, update__version: '"1.0"' })
    invalid(await revise({ match__id: d.id, match__version: '1.0', update__title: 'x' }), {
      message: [{ match: ['version'] }],
    })
    const quoted = await revise({ match__id: d.id, match__version: '"1.0"', update__title: 'Quoted' })
    expect(quoted.body.result.package).toMatchObject({ version: '1.0', title: 'Quoted' })
  })

  it('treats a match__ key that leads nowhere as not matching', async () => {
    const d = await withResources()
    const r = await revise({ match__id: d.id, match__resources__7__name: 'x', update__title: 'no' })
    invalid(r, { message: [{ match: ['resources__7__name'] }] })
  })

  it('takes match and update as JSON strings, as form posts send them', async () => {
    const d = await dataset()
    const r = await revise({ match: JSON.stringify({ name: d.name }), update: JSON.stringify({ notes: 'json' }) })
    expect(r.body.result.package.notes).toBe('json')
  })

  it('works from an urlencoded form and from a multipart form', async () => {
    const d = await dataset()
    const form = new URLSearchParams()
    form.set('match', JSON.stringify({ name: d.name, notes: 'old notes' }))
    form.set('update__notes', 'from a form')
    form.append('filter', '-tags')
    const r = await postForm(form)
    expect(r.status).toBe(200)
    expect(r.body.result.package.notes).toBe('from a form')
    const multi = new FormData()
    multi.set('match__id', d.id)
    multi.set('match__notes', 'from a form')
    multi.set('update', JSON.stringify({ title: 'Multipart' }))
    const m = await postForm(multi)
    expect(m.status).toBe(200)
    expect(m.body.result.package).toMatchObject({ title: 'Multipart', notes: 'from a form' })
  })

  it('attaches an uploaded file to a resource added by the same multipart call', async () => {
    const d = await dataset()
    const multi = new FormData()
    multi.set('match__id', d.id)
    multi.set('update__resources__extend', JSON.stringify([{ name: 'uploaded' }]))
    multi.set('update__resources__-1__upload', new File(['a,b\n1,2\n'], 'data.csv', { type: 'text/csv' }))
    const r = await postForm(multi)
    expect(r.status).toBe(200)
    const [res] = r.body.result.package.resources
    expect(res).toMatchObject({ name: 'uploaded', url_type: 'upload', size: 8 })
    expect(res.url).toMatch(/\/download\/data\.csv$/)
  })

  it('keeps the relationships of the dataset', async () => {
    const other = await dataset()
    const d = await dataset({ relationships_as_subject: [{ object: other.id, type: 'depends_on' }] })
    const before = (await show(d.id)).relationships_as_subject
    expect(before).toHaveLength(1)
    await revise({ match__id: d.id, update__notes: 'still related' })
    expect((await show(d.id)).relationships_as_subject).toEqual(before)
  })

  it('records one "changed package" activity', async () => {
    const d = await dataset()
    await revise({ match__id: d.id, update__notes: 'tracked' })
    const acts = await t.db.select().from(activities).where(eq(activities.object_id, d.id))
    expect(acts.map((a) => a.activity_type)).toEqual(['new package', 'changed package'])
  })
})

describe('package_revise: filter', () => {
  it('keeps only the protected fields, and the id', async () => {
    const d = await withResources()
    const r = await revise({
      match: { id: d.id },
      filter: ['+resources', '-*'],
      update: { name: uniq('fresh-start'), title: 'Fresh Start' },
    })
    expect(r.status).toBe(200)
    const p = r.body.result.package
    expect(p).toMatchObject({ id: d.id, notes: null, title: 'Fresh Start', owner_org: org.id })
    expect(p.resources.map((x: any) => x.name)).toEqual(['first', 'second', 'third'])
  })

  it('takes a comma-separated string', async () => {
    const d = await withResources()
    const r = await revise({ match__id: d.id, filter: '+resources,-*', update__title: 'Comma' })
    expect(r.body.result.package).toMatchObject({ notes: null, title: 'Comma', num_resources: 3 })
  })

  it('removes a resource by index', async () => {
    const d = await withResources()
    const r = await revise({ match__id: d.id, filter: ['-resources__1'] })
    expect(r.body.result.package.resources.map((x: any) => x.name)).toEqual(['first', 'third'])
  })

  it('replaces every field of a resource picked by id prefix', async () => {
    const d = await withResources()
    const prefix = d.resources[1].id.slice(0, 8)
    const r = await revise({
      match__id: d.id,
      filter: [`+resources__${prefix}__id`, `-resources__${prefix}__*`],
      [`update__resources__${prefix}`]: { name: 'edits here' },
    })
    const res = r.body.result.package.resources[1]
    expect(res).toMatchObject({ id: d.resources[1].id, name: 'edits here', url: '' })
    expect(r.body.result.package.resources[0].url).toBe('http://example.com/a.csv')
  })
})

describe('package_revise: resources by flattened keys', () => {
  it('updates a resource by index, negative index and id prefix', async () => {
    const d = await withResources()
    const r = await revise({
      match__id: d.id,
      update__resources__0: { name: 'new first' },
      'update__resources__-1__description': 'the last one',
      [`update__resources__${d.resources[1].id.slice(0, 5)}__name`]: 'new second',
    })
    expect(r.status).toBe(200)
    const res = r.body.result.package.resources
    expect(res.map((x: any) => x.name)).toEqual(['new first', 'new second', 'third'])
    expect(res[2].description).toBe('the last one')
    expect(res.map((x: any) => x.id)).toEqual(d.resources.map((x: any) => x.id))
  })

  it('adds resources with update__resources__extend', async () => {
    const d = await withResources()
    const r = await revise({
      match__id: d.id,
      update__resources__extend: [{ name: 'fourth', url: 'http://example.com/d.csv' }],
    })
    expect(r.body.result.package.resources.map((x: any) => x.name)).toEqual(['first', 'second', 'third', 'fourth'])
  })

  it('uses the first resource whose id starts with an ambiguous prefix (ckan)', async () => {
    const stem = crypto.randomUUID().slice(0, 8)
    const d = await dataset({
      resources: [
        { id: `${stem}-1111-4111-8111-111111111111`, url: 'http://example.com/1' },
        { id: `${stem}-2222-4222-8222-222222222222`, url: 'http://example.com/2' },
      ],
    })
    const r = await revise({ match__id: d.id, [`update__resources__${stem}__name`]: 'picked' })
    expect(r.body.result.package.resources.map((x: any) => x.name ?? null)).toEqual(['picked', null])
  })

  it("answers CKAN's error for a key that leads nowhere, naming the update__ key", async () => {
    const d = await withResources()
    const before = await show(d.id)
    invalid(await revise({ match__id: d.id, update__resources__9__name: 'x' }), {
      message: [{ resources__9__name: ['Unmatched key resources__9'] }],
    })
    invalid(await revise({ match__id: d.id, update__resources__abcd__name: 'x' }), {
      message: [{ resources__abcd__name: ['Unmatched key resources__abcd'] }],
    })
    invalid(await revise({ match__id: d.id, update__resources__zzzzzz: { name: 'x' } }), {
      message: [{ resources__zzzzzz: ['Unmatched key zzzzzz'] }],
    })
    invalid(await revise({ match__id: d.id, update__title__x: 'x' }), {
      message: [{ title__x: ['Expected list or dict for title'] }],
    })
    invalid(await revise({ match__id: d.id, update__resources__extend: { name: 'x' } }), {
      message: [{ resources__extend: ['Expected list for resources'] }],
    })
    expect(await show(d.id)).toEqual(before)
  })

  it("answers CKAN's error for an update of the wrong shape", async () => {
    const d = await withResources()
    invalid(await revise({ match__id: d.id, update: { resources: { name: 'x' } } }), {
      message: [{ update: ['Expected list for resources'] }],
    })
    invalid(await revise({ match__id: d.id, update: { resources: [['x']] } }), {
      message: [{ update: ['Expected dict for resources__0'] }],
    })
  })
})

describe('package_revise: include', () => {
  it('filters the result with the same patterns', async () => {
    const d = await dataset()
    const r = await revise({
      match__id: d.id,
      update__notes: 'included',
      include: ['+package__name', '+package__notes', '-package__*'],
    })
    expect(r.body.result).toEqual({ package: { name: d.name, notes: 'included' } })
    const none = await revise({ match__id: d.id, update__notes: 'hidden', include: '-*' })
    expect(none.body.result).toEqual({})
    expect((await show(d.id)).notes).toBe('hidden')
  })
})

describe('package_revise: parameters', () => {
  it("answers each field's message at once", async () => {
    const d = await dataset()
    invalid(await revise({ match: 'not json', update: [1], filter: 5, include: { a: 1 } }), {
      match: ['Must be a dict'],
      update: ['Must be a dict'],
      filter: ['Not a list'],
      include: ['Not a list'],
    })
    invalid(await revise({ match__id: d.id, filter: ['ok', 1] }), { filter: ['Not a string: 1'] })
    invalid(await revise({ match__id: d.id, include: '[null]' }), { include: ['Not a string: None'] })
  })

  it('answers Not Found for an unknown dataset', async () => {
    const r = await revise({ match: { id: 'no-such-dataset' }, update: { title: 'x' } })
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
  })

  it("passes package_update's validation errors through, changing nothing", async () => {
    const d = await dataset()
    const taken = await dataset()
    const before = await show(d.id)
    invalid(await revise({ match__id: d.id, update__name: taken.name }), { name: ['That URL is already in use.'] })
    const r = await revise({ match__id: d.id, update__name: 'Bad Name!' })
    expect(r.status).toBe(409)
    expect(r.body.error.name).toEqual([
      'Must be purely lowercase alphanumeric (ascii) characters and these symbols: -_',
    ])
    expect(await show(d.id)).toEqual(before)
  })
})

describe('package_revise: rights', () => {
  it('lets org editors, org admins and sysadmins revise', async () => {
    const d = await dataset()
    for (const who of [editor, admin, sys])
      expect((await revise({ match__id: d.id, update__notes: who.name }, who)).status).toBe(200)
    expect((await show(d.id)).notes).toBe(sys.name)
  })

  it('refuses a reader who may not edit, after the match', async () => {
    const d = await dataset()
    invalid(await revise({ match__id: d.id, match__notes: 'no', update__notes: 'x' }, member), {
      message: [{ match: ['notes'] }],
    })
    denied(
      await revise({ match__id: d.id, update__notes: 'x' }, member),
      `User ${member.name} not authorized to edit package ${d.id}`,
    )
    denied(
      await revise({ match__id: d.id, update__notes: 'x' }, stranger),
      `User ${stranger.name} not authorized to edit package ${d.id}`,
    )
    expect((await show(d.id)).notes).toBe('old notes')
  })

  it('refuses anonymous callers', async () => {
    const d = await dataset()
    denied(
      await revise({ match__id: d.id, update__notes: 'x' }, null),
      'Action package_revise requires an authenticated user',
    )
  })

  it("refuses a private dataset with package_show's message to those who may not read it", async () => {
    const d = await dataset({ private: true })
    denied(await revise({ match__id: d.id, update__notes: 'x' }, stranger), `User ${stranger.name} not authorized to read package ${d.id}`)
    denied(await revise({ match__id: d.id, match__notes: 'no' }, null), `User  not authorized to read package ${d.id}`)
    expect((await revise({ match__id: d.id, update__notes: 'private' }, member)).status).toBe(403)
    expect((await revise({ match__id: d.id, update__notes: 'private' }, editor)).status).toBe(200)
  })

  it('needs manage_group for groups an update adds', async () => {
    const d = await dataset()
    const group = await t.make.group(sys)
    denied(
      await revise({ match__id: d.id, update: { groups: [{ name: group.name }] } }),
      `User ${editor.name} not authorized to edit these groups`,
    )
    const r = await revise({ match__id: d.id, update: { groups: [{ name: group.name }] } }, sys)
    expect(r.body.result.package.groups.map((g: any) => g.name)).toEqual([group.name])
  })
})

describe('package_revise: concurrency', () => {
  it('lets one of two concurrent revises with the same match win; the other changes nothing', async () => {
    const d = await dataset({ title: 'Original' })
    const [a, b] = await Promise.all([
      revise({ match: { id: d.id, title: 'Original' }, update: { title: 'From A', notes: 'A' } }),
      revise({ match: { id: d.id, title: 'Original' }, update: { title: 'From B', version: 'B' } }),
    ])
    const results = [a, b]
    const won = results.filter((r) => r.status === 200)
    const lost = results.filter((r) => r.status !== 200)
    expect(won).toHaveLength(1)
    expect(lost).toHaveLength(1)
    invalid(lost[0]!, { message: [{ match: ['title'] }] })
    const final = await show(d.id)
    expect(final.title).toBe(won[0]!.body.result.package.title)
    // nothing of the loser's update got in
    if (final.title === 'From A') expect(final.version).toBeNull()
    else expect(final.notes).toBe('old notes')
  })

  it('re-checks the match when another process writes between the read and the write', async () => {
    const d = await dataset({ title: 'Before' })
    const writer = t.deps.writer
    const real = writer.write.bind(writer)
    let interfered = 0
    // Another process's write lands just before revise's batch: a direct SQL update plus its log row.
    writer.write = async (stmts: Stmt[]) => {
      if (interfered++ === 0) {
        await real([
          t.db.update(packages).set({ title: 'Elsewhere' }).where(eq(packages.id, d.id)),
          t.db.insert(changeLog).values(changeRow('package', d.id)),
        ])
      }
      return real(stmts)
    }
    try {
      const r = await revise({ match: { id: d.id, title: 'Before' }, update: { notes: 'lost' } })
      invalid(r, { message: [{ match: ['title'] }] })
    } finally {
      writer.write = real
    }
    const after = await show(d.id)
    expect(after).toMatchObject({ title: 'Elsewhere', notes: 'old notes' })
  })

  it('applies the update on top of a concurrent write that left the match intact', async () => {
    const d = await dataset({ title: 'Kept' })
    const writer = t.deps.writer
    const real = writer.write.bind(writer)
    let calls = 0
    writer.write = async (stmts: Stmt[]) => {
      if (calls++ === 0) {
        await real([
          t.db.update(packages).set({ version: '9' }).where(eq(packages.id, d.id)),
          t.db.insert(changeLog).values(changeRow('package', d.id)),
        ])
      }
      return real(stmts)
    }
    try {
      const r = await revise({ match: { id: d.id, title: 'Kept' }, update: { notes: 'merged' } })
      expect(r.status).toBe(200)
    } finally {
      writer.write = real
    }
    // The first batch failed its guard; the retry read version 9 and kept it.
    expect(calls).toBe(2)
    expect(await show(d.id)).toMatchObject({ title: 'Kept', version: '9', notes: 'merged' })
  })

  it('guards a batch with the dataset version it read', async () => {
    const d = await dataset()
    const ctx = systemContext(t.deps)
    const version = await packageVersion(ctx, d.id)
    expect(version).toBeGreaterThan(0)
    await t.ok('package_patch', { id: d.id, notes: 'moved on' }, editor)
    const stale = [
      packageVersionGuard(d.id, version),
      t.db.update(packages).set({ notes: 'stale write' }).where(eq(packages.id, d.id)),
    ]
    await expect(t.deps.writer.write(stale)).rejects.toThrow(/change_log\.entity_type/)
    expect((await show(d.id)).notes).toBe('moved on')
    const fresh = [
      packageVersionGuard(d.id, await packageVersion(ctx, d.id)),
      t.db.update(packages).set({ notes: 'fresh write' }).where(eq(packages.id, d.id)),
    ]
    await t.deps.writer.write(fresh)
    const [row] = await t.db.select().from(packages).where(eq(packages.id, d.id))
    expect(row!.notes).toBe('fresh write')
  })
})
