// The user actions: create, show, list, update, patch, delete, API keys and the site user.
import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { activities, followers, groups, members, packages, users } from '../../src/db/schema'
import { verifyPassword } from '../../src/lib/password'
import { md5Hex } from '../../src/lib/hex'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let admin: Caller & { id: string; name: string }
beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const md5 = (s: string) => createHash('md5').update(s).digest('hex')

const newUser = (fields: Record<string, unknown> = {}) => t.make.user(fields)

async function userRow(id: string) {
  const [row] = await t.db.select().from(users).where(eq(users.id, id))
  return row!
}

/** A dataset row written directly (the dataset actions are tested elsewhere). */
async function insertDataset(creator: string, fields: Partial<typeof packages.$inferInsert> = {}) {
  const id = crypto.randomUUID()
  const now = new Date().toISOString().slice(0, 23) + '000'
  await t.db.insert(packages).values({
    id,
    name: uniq('ds'),
    title: 'Dataset',
    creator_user_id: creator,
    metadata_created: now,
    metadata_modified: now,
    ...fields,
  })
  return id
}

async function insertOrg() {
  const id = crypto.randomUUID()
  await t.db.insert(groups).values({
    id,
    name: uniq('org'),
    title: 'Org',
    type: 'organization',
    is_organization: true,
    created: '2020-01-01T00:00:00.000000',
  })
  return id
}

async function addMember(groupId: string, userId: string, capacity = 'member') {
  await t.db
    .insert(members)
    .values({
      id: crypto.randomUUID(),
      group_id: groupId,
      table_id: userId,
      table_name: 'user',
      capacity,
    })
}

describe('md5Hex', () => {
  it('matches the reference digests', () => {
    for (const s of [
      '',
      'abc',
      'joe@example.com',
      'x'.repeat(55),
      'x'.repeat(64),
      'ü€😀'.repeat(30),
    ])
      expect(md5Hex(s)).toBe(md5(s))
  })
})

