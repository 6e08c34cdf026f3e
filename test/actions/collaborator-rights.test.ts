// Dataset collaborators in every rule: reads, writes, resources, DataStore, search, activity, follows.
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { eq } from 'drizzle-orm'
import { packageMembers } from '../../src/db/schema'
import { setup, TEST_PROFILE, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }

const ON = { 'service.auth.allow_dataset_collaborators': 'true' }

const denied = (r: { status: number; body: any }, message: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({ __type: 'Authorization Error', message: `Access denied: ${message}` })
}

/** A site with an organization (admin, editor) and users to make collaborators or not. */
async function site(overrides: Record<string, string> = ON) {
  const t = await setup(overrides)
  const sys = await t.make.sysadmin()
  const admin = await t.make.user()
  const editor = await t.make.user()
  const reader = await t.make.user() // will be a member collaborator
  const writer = await t.make.user() // will be an editor collaborator
  const stranger = await t.make.user()
  const org = await t.make.organization(admin)
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, admin)
  const collaborate = (id: string, who: Who, capacity: string) =>
    t.ok('package_collaborator_create', { id, user_id: who.id, capacity }, admin)
  /** A private dataset of the organization with one resource, a member and an editor collaborator. */
  async function shared(fields: Record<string, unknown> = {}) {
    const d = await t.make.dataset(admin, {
      owner_org: org.id,
      private: true,
      resources: [{ url: 'http://example.com/data.csv', name: 'data' }],
      ...fields,
    })
    await collaborate(d.id, reader, 'member')
    await collaborate(d.id, writer, 'editor')
    return d
  }
  const search = async (as: Caller | null, params: Record<string, unknown> = {}) =>
    (await t.ok('package_search', { rows: 1000, include_private: true, ...params }, as)).results.map(
      (r: any) => r.id,
    )
  return { t, sys, admin, editor, reader, writer, stranger, org, collaborate, shared, search }
}

