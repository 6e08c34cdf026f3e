// user_invite against a real SMTP server: the pending user, membership and mail, validation, refusals, and nothing left when mail fails.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { changeLog, members, users } from '../../src/db/schema'
import { checkName, FieldFail } from '../../src/validation/fields'
import { uniq } from '../helpers/make'
import { setup, type TestEnv } from '../helpers/setup'
import { parseMail as parse, startSmtp } from '../helpers/smtp'

const MAIL_FAILED = `Error sending the invite email,${' '.repeat(17)}the user was not created: `

let smtp: Awaited<ReturnType<typeof startSmtp>>
let t: TestEnv
beforeAll(async () => {
  smtp = await startSmtp()
  t = await setup({
    'smtp.server': smtp.address,
    'smtp.mail_from': 'portal@example.org',
    'service.site_title': 'Open Data Portal',
  })
})
afterAll(async () => {
  await new Promise<void>((r) => smtp.server.close(() => r()))
})

const usersWithEmail = (email: string) => t.db.select().from(users).where(eq(users.email, email))
const membershipsOf = (userId: string) =>
  t.db.select().from(members).where(eq(members.table_id, userId))
const logSize = async () => (await t.db.select().from(changeLog)).length
const mailTo = (email: string) => smtp.received.filter((m) => m.to.includes(email))

