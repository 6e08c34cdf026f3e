// send_email_notifications against a real SMTP server: who gets a digest, of what, and what happens when mail fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { parseMail, startSmtp } from '../helpers/smtp'
import { uniq } from '../helpers/make'

let smtp: Awaited<ReturnType<typeof startSmtp>>
let t: TestEnv
let sys: Caller & { id: string }

const MAIL = {
  'service.activity_streams_email_notifications': 'true',
  'service.site_title': 'Digest Portal',
  'smtp.mail_from': 'portal@example.org',
}

beforeAll(async () => {
  smtp = await startSmtp()
  t = await setup({ ...MAIL, 'smtp.server': smtp.address })
  sys = await t.make.sysadmin()
})
afterAll(async () => {
  await new Promise<void>((r) => smtp.server.close(() => r()))
})

/** A user who wants digests (or not), with an address of their own. */
async function subscriber(optIn = true, domain = 'example.org') {
  const name = uniq('sub')
  const u = await t.make.user({ name, email: `${name}@${domain}` })
  if (optIn) await t.ok('user_patch', { id: u.id, activity_streams_email_notifications: true }, u)
  return { ...u, email: `${name}@${domain}` }
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email))
const sendAll = () => t.ok('send_email_notifications', {}, sys)

/** An editor's organization with a public dataset in it. */
async function publisher() {
  const editor = await t.make.user()
  const org = await t.make.organization(editor)
  const ds = await t.make.dataset(editor, { owner_org: org.id, title: 'Tide Tables' })
  return { editor, org, ds }
}

describe('send_email_notifications', () => {
  it('mails each subscriber one digest of what changed on their dashboard, once', async () => {
    const { editor, ds } = await publisher()
    const a = await subscriber()
    const quiet = await subscriber(false)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_dataset', { id: ds.id }, quiet)
    await t.ok('package_patch', { id: ds.id, notes: 'Now with tides.' }, editor)
    // the subscriber's own doings are not news to them
    await t.ok('user_patch', { id: a.id, fullname: 'Ada Sub' }, a)

    const report = await sendAll()
    expect(report.failed).toEqual([])
    expect(report.sent).toContainEqual({ user: a.name, activities: 1 })
    expect(report.sent.map((s: { user: string }) => s.user)).not.toContain(quiet.name)
    expect(mailsTo(quiet.email)).toHaveLength(0)
    const [mail] = mailsTo(a.email)
    const { subject, body } = parseMail(mail!.raw)
    expect(subject).toBe('1 new activity from Digest Portal')
    expect(body).toContain(`updated the dataset "Tide Tables"\n  http://test.ckan.net/dataset/${ds.id}`)
    expect(body).not.toContain('Ada Sub')
    expect(body).toContain('http://test.ckan.net/dashboard/')

    // nothing new: no second e-mail
    const again = await sendAll()
    expect(again.sent.map((s: { user: string }) => s.user)).not.toContain(a.name)
    expect(mailsTo(a.email)).toHaveLength(1)
  })

  it('looks back no further than email_notifications_since, nor before the last e-mail', async () => {
    const { ds } = await publisher()
    const a = await subscriber()
    await t.ok('follow_dataset', { id: ds.id }, a)
    const at = (days: number) => `strftime('%Y-%m-%dT%H:%M:%f000', 'now', '-${days} days')`
    // last mailed five days ago; then activities of three days and one day ago
    await t.client.execute({
      sql: `INSERT INTO dashboard (user_id, activity_stream_last_viewed, email_last_sent)
            VALUES (?, ${at(5)}, ${at(5)})`,
      args: [a.id],
    })
    for (const [days, title] of [[3, 'Too old'], [1, 'Recent enough']] as const)
      await t.client.execute({
        sql: `INSERT INTO activity (id, timestamp, user_id, object_id, activity_type, data)
              VALUES (?, ${at(days)}, ?, ?, 'changed package', ?)`,
        args: [crypto.randomUUID(), sys.id, ds.id, JSON.stringify({ package: { title } })],
      })
    const report = await sendAll()
    // the recent one, and the dataset's creation a moment ago
    expect(report.sent).toContainEqual({ user: a.name, activities: 2 })
    const { body } = parseMail(mailsTo(a.email)[0]!.raw)
    expect(body).toContain('"Recent enough"')
    expect(body).toContain('created the dataset "Tide Tables"')
    expect(body).not.toContain('"Too old"')
  })

  it('never mails an activity of a dataset the subscriber can no longer read', async () => {
    const { editor, ds } = await publisher()
    const a = await subscriber()
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('package_patch', { id: ds.id, notes: 'Before it went private.' }, editor)
    await t.ok('package_patch', { id: ds.id, private: true }, editor)
    const report = await sendAll()
    expect(report.sent.map((s: { user: string }) => s.user)).not.toContain(a.name)
    expect(mailsTo(a.email)).toHaveLength(0)
  })

  it('reports a failed send and tries it again on the next call', async () => {
    const { editor, ds } = await publisher()
    const a = await subscriber(true, 'refused.example')
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('package_patch', { id: ds.id, notes: 'Mail me.' }, editor)
    const first = await sendAll()
    expect(first.failed).toHaveLength(1)
    expect(first.failed[0]).toMatchObject({ user: a.name })
    expect(first.failed[0].error).toMatch(/550|mailbox unavailable/)

    const good = `${a.name}@example.org`
    await t.ok('user_patch', { id: a.id, email: good }, a)
    const second = await sendAll()
    expect(second.sent).toContainEqual({ user: a.name, activities: 1 })
    expect(parseMail(mailsTo(good)[0]!.raw).body).toContain('updated the dataset "Tide Tables"')
  })

  it('mails each subscriber once when two runs go at the same time', async () => {
    const { editor, ds } = await publisher()
    const subs = [await subscriber(), await subscriber(), await subscriber()]
    for (const a of subs) await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('package_patch', { id: ds.id, notes: 'Both runs see this.' }, editor)
    const [one, two] = await Promise.all([sendAll(), sendAll()])
    for (const a of subs) {
      expect(mailsTo(a.email)).toHaveLength(1)
      const senders = [one, two].filter((r) => r.sent.some((s: { user: string }) => s.user === a.name))
      expect(senders).toHaveLength(1)
    }
  })

  it('is for sysadmins only', async () => {
    const u = await t.make.user()
    for (const as of [null, u]) {
      const r = await t.call('send_email_notifications', {}, as)
      expect(r.status).toBe(403)
      expect(r.body.error.__type).toBe('Authorization Error')
    }
  })
})