describe('collaborators on a private dataset', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site()
  })

  it('lets members and editors read it and its resources; nobody else', async () => {
    const d = await s.shared()
    for (const who of [s.reader, s.writer]) {
      expect((await s.t.call('package_show', { id: d.id }, who)).status).toBe(200)
      expect((await s.t.call('resource_show', { id: d.resources[0].id }, who)).status).toBe(200)
    }
    denied(await s.t.call('package_show', { id: d.id }, s.stranger), `User ${s.stranger.name} not authorized to read package ${d.id}`)
    denied(
      await s.t.call('resource_show', { id: d.resources[0].id }, s.stranger),
      `User ${s.stranger.name} not authorized to read resource ${d.resources[0].id}`,
    )
  })

  it('lets editors update, patch, revise and delete it, and write its resources', async () => {
    const d = await s.shared()
    const w = s.writer
    expect((await s.t.call('package_patch', { id: d.id, notes: 'patched' }, w)).status).toBe(200)
    const full = await s.t.ok('package_show', { id: d.id }, w)
    expect((await s.t.call('package_update', { ...full, title: 'Updated' }, w)).status).toBe(200)
    const rev = await s.t.call('package_revise', { match: { id: d.id, title: 'Updated' }, update: { version: '2' } }, w)
    expect(rev.status).toBe(200)
    const res = await s.t.ok('resource_create', { package_id: d.id, url: 'http://example.com/more.csv' }, w)
    expect((await s.t.call('resource_patch', { id: res.id, name: 'more' }, w)).status).toBe(200)
    expect((await s.t.call('resource_update', { id: res.id, url: 'http://example.com/m.csv' }, w)).status).toBe(200)
    expect((await s.t.call('resource_delete', { id: res.id }, w)).status).toBe(200)
    expect((await s.t.call('package_resource_reorder', { id: d.id, order: [d.resources[0].id] }, w)).status).toBe(200)
    expect(await s.t.ok('package_show', { id: d.id }, s.sys)).toMatchObject({ notes: 'patched', title: 'Updated', version: '2' })
    // ckan 2.9: package_delete's rule is package_update's
    expect((await s.t.call('package_delete', { id: d.id }, w)).status).toBe(200)
  })

  it('refuses every write to members', async () => {
    const d = await s.shared()
    const r = s.reader
    const edit = `User ${r.name} not authorized to edit package ${d.id}`
    denied(await s.t.call('package_patch', { id: d.id, notes: 'x' }, r), edit)
    denied(await s.t.call('package_update', { id: d.id, name: d.name }, r), edit)
    denied(await s.t.call('package_revise', { match: { id: d.id }, update: { notes: 'x' } }, r), edit)
    denied(await s.t.call('package_delete', { id: d.id }, r), edit)
    denied(
      await s.t.call('resource_create', { package_id: d.id, url: 'http://example.com/x' }, r),
      `User ${r.name} not authorized to create resources on dataset ${d.id}`,
    )
    const rid = d.resources[0].id
    denied(await s.t.call('resource_patch', { id: rid, name: 'x' }, r), `User ${r.name} not authorized to edit resource ${rid}`)
    denied(await s.t.call('resource_delete', { id: rid }, r), `User ${r.name} not authorized to delete resource ${rid}`)
    denied(
      await s.t.call('package_collaborator_create', { id: d.id, user_id: s.stranger.id, capacity: 'member' }, s.writer),
      `User ${s.writer.name} not authorized to add collaborators to this dataset`,
    )
  })

  it('shows it in package_search with include_private to its collaborators only', async () => {
    const d = await s.shared()
    for (const who of [s.reader, s.writer]) {
      expect(await s.search(who)).toContain(d.id)
      expect(await s.search(who, { include_private: false })).not.toContain(d.id)
    }
    expect(await s.search(s.stranger)).not.toContain(d.id)
    expect(await s.search(null)).not.toContain(d.id)
    expect(await s.search(s.editor)).toContain(d.id) // as an organization editor
  })

  it('shows its drafts to collaborators with include_drafts', async () => {
    const d = await s.shared({ private: false })
    await s.t.ok('package_patch', { id: d.id, state: 'draft' }, s.admin)
    expect((await s.t.ok('package_show', { id: d.id }, s.sys)).state).toBe('draft')
    expect((await s.t.call('package_show', { id: d.id }, s.reader)).status).toBe(200)
    expect(await s.search(s.reader, { include_drafts: true })).toContain(d.id)
    expect(await s.search(s.stranger, { include_drafts: true })).not.toContain(d.id)
  })

  it('completes its name for collaborators only', async () => {
    const d = await s.shared()
    const names = async (as: Caller) =>
      (await s.t.ok('package_autocomplete', { q: d.name }, as)).map((x: any) => x.name)
    expect(await names(s.reader)).toEqual([d.name])
    expect(await names(s.stranger)).toEqual([])
  })

  it("counts it among the organization's datasets for its collaborators", async () => {
    const org = await s.t.make.organization(s.admin)
    const d = await s.t.make.dataset(s.admin, { owner_org: org.id, private: true })
    await s.collaborate(d.id, s.reader, 'member')
    const count = async (as: Caller) => (await s.t.ok('organization_show', { id: org.id }, as)).package_count
    expect(await count(s.reader)).toBe(1)
    expect(await count(s.stranger)).toBe(0)
  })

  it('shows its activities to collaborators once it has gone private', async () => {
    const org = await s.t.make.organization(s.admin)
    const d = await s.t.make.dataset(s.admin, { owner_org: org.id })
    await s.t.ok('package_patch', { id: d.id, notes: 'public change' }, s.admin)
    await s.t.ok('package_patch', { id: d.id, private: true }, s.admin)
    await s.collaborate(d.id, s.reader, 'member')
    const own = await s.t.call('package_activity_list', { id: d.id }, s.reader)
    expect(own.body.result.map((a: any) => a.activity_type)).toEqual(['changed package', 'new package'])
    denied(await s.t.call('package_activity_list', { id: d.id }, s.stranger), `User ${s.stranger.name} not authorized to read package ${d.id}`)
    const stream = async (as: Caller) =>
      (await s.t.ok('organization_activity_list', { id: org.id }, as)).filter((a: any) => a.object_id === d.id)
    expect(await stream(s.reader)).toHaveLength(2)
    expect(await stream(s.stranger)).toHaveLength(0)
  })

  it('lets collaborators follow it, and nobody else', async () => {
    const d = await s.shared()
    expect((await s.t.call('follow_dataset', { id: d.id }, s.reader)).status).toBe(200)
    const r = await s.t.call('follow_dataset', { id: d.id }, s.stranger)
    expect(r.status).toBe(409)
    expect(r.body.error.id).toEqual(['Not found: Dataset'])
  })

  it('lets editors write the DataStore tables of its resources and members read them', async () => {
    const d = await s.shared()
    const rid = d.resources[0].id
    const created = await s.t.call('datastore_create', { resource_id: rid, force: true, records: [{ a: 1 }] }, s.writer)
    expect(created.status).toBe(200)
    const upsert = { resource_id: rid, force: true, method: 'insert', records: [{ a: 2 }] }
    expect((await s.t.call('datastore_upsert', upsert, s.writer)).status).toBe(200)
    const read = await s.t.call('datastore_search', { resource_id: rid }, s.reader)
    expect(read.body.result.records.map((x: any) => x.a)).toEqual([1, 2])
    denied(await s.t.call('datastore_upsert', upsert, s.reader), `User ${s.reader.name} not authorized to edit resource ${rid}`)
    denied(
      await s.t.call('datastore_search', { resource_id: rid }, s.stranger),
      `User ${s.stranger.name} not authorized to read resource ${rid}`,
    )
  })

  it('takes the rights away at once when a collaborator is removed', async () => {
    const d = await s.shared()
    expect(await s.search(s.writer)).toContain(d.id)
    await s.t.ok('package_collaborator_delete', { id: d.id, user_id: s.writer.id }, s.admin)
    denied(await s.t.call('package_show', { id: d.id }, s.writer), `User ${s.writer.name} not authorized to read package ${d.id}`)
    denied(await s.t.call('package_patch', { id: d.id, notes: 'x' }, s.writer), `User ${s.writer.name} not authorized to edit package ${d.id}`)
    expect(await s.search(s.writer)).not.toContain(d.id)
    // a changed capacity takes effect at once too
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.reader.id, capacity: 'editor' }, s.admin)
    expect((await s.t.call('package_patch', { id: d.id, notes: 'now an editor' }, s.reader)).status).toBe(200)
  })

  it('ends the collaborations of a deleted dataset and of a deleted user', async () => {
    const d = await s.shared()
    await s.t.ok('package_delete', { id: d.id }, s.admin)
    expect(await s.t.ok('package_collaborator_list', { id: d.id }, s.admin)).toEqual([])
    denied(await s.t.call('package_show', { id: d.id }, s.reader), `User ${s.reader.name} not authorized to read package ${d.id}`)
    const e = await s.shared()
    const gone = await s.t.make.user()
    await s.collaborate(e.id, gone, 'editor')
    await s.t.ok('user_delete', { id: gone.id }, s.sys)
    const left = await s.t.ok('package_collaborator_list', { id: e.id }, s.admin)
    expect(left.map((c: any) => c.user_id)).toEqual([s.reader.id, s.writer.id])
    await s.t.ok('dataset_purge', { id: e.id }, s.sys)
    const mine = await s.t.ok('package_collaborator_list_for_user', { id: s.writer.id }, s.writer)
    expect(mine.map((c: any) => c.package_id)).not.toContain(e.id)
    expect(await s.t.db.select().from(packageMembers).where(eq(packageMembers.package_id, e.id))).toEqual([])
  })

  it('keeps collaborators from moving the dataset to another organization', async () => {
    const d = await s.shared()
    const other = await s.t.make.organization(s.admin)
    await s.t.ok('organization_member_create', { id: other.id, username: s.writer.name, role: 'editor' }, s.admin)
    const r = await s.t.call('package_patch', { id: d.id, owner_org: other.id }, s.writer)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      owner_org: ['You cannot move this dataset to another organization'],
    })
    // the current organization by id is no move; by name it counts as one (ckan compares as given)
    expect((await s.t.call('package_patch', { id: d.id, owner_org: s.org.id, notes: 'stays' }, s.writer)).status).toBe(200)
    expect((await s.t.call('package_patch', { id: d.id, owner_org: s.org.name }, s.writer)).status).toBe(409)
    // an editor of the current organization who also collaborates may move it
    await s.collaborate(d.id, s.editor, 'editor')
    await s.t.ok('organization_member_create', { id: other.id, username: s.editor.name, role: 'editor' }, s.admin)
    const moved = await s.t.call('package_patch', { id: d.id, owner_org: other.id }, s.editor)
    expect(moved.body.result.owner_org).toBe(other.id)
  })

  it('loads a user\'s collaborations once per process, whatever they search', async () => {
    const d = await s.shared()
    const caches = s.t.deps.caches
    const nobody = await s.t.make.user()
    await s.search(nobody)
    const first = caches.collaborations.get(nobody.id)
    expect(first).toEqual(new Map())
    await s.search(nobody)
    await s.t.call('package_show', { id: d.id }, nobody)
    expect(caches.collaborations.get(nobody.id)).toBe(first)
  })
})