describe('user_invite', () => {
  it('creates a pending member and mails them a link to set their password', async () => {
    const admin = await t.make.sysadmin()
    const org = await t.make.organization(admin, { title: 'Rivers Agency' })
    const email = `${uniq('joe')}@example.com`
    const res = await t.call('user_invite', { email, group_id: org.name, role: 'editor' }, admin)
    expect(res.status).toBe(200)
    const user = res.body.result
    expect(user).toMatchObject({ state: 'pending', email, sysadmin: false })
    expect(user.name).toMatch(/^joe-[a-z0-9]+-[a-z0-9]+-\d{1,4}$/)
    expect(user).not.toHaveProperty('reset_key')
    expect(user).not.toHaveProperty('password_hash')

    const [row] = await usersWithEmail(email)
    expect(row).toMatchObject({ id: user.id, state: 'pending' })
    expect(row!.reset_key).toMatch(/^[0-9a-f]{32}$/)
    expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$/)
    expect(await membershipsOf(user.id)).toEqual([
      expect.objectContaining({ group_id: org.id, capacity: 'editor', state: 'active' }),
    ])
    const listed = await t.ok('member_list', { id: org.id, object_type: 'user' }, admin)
    expect(listed).toContainEqual([user.id, 'user', 'Editor'])

    const [mail] = mailTo(email)
    expect(mail).toBeDefined()
    const { subject, body } = parse(mail!.raw)
    expect(subject).toBe('Invitation to Open Data Portal')
    expect(body).toContain(`http://test.ckan.net/user/reset/${user.id}?key=${row!.reset_key}`)
    expect(body).toContain('Open Data Portal')
    expect(body).toContain('organization "Rivers Agency"')
    expect(body).toContain(user.name)
    expect(body).toContain('Editor')
  })

  it('lets an organization admin invite, and shows them no e-mail address', async () => {
    const admin = await t.make.sysadmin()
    const boss = await t.make.user()
    const org = await t.make.organization(admin)
    const role = { id: org.id, username: boss.name, role: 'admin' }
    await t.ok('organization_member_create', role, admin)
    const email = `${uniq('ann')}@example.com`
    const user = await t.ok('user_invite', { email, group_id: org.id, role: 'member' }, boss)
    expect(user.state).toBe('pending')
    expect(user).not.toHaveProperty('email')
    expect(user).not.toHaveProperty('apikey')
    expect(await usersWithEmail(email)).toHaveLength(1)
  })

  it('invites into a group too, and says so', async () => {
    const admin = await t.make.sysadmin()
    const group = await t.make.group(admin, { title: 'Weather' })
    const email = `${uniq('gus')}@example.com`
    const user = await t.ok('user_invite', { email, group_id: group.name, role: 'admin' }, admin)
    expect(await membershipsOf(user.id)).toEqual([
      expect.objectContaining({ group_id: group.id, capacity: 'admin' }),
    ])
    expect(parse(mailTo(email)[0]!.raw).body).toContain('Admin of the group "Weather"')
  })

  it('makes valid, distinct user names from awkward local parts', async () => {
    const admin = await t.make.sysadmin()
    const org = await t.make.organization(admin)
    const names: string[] = []
    for (const local of ['Jo.Smith+news', 'Jo.Smith+news', 'x']) {
      const email = `${local}@${uniq('host')}.example`
      const user = await t.ok('user_invite', { email, group_id: org.id, role: 'member' }, admin)
      expect(checkName(user.name)).not.toBeInstanceOf(FieldFail)
      names.push(user.name)
    }
    expect(names[0]).toMatch(/^jo-smith-news-\d{1,4}$/)
    expect(names[2]).toMatch(/^x-\d{1,4}$/)
    expect(new Set(names).size).toBe(3)
  })

  it('reports every invalid field at once', async () => {
    const admin = await t.make.sysadmin()
    const r = await t.call('user_invite', {}, admin)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      email: ['Missing value'],
      group_id: ['Missing value'],
      role: ['Missing value'],
    })
    const org = await t.make.organization(admin)
    const bad = await t.call(
      'user_invite',
      { email: 'nope', group_id: org.id, role: 'owner' },
      admin,
    )
    expect(bad.body.error).toEqual({
      __type: 'Validation Error',
      email: ['Email nope is not a valid format'],
      role: ['role does not exist.'],
    })
  })

  it('refuses an address that belongs to a registered user', async () => {
    const admin = await t.make.sysadmin()
    const org = await t.make.organization(admin)
    const existing = await t.make.user()
    const r = await t.call(
      'user_invite',
      { email: existing.email, group_id: org.id, role: 'member' },
      admin,
    )
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      email: [`The email address '${existing.email}' belongs to a registered user.`],
    })
  })

  it('answers Not found for an unknown group', async () => {
    const admin = await t.make.sysadmin()
    const email = `${uniq('lost')}@example.com`
    const r = await t.call('user_invite', { email, group_id: 'no-such-org', role: 'member' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    expect(await usersWithEmail(email)).toEqual([])
  })

  it('refuses anonymous callers, non-admins and admins of other organizations', async () => {
    const admin = await t.make.sysadmin()
    const org = await t.make.organization(admin)
    const editor = await t.make.user()
    const role = { id: org.id, username: editor.name, role: 'editor' }
    await t.ok('organization_member_create', role, admin)
    const elsewhere = await t.make.user()
    await t.make.organization(elsewhere) // an admin, but of another organization
    const email = `${uniq('nobody')}@example.com`
    const params = { email, group_id: org.id, role: 'member' }
    const anon = await t.call('user_invite', params)
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      'Access denied: Action user_invite requires an authenticated user',
    )
    for (const caller of [editor, elsewhere, await t.make.user()]) {
      const r = await t.call('user_invite', params, caller)
      expect(r.status).toBe(403)
      expect(r.body.error.message).toBe(
        `Access denied: User ${caller.name} not authorized to add members`,
      )
    }
    const unknown = await t.call('user_invite', { ...params, group_id: 'no-such-org' }, elsewhere)
    expect(unknown.body.error.message).toBe(
      `Access denied: User ${elsewhere.name} not authorized to add members`,
    )
    const missing = await t.call('user_invite', { email, role: 'member' }, elsewhere)
    expect(missing.body.error).toEqual({ __type: 'Validation Error', group_id: ['Missing value'] })
    expect(await usersWithEmail(email)).toEqual([])
  })

  it('leaves nothing behind when the mail server refuses the message', async () => {
    const admin = await t.make.sysadmin()
    const org = await t.make.organization(admin)
    const email = `${uniq('bounce')}@refused.example`
    const before = await logSize()
    const r = await t.call('user_invite', { email, group_id: org.id, role: 'member' }, admin)
    expect(r.status).toBe(409)
    expect(r.body.error.__type).toBe('Validation Error')
    expect(Object.keys(r.body.error).sort()).toEqual(['__type', 'message'])
    expect(r.body.error.message.startsWith(MAIL_FAILED)).toBe(true)
    expect(r.body.error.message).toContain('mailbox unavailable')
    expect(await usersWithEmail(email)).toEqual([])
    expect(await logSize()).toBe(before)
    const listed = await t.ok('member_list', { id: org.id, object_type: 'user' }, admin)
    expect(listed).toHaveLength(1) // the creator
  })

  it('leaves nothing behind, with a clear message, when no mail server is configured', async () => {
    const e = await setup()
    const admin = await e.make.sysadmin()
    const org = await e.make.organization(admin)
    const email = 'nomail@example.com'
    const r = await e.call('user_invite', { email, group_id: org.id, role: 'member' }, admin)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: `${MAIL_FAILED}Mail server is not configured (smtp.server)`,
    })
    expect(await e.db.select().from(users).where(eq(users.email, email))).toEqual([])
  })
})