describe('send_email_notifications, misconfigured', () => {
  it('refuses when notifications are off', async () => {
    const env = await setup({ 'smtp.server': smtp.address })
    const r = await env.call('send_email_notifications', {}, await env.make.sysadmin())
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: 'service.activity_streams_email_notifications is not enabled in config',
    })
  })

  it('names a bad email_notifications_since', async () => {
    const env = await setup({
      ...MAIL,
      'smtp.server': smtp.address,
      'service.email_notifications_since': 'a fortnight',
    })
    const r = await env.call('send_email_notifications', {}, await env.make.sysadmin())
    expect(r.status).toBe(409)
    expect(r.body.error.message).toBe('Not a valid time: a fortnight')
  })

  it('says once that no mail server is configured, and marks nobody as notified', async () => {
    const env = await setup(MAIL)
    const editor = await env.make.user()
    const ds = await env.make.dataset(editor)
    const name = uniq('sub')
    const a = await env.make.user({ name, email: `${name}@example.org` })
    await env.ok('user_patch', { id: a.id, activity_streams_email_notifications: true }, a)
    await env.ok('follow_dataset', { id: ds.id }, a)
    await env.ok('package_patch', { id: ds.id, notes: 'x' }, editor)
    const admin = await env.make.sysadmin()
    const r = await env.call('send_email_notifications', {}, admin)
    expect(r.status).toBe(409)
    expect(r.body.error.message).toMatch(/not configured \(smtp\.server\)/)
    const rows = await env.client.execute('SELECT email_last_sent FROM dashboard WHERE user_id = ?', [a.id])
    expect(rows.rows).toHaveLength(0)
  })
})