describe('collaborators with owner_org changes allowed', () => {
  it('lets an editor collaborator move the dataset where they may create datasets', async () => {
    const s = await site({ ...ON, 'service.auth.allow_collaborators_to_change_owner_org': 'true' })
    const d = await s.shared()
    const other = await s.t.make.organization(s.admin)
    const third = await s.t.make.organization(s.admin)
    await s.t.ok('organization_member_create', { id: other.id, username: s.writer.name, role: 'editor' }, s.admin)
    const r = await s.t.call('package_patch', { id: d.id, owner_org: third.id }, s.writer)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      owner_org: ['You cannot add a dataset to this organization'],
    })
    const moved = await s.t.call('package_patch', { id: d.id, owner_org: other.id }, s.writer)
    expect(moved.status).toBe(200)
    expect(moved.body.result.owner_org).toBe(other.id)
  })
})

describe('admin collaborator rows while admins are not allowed', () => {
  it('count as editors: they edit, but do not manage collaborators', async () => {
    const s = await site()
    const d = await s.shared()
    await s.t.db.insert(packageMembers).values({ package_id: d.id, user_id: s.stranger.id, capacity: 'admin', modified: '2024-01-01T00:00:00.000000' })
    s.t.deps.caches.collaborations.clear()
    expect((await s.t.call('package_patch', { id: d.id, notes: 'as admin row' }, s.stranger)).status).toBe(200)
    denied(
      await s.t.call('package_collaborator_list', { id: d.id }, s.stranger),
      `User ${s.stranger.name} not authorized to list collaborators from this dataset`,
    )
  })
})