describe('user_create', () => {
  it('creates a user and returns its dict with email and API key', async () => {
    const name = uniq('joe')
    const r = await t.call(
      'user_create',
      { name, email: ` ${name}@Example.com`.trim(), password: 'secret1', fullname: 'Joe Bloggs' },
      admin,
    )
    expect(r.status).toBe(200)
    const u = r.body.result
    expect(u).toMatchObject({
      name,
      fullname: 'Joe Bloggs',
      display_name: 'Joe Bloggs',
      email: `${name}@Example.com`,
      email_hash: md5(`${name}@example.com`),
      about: null,
      image_url: null,
      image_display_url: null,
      state: 'active',
      sysadmin: false,
      number_created_packages: 0,
      activity_streams_email_notifications: false,
    })
    expect(u.id).toMatch(UUID)
    expect(u.apikey).toMatch(UUID)
    expect(u.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/)
    for (const k of ['password', 'password_hash', 'reset_key', 'plugin_extras'])
      expect(u).not.toHaveProperty(k)
  })

  it('stores a password hash that verifies, never the password', async () => {
    const u = await newUser({ password: 'correct horse' })
    const row = await userRow(u.id)
    expect(row.password_hash).not.toContain('correct horse')
    expect(await verifyPassword('correct horse', row.password_hash!)).toBe(true)
    expect(await verifyPassword('wrong', row.password_hash!)).toBe(false)
  })

  it('records a "new user" activity by the new user', async () => {
    const u = await newUser()
    const rows = await t.db.select().from(activities).where(eq(activities.object_id, u.id))
    expect(rows.map((a) => [a.activity_type, a.user_id])).toEqual([['new user', u.id]])
  })

  it('reports all three missing required fields', async () => {
    const r = await t.call('user_create', {}, admin)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      name: ['Missing value'],
      email: ['Missing value'],
      password: ['Missing value'],
    })
  })

  it('refuses a taken name and a taken e-mail address', async () => {
    const u = await newUser()
    let r = await t.call(
      'user_create',
      { name: u.name, email: 'fresh@example.com', password: 'password' },
      admin,
    )
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      name: ['That login name is not available.'],
    })
    r = await t.call(
      'user_create',
      { name: uniq('fresh'), email: u.email, password: 'password' },
      admin,
    )
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      email: [`The email address '${u.email}' belongs to a registered user.`],
    })
  })

  it('checks name rules, e-mail format, password length and type, and links in about', async () => {
    let r = await t.call(
      'user_create',
      { name: 'A', email: 'not-an-email', password: 'abc' },
      admin,
    )
    expect(r.body.error).toMatchObject({
      name: ['Must be at least 2 characters long'],
      email: ['Email not-an-email is not a valid format'],
      password: ['Your password must be 4 characters or longer'],
    })
    r = await t.call('user_create', { name: 'Bad Name', email: 'a@b.com', password: 12345 }, admin)
    expect(r.body.error).toMatchObject({
      name: ['Must be purely lowercase alphanumeric (ascii) characters and these symbols: -_'],
      password: ['Passwords must be strings'],
    })
    r = await t.call(
      'user_create',
      {
        name: uniq('spam'),
        email: 'spam@example.com',
        password: 'password',
        about: 'see https://x.y',
      },
      admin,
    )
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      about: ['Edit not allowed as it looks like spam. Please avoid links in your description.'],
    })
  })

  it('lets a sysadmin set id, sysadmin, state, plugin_extras and a password hash', async () => {
    const id = crypto.randomUUID()
    const name = uniq('imported')
    const u = await t.ok(
      'user_create',
      {
        id,
        name,
        email: `${name}@example.com`,
        password_hash: 'pbkdf2-sha256$1$00$00',
        sysadmin: true,
        state: 'pending',
        plugin_extras: { oauth: { sub: 'x' } },
      },
      admin,
    )
    expect(u).toMatchObject({
      id,
      sysadmin: true,
      state: 'pending',
      plugin_extras: { oauth: { sub: 'x' } },
    })
    expect((await userRow(id)).password_hash).toBe('pbkdf2-sha256$1$00$00')
  })

  it('ignores an id that another user already has', async () => {
    const other = await newUser()
    const name = uniq('dup')
    const u = await t.ok(
      'user_create',
      { id: other.id, name, email: `${name}@x.org`, password: 'pass' },
      admin,
    )
    expect(u.id).not.toBe(other.id)
    expect(u.name).toBe(name)
  })

  it('refuses anonymous callers and plain users before validating', async () => {
    let r = await t.call('user_create', {})
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      'Access denied: User  not authorized to create users via the API',
    )
    const u = await newUser()
    r = await t.call(
      'user_create',
      { name: uniq('x'), email: 'x@example.com', password: 'pass' },
      u,
    )
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${u.name} not authorized to create users via the API`,
    )
  })
})

describe('user_create with create_user_via_api and no default API keys', () => {
  let t2: TestEnv
  beforeAll(async () => {
    t2 = await setup({
      'service.auth.create_user_via_api': 'true',
      'service.auth.create_default_api_keys': 'false',
      'service.auth.password_min_length': '8',
      'service.auth.public_user_details': 'false',
    })
  })

  it('lets anyone register, dropping sysadmin-only keys silently', async () => {
    const name = uniq('self')
    const id = crypto.randomUUID()
    const u = await t2.ok('user_create', {
      id,
      name,
      email: `${name}@example.com`,
      password: 'longenough',
      sysadmin: true,
      state: 'pending',
      plugin_extras: { a: 1 },
    })
    expect(u).toMatchObject({ name, sysadmin: false, state: 'active', apikey: null })
    expect(u.id).not.toBe(id)
    expect(u).not.toHaveProperty('plugin_extras')
  })

  it('names the configured minimum password length', async () => {
    const r = await t2.call('user_create', {
      name: uniq('short'),
      email: 's@example.com',
      password: 'seven77',
    })
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      password: ['Your password must be 8 characters or longer'],
    })
  })

  it('hides users from anonymous callers when public_user_details is off', async () => {
    const a = await t2.make.sysadmin()
    const name = uniq('hidden')
    const u = await t2.ok(
      'user_create',
      { name, email: `${name}@e.org`, password: 'longenough' },
      a,
    )
    expect((await t2.call('user_show', { id: u.id })).body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied',
    })
    expect((await t2.call('user_list')).status).toBe(403)
    expect((await t2.call('user_show', { id: u.id }, a)).status).toBe(200)
  })
})

describe('user_show', () => {
  it('returns the public dict to others and email/apikey to the user and sysadmins', async () => {
    const u = await newUser({ fullname: '  ' })
    const other = await newUser()
    const anon = (await t.call('user_show', { id: u.name })).body.result
    expect(anon.id).toBe(u.id)
    expect(anon.display_name).toBe(u.name) // blank fullname
    expect(anon).not.toHaveProperty('email')
    expect(anon).not.toHaveProperty('apikey')
    expect(await t.ok('user_show', { id: u.id }, other)).not.toHaveProperty('email')
    const self = await t.ok('user_show', { id: u.id }, u)
    expect(self).toMatchObject({ email: u.email, apikey: u.apikey })
    expect(await t.ok('user_show', { id: u.id }, admin)).toMatchObject({
      email: u.email,
      apikey: u.apikey,
    })
  })

  it('answers Not found for an unknown or absent id', async () => {
    for (const [params, as] of [
      [{ id: 'nobody-here' }, null],
      [{}, null],
      [{}, admin],
    ] as const) {
      const r = await t.call('user_show', params, as)
      expect(r.status).toBe(404)
      expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    }
  })

  it('adds password_hash and plugin_extras for sysadmins only', async () => {
    const u = await newUser({ plugin_extras: { k: 'v' } })
    const params = { id: u.id, include_password_hash: true, include_plugin_extras: true }
    const bySys = await t.ok('user_show', params, admin)
    expect(bySys.password_hash).toMatch(/^pbkdf2-sha256\$/)
    expect(bySys.plugin_extras).toEqual({ k: 'v' })
    const bySelf = await t.ok('user_show', params, u)
    expect(bySelf).not.toHaveProperty('password_hash')
    expect(bySelf).not.toHaveProperty('plugin_extras')
  })

  it('counts private and draft datasets only for the user and sysadmins', async () => {
    const u = await newUser()
    await insertDataset(u.id)
    await insertDataset(u.id, { private: true })
    await insertDataset(u.id, { state: 'draft' })
    await insertDataset(u.id, { state: 'deleted' })
    expect((await t.ok('user_show', { id: u.id })).number_created_packages).toBe(1)
    expect((await t.ok('user_show', { id: u.id }, u)).number_created_packages).toBe(3)
    expect((await t.ok('user_show', { id: u.id }, admin)).number_created_packages).toBe(3)
  })

  it('lists the datasets the user created with include_datasets', async () => {
    const u = await newUser()
    const org = await insertOrg()
    await addMember(org, u.id, 'editor')
    const pub = await insertDataset(u.id, { metadata_modified: '2020-01-01T00:00:00.000000' })
    const priv = await insertDataset(u.id, {
      private: true,
      owner_org: org,
      metadata_modified: '2021-01-01T00:00:00.000000',
    })
    const draft = await insertDataset(u.id, {
      state: 'draft',
      metadata_modified: '2022-01-01T00:00:00.000000',
    })
    await insertDataset(u.id, { state: 'deleted' })
    const ids = (d: { datasets: { id: string }[] }) => d.datasets.map((x) => x.id)
    expect(ids(await t.ok('user_show', { id: u.id, include_datasets: true }))).toEqual([pub])
    expect(ids(await t.ok('user_show', { id: u.id, include_datasets: 'true' }, u))).toEqual([
      draft,
      priv,
      pub,
    ])
    const full = await t.ok('user_show', { id: u.id, include_datasets: true }, admin)
    expect(ids(full)).toEqual([draft, priv, pub])
    expect(full.datasets[2]).toMatchObject({ id: pub, resources: [], tags: [] })
    expect(await t.ok('user_show', { id: u.id })).not.toHaveProperty('datasets')
  })

  it('returns at most 50 datasets', async () => {
    const u = await newUser()
    for (let i = 0; i < 52; i++) await insertDataset(u.id)
    const d = await t.ok('user_show', { id: u.id, include_datasets: true })
    expect(d.datasets).toHaveLength(50)
    expect(d.number_created_packages).toBe(52)
  })

  it('counts followers with include_num_followers', async () => {
    const u = await newUser()
    const f1 = await newUser()
    const f2 = await newUser()
    for (const f of [f1, f2])
      await t.db
        .insert(followers)
        .values({
          follower_id: f.id,
          object_id: u.id,
          object_type: 'user',
          datetime: '2020-01-01T00:00:00',
        })
    await t.db.update(users).set({ state: 'deleted' }).where(eq(users.id, f2.id))
    expect((await t.ok('user_show', { id: u.id, include_num_followers: true })).num_followers).toBe(
      1,
    )
  })

  it('turns a relative image_url into an upload URL', async () => {
    const a = await newUser({ image_url: 'me.png' })
    const b = await newUser({ image_url: 'http://img.example.com/b.png' })
    expect((await t.ok('user_show', { id: a.id })).image_display_url).toBe(
      'http://test.ckan.net/uploads/user/me.png',
    )
    expect((await t.ok('user_show', { id: b.id })).image_display_url).toBe(
      'http://img.example.com/b.png',
    )
  })

  it('works with GET', async () => {
    const u = await newUser()
    const r = await t.get(`/api/3/action/user_show?id=${u.name}`)
    expect(r.body.result.id).toBe(u.id)
  })
})

describe('user_list', () => {
  it('orders by name by default and returns dicts', async () => {
    const tag = uniq('lst').replace(/-/g, '')
    const b = await newUser({ name: `b${tag}`, fullname: 'Aaron' })
    const a = await newUser({ name: `a${tag}`, fullname: 'Zed' })
    const list = await t.ok('user_list', { q: tag })
    expect(list.map((u: { name: string }) => u.name)).toEqual([a.name, b.name])
    const skipped = await t.ok('user_list', { q: tag, offset: 1 }) // an offset without a limit
    expect(skipped.map((u: { name: string }) => u.name)).toEqual([b.name])
    expect(list[0]).toMatchObject({ id: a.id, display_name: 'Zed', number_created_packages: 0 })
    expect(list[0]).not.toHaveProperty('email')
    const byDisplay = await t.ok('user_list', {
      q: tag,
      order_by: 'display_name',
      all_fields: false,
    })
    expect(byDisplay).toEqual([b.name, a.name])
  })

  it('matches q against name or full name, case-insensitively, and e-mail for sysadmins', async () => {
    const tag = uniq('q').replace(/-/g, '')
    const u = await newUser({
      fullname: `Mary ${tag.toUpperCase()}`,
      email: `${tag}mail@example.com`,
    })
    const names = async (q: string, as?: Caller) =>
      (await t.ok('user_list', { q, all_fields: false }, as)) as string[]
    expect(await names(tag)).toEqual([u.name])
    expect(await names(`${tag}mail`)).toEqual([])
    expect(await names(`${tag}mail`, admin)).toEqual([u.name])
  })

  it('shows email and apikey only in the caller’s own entry', async () => {
    const tag = uniq('own').replace(/-/g, '')
    const me = await newUser({ fullname: tag })
    const other = await newUser({ fullname: tag })
    const list = await t.ok('user_list', { q: tag }, me)
    const byId = new Map(list.map((u: { id: string }) => [u.id, u]))
    expect(byId.get(me.id)).toMatchObject({ email: me.email, apikey: me.apikey })
    expect(byId.get(other.id)).not.toHaveProperty('email')
  })

  it('filters by exact e-mail for sysadmins and refuses the filter to others', async () => {
    const u = await newUser()
    expect(await t.ok('user_list', { email: u.email, all_fields: false }, admin)).toEqual([u.name])
    const r = await t.call('user_list', { email: u.email }, u)
    expect(r.status).toBe(403)
    expect(r.body.error).toEqual({ __type: 'Authorization Error', message: 'Access denied' })
    expect((await t.call('user_list', { email: u.email })).status).toBe(403)
  })

  it('leaves out deleted users and the site user unless asked', async () => {
    const tag = uniq('del').replace(/-/g, '')
    const gone = await newUser({ fullname: tag })
    await t.ok('user_delete', { id: gone.id }, admin)
    expect(await t.ok('user_list', { q: tag })).toEqual([])
    const site = await t.ok('get_site_user', {}, admin)
    expect(await t.ok('user_list', { all_fields: false })).not.toContain(site.name)
    expect(await t.ok('user_list', { all_fields: false, include_site_user: true })).toContain(
      site.name,
    )
  })

  it('orders by number_created_packages and pages with limit and offset', async () => {
    const tag = uniq('cnt').replace(/-/g, '')
    const many = await newUser({ name: `a${tag}` })
    const few = await newUser({ name: `b${tag}` })
    const none = await newUser({ name: `c${tag}` })
    await insertDataset(many.id)
    await insertDataset(many.id)
    await insertDataset(few.id)
    await insertDataset(none.id, { private: true })
    const ordered = await t.ok('user_list', { q: tag, order_by: 'number_created_packages' })
    expect(
      ordered.map((u: { name: string; number_created_packages: number }) => [
        u.name,
        u.number_created_packages,
      ]),
    ).toEqual([
      [none.name, 0],
      [few.name, 1],
      [many.name, 2],
    ])
    expect(await t.ok('user_list', { q: tag, all_fields: false, limit: 1, offset: 1 })).toEqual([
      few.name,
    ])
  })

  it('rejects order_by=edits and unknown orders', async () => {
    let r = await t.call('user_list', { order_by: 'edits' })
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: 'order_by=edits is no longer supported',
    })
    r = await t.call('user_list', { order_by: 'password_hash' })
    expect(r.status).toBe(409)
    expect(r.body.error.order_by[0]).toMatch(/^Value must be one of \[/)
  })
})

describe('user_update', () => {
  it('lets the user change their details, keeping omitted ones', async () => {
    const u = await newUser({ fullname: 'Old Name', about: 'About me', image_url: 'pic.png' })
    const r = await t.ok(
      'user_update',
      { id: u.id, email: 'new@example.com', fullname: 'New Name' },
      u,
    )
    expect(r).toMatchObject({
      fullname: 'New Name',
      about: 'About me',
      image_url: 'pic.png',
      email: 'new@example.com',
      email_hash: md5('new@example.com'),
      name: u.name,
    })
    const row = await userRow(u.id)
    expect(await verifyPassword('password123', row.password_hash!)).toBe(true)
  })

  it('changes the password when one is given', async () => {
    const u = await newUser()
    await t.ok('user_update', { id: u.name, email: u.email, password: 'brand-new' }, u)
    expect(await verifyPassword('brand-new', (await userRow(u.id)).password_hash!)).toBe(true)
  })

  it('records a "changed user" activity', async () => {
    const u = await newUser()
    await t.ok('user_update', { id: u.id, email: u.email, fullname: 'X' }, admin)
    const rows = await t.db
      .select()
      .from(activities)
      .where(and(eq(activities.object_id, u.id), eq(activities.activity_type, 'changed user')))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.user_id).toBe(u.id)
  })

  it('refuses a null password instead of ignoring it, and keeps the old one', async () => {
    const u = await newUser()
    for (const as of [u, admin]) {
      const r = await t.call('user_update', { id: u.id, email: u.email, password: null }, as)
      expect(r.status).toBe(409)
      expect(r.body.error).toEqual({
        __type: 'Validation Error',
        password: ['Passwords must be strings'],
      })
    }
    expect(await verifyPassword('password123', (await userRow(u.id)).password_hash!)).toBe(true)
    // user_patch sends what it is given the same way
    const p = await t.call('user_patch', { id: u.id, password: null }, u)
    expect(p.body.error).toEqual({
      __type: 'Validation Error',
      password: ['Passwords must be strings'],
    })
    // an empty password still means "unchanged", as in CKAN
    await t.ok('user_update', { id: u.id, email: u.email, password: '' }, u)
    expect(await verifyPassword('password123', (await userRow(u.id)).password_hash!)).toBe(true)
    // user_create: not a string, and no password at all
    const name = uniq('nullpw')
    const c = await t.call('user_create', { name, email: `${name}@e.org`, password: null }, admin)
    expect(c.body.error).toEqual({
      __type: 'Validation Error',
      password: ['Passwords must be strings', 'Missing value'],
    })
  })

  it('requires email and refuses a new name or a taken e-mail address', async () => {
    const u = await newUser()
    const other = await newUser()
    let r = await t.call('user_update', { id: u.id }, u)
    expect(r.body.error).toEqual({ __type: 'Validation Error', email: ['Missing value'] })
    r = await t.call('user_update', { id: u.id, name: uniq('renamed'), email: other.email }, u)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      name: ['That login name can not be modified.'],
      email: [`The email address '${other.email}' belongs to a registered user.`],
    })
    r = await t.call('user_update', { id: u.id, name: other.name, email: u.email }, u)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      name: ['That login name is not available.'],
    })
    r = await t.call('user_update', { id: u.id, name: u.name, email: u.email, password: 'abc' }, u)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      password: ['Your password must be 4 characters or longer'],
    })
  })

  it('lets a pending account pick a new name', async () => {
    const name = uniq('pending')
    const u = await t.ok(
      'user_create',
      { name, email: `${name}@e.org`, password: 'pass', state: 'pending' },
      admin,
    )
    const renamed = uniq('chosen')
    const r = await t.ok(
      'user_update',
      { id: u.id, name: renamed, email: u.email, state: 'active' },
      admin,
    )
    expect(r).toMatchObject({ name: renamed, state: 'active' })
  })

  it('lets sysadmins edit anyone and grant sysadmin, but not users themselves', async () => {
    const u = await newUser()
    expect(
      (await t.ok('user_update', { id: u.id, email: u.email, sysadmin: true }, u)).sysadmin,
    ).toBe(false)
    expect(
      (await t.ok('user_update', { id: u.id, email: u.email, sysadmin: true }, admin)).sysadmin,
    ).toBe(true)
  })

  it('refuses other users and anonymous callers', async () => {
    const u = await newUser()
    const other = await newUser()
    let r = await t.call('user_update', { id: u.id, email: u.email }, other)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${other.name} not authorized to edit user ${u.id}`,
    )
    r = await t.call('user_update', { id: u.id, email: u.email })
    expect(r.body.error.message).toBe('Access denied: Have to be logged in to edit user')
  })

  it('accepts the account’s reset key instead of a login', async () => {
    const u = await newUser()
    await t.db.update(users).set({ reset_key: 'reset-123' }).where(eq(users.id, u.id))
    expect(
      (await t.call('user_update', { id: u.id, email: u.email, reset_key: 'wrong' })).status,
    ).toBe(403)
    const r = await t.ok('user_update', {
      id: u.id,
      email: u.email,
      reset_key: 'reset-123',
      fullname: 'Reset',
    })
    expect(r.fullname).toBe('Reset')
  })

  it('answers Not found for an unknown user and Missing value without id', async () => {
    let r = await t.call('user_update', { id: 'ghost', email: 'g@example.com' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: User was not found.')
    r = await t.call('user_update', { id: 'ghost', email: 'g@example.com' })
    expect(r.status).toBe(404)
    r = await t.call('user_update', { email: 'g@example.com' }, admin)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: ['Missing value'] })
  })
})