describe('collaborator rows while the feature is off', () => {
  let t: TestEnv
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site({})
    t = s.t
  })

  it('grant nothing, and are never even read', async () => {
    const d = await t.make.dataset(s.admin, { owner_org: s.org.id, private: true })
    for (const [who, capacity] of [
      [s.reader, 'member'],
      [s.writer, 'editor'],
    ] as const)
      await t.db.insert(packageMembers).values({ package_id: d.id, user_id: who.id, capacity, modified: '2024-01-01T00:00:00.000000' })
    denied(await t.call('package_show', { id: d.id }, s.reader), `User ${s.reader.name} not authorized to read package ${d.id}`)
    denied(await t.call('package_patch', { id: d.id, notes: 'x' }, s.writer), `User ${s.writer.name} not authorized to edit package ${d.id}`)
    expect(await s.search(s.writer)).not.toContain(d.id)
    expect((await t.ok('package_autocomplete', { q: d.name }, s.writer))).toEqual([])
    expect([...t.deps.caches.collaborations.values()]).toEqual([])
  })
})

describe('collaborators across processes', () => {
  it('reach, and leave, another process sharing the database at its next request', async () => {
    const s = await site()
    const opened = await openCatalogDb(`file:${s.t.file}`)
    const deps = buildDeps(loadConfig({ ...TEST_PROFILE, ...ON }), opened.db, opened)
    await warmUp(deps)
    const other = createApp(deps)
    const call = async (name: string, params: object, as: Caller) => {
      // A request from the network starts in a later event-loop turn than the write it follows.
      // Both "processes" share this thread, and the first one's writes can finish without a turn
      // passing; the other would then reuse the change-log probe of its previous request (valid
      // for requests that arrived in the same turn only) and miss the write.
      await new Promise((resolve) => setImmediate(resolve))
      const res = await other.request(`/api/3/action/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: as.apikey },
        body: JSON.stringify(params),
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    const searchThere = async (as: Caller) =>
      (await call('package_search', { include_private: true, rows: 1000 }, as)).body.result.results.map((r: any) => r.id)

    const d = await s.t.make.dataset(s.admin, { owner_org: s.org.id, private: true })
    // The other process caches the user's (empty) collaborations and rights.
    expect((await call('package_show', { id: d.id }, s.writer)).status).toBe(403)
    expect(await searchThere(s.writer)).not.toContain(d.id)
    await s.collaborate(d.id, s.writer, 'editor')
    expect((await call('package_show', { id: d.id }, s.writer)).status).toBe(200)
    expect(await searchThere(s.writer)).toContain(d.id)
    expect((await call('package_patch', { id: d.id, notes: 'from the other process' }, s.writer)).status).toBe(200)
    await s.t.ok('package_collaborator_delete', { id: d.id, user_id: s.writer.id }, s.admin)
    expect((await call('package_show', { id: d.id }, s.writer)).status).toBe(403)
    expect(await searchThere(s.writer)).not.toContain(d.id)
    // ending collaborations with the dataset reaches it too
    await s.collaborate(d.id, s.reader, 'member')
    expect((await call('package_show', { id: d.id }, s.reader)).status).toBe(200)
    await s.t.ok('package_delete', { id: d.id }, s.admin)
    expect((await call('package_show', { id: d.id }, s.reader)).status).toBe(403)
    opened.close()
  })
})