describe('user_patch', () => {
  it('changes only the given keys', async () => {
    const u = await newUser({ fullname: 'Keep Me', about: 'Old about' })
    const r = await t.ok('user_patch', { id: u.name, about: 'New about' }, u)
    expect(r).toMatchObject({
      fullname: 'Keep Me',
      about: 'New about',
      email: u.email,
      name: u.name,
    })
  })

  it('validates the merged result', async () => {
    const u = await newUser()
    const r = await t.call('user_patch', { id: u.id, about: 'http://spam.example' }, u)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      about: ['Edit not allowed as it looks like spam. Please avoid links in your description.'],
    })
  })

  it('refuses anonymous callers and other users, and reports unknown users', async () => {
    const u = await newUser()
    const other = await newUser()
    let r = await t.call('user_patch', { id: u.id, fullname: 'x' })
    expect(r.body.error.message).toBe(
      'Access denied: Action user_patch requires an authenticated user',
    )
    r = await t.call('user_patch', { id: u.id, fullname: 'x' }, other)
    expect(r.body.error.message).toBe(
      `Access denied: User ${other.name} not authorized to edit user ${u.id}`,
    )
    r = await t.call('user_patch', { id: 'ghost' }, admin)
    expect(r.status).toBe(404)
  })
})

describe('user_delete', () => {
  it('marks the user deleted and ends its memberships', async () => {
    const u = await newUser()
    const org = await insertOrg()
    await addMember(org, u.id, 'admin')
    const r = await t.call('user_delete', { id: u.name }, admin)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect((await t.ok('user_show', { id: u.id })).state).toBe('deleted')
    const [m] = await t.db.select().from(members).where(eq(members.table_id, u.id))
    expect(m!.state).toBe('deleted')
    // A deleted user's key is refused everything.
    const again = await t.call('user_show', { id: u.id }, u)
    expect(again.body.error).toEqual({ __type: 'Authorization Error', message: 'Access denied' })
  })

  it('answers Not found with the id for an unknown user', async () => {
    const r = await t.call('user_delete', { id: 'nope' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: User "nope" was not found.')
    expect((await t.call('user_delete', {}, admin)).body.error).toEqual({
      __type: 'Validation Error',
      id: ['Missing value'],
    })
  })

  it('is for sysadmins only', async () => {
    const u = await newUser()
    let r = await t.call('user_delete', { id: u.id }, u)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe('Access denied')
    r = await t.call('user_delete', { id: u.id })
    expect(r.body.error.message).toBe(
      'Access denied: Action user_delete requires an authenticated user',
    )
    expect((await userRow(u.id)).state).toBe('active')
  })
})

describe('user_generate_apikey', () => {
  it('replaces the caller’s key', async () => {
    const u = await newUser()
    const r = await t.ok('user_generate_apikey', { id: u.id }, u)
    expect(r.apikey).toMatch(UUID)
    expect(r.apikey).not.toBe(u.apikey)
    // The old key no longer identifies the user: user_show then hides the e-mail address.
    expect(await t.ok('user_show', { id: u.id }, u)).not.toHaveProperty('email')
    expect(await t.ok('user_show', { id: u.id }, { apikey: r.apikey })).toHaveProperty(
      'email',
      u.email,
    )
  })

  it('lets a sysadmin cycle anyone’s key', async () => {
    const u = await newUser()
    const r = await t.ok('user_generate_apikey', { id: u.name }, admin)
    expect(r.apikey).not.toBe(u.apikey)
    expect((await userRow(u.id)).apikey).toBe(r.apikey)
  })

  it('refuses other users and anonymous callers, and reports unknown users', async () => {
    const u = await newUser()
    const other = await newUser()
    let r = await t.call('user_generate_apikey', { id: u.id }, other)
    expect(r.body.error.message).toBe(
      `Access denied: User ${other.name} not authorized to update user ${u.id}`,
    )
    r = await t.call('user_generate_apikey', { id: u.id })
    expect(r.body.error.message).toBe(
      'Access denied: Action user_generate_apikey requires an authenticated user',
    )
    r = await t.call('user_generate_apikey', { id: 'ghost' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: User was not found.')
    expect((await userRow(u.id)).apikey).toBe(u.apikey)
  })
})

describe('get_site_user', () => {
  it('returns the site user, created once, as a working sysadmin', async () => {
    const a = await t.ok('get_site_user', {}, admin)
    expect(a).toEqual({ name: 'test.ckan.net', apikey: expect.stringMatching(UUID) })
    const b = (await t.get('/api/3/action/get_site_user', admin)).body.result
    expect(b).toEqual(a)
    expect(
      (await t.call('user_list', { email: 'x@example.com' }, { apikey: a.apikey })).status,
    ).toBe(200)
  })

  it('refuses everyone but sysadmins', async () => {
    const u = await newUser()
    for (const as of [u, null]) {
      const r = await t.call('get_site_user', {}, as)
      expect(r.status).toBe(403)
      expect(r.body.error.message).toBe(
        'Access denied: Only internal services allowed to use this action',
      )
    }
  })
})
