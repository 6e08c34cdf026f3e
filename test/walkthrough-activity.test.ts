// A follower's walk-through over real HTTP: tokens, following, the dashboard, a diff, the e-mail digest, revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from './helpers/setup'
import { listen } from './helpers/server'
import { parseMail, startSmtp } from './helpers/smtp'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let smtp: Awaited<ReturnType<typeof startSmtp>>

beforeAll(async () => {
  smtp = await startSmtp()
  t = await setup({
    // CKAN 2.9's default: a new user has no API key, only the tokens made for them
    'service.auth.create_default_api_keys': 'false',
    'service.activity_streams_email_notifications': 'true',
    // as CKAN's default deployment ini: readers may see what changed (activity_diff)
    'service.auth.public_activity_stream_detail': 'true',
    'service.site_title': 'Walk Data',
    'smtp.server': smtp.address,
    'smtp.mail_from': 'portal@example.org',
  })
  server = await listen(t.app)
})
afterAll(async () => {
  await server?.close()
  await new Promise<void>((r) => smtp?.server.close(() => r()))
})

/** An action over HTTP; `key` goes in the header CKAN 2.9 clients use for tokens. */
async function api(action: string, body: object, key?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (key) headers.authorization = `Bearer ${key}`
  const res = await fetch(`${server.url}/api/3/action/${action}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  })
  return { status: res.status, ...((await res.json()) as { success: boolean; result?: any; error?: any }) }
}

async function ok(action: string, body: object, key?: string) {
  const r = await api(action, body, key)
  expect(r, `${action} ${JSON.stringify(r.error)}`).toMatchObject({ success: true })
  return r.result
}

describe('follower walk-through over HTTP', () => {
  it('goes from a token to a dashboard, a diff, an e-mail digest and a revoked token', async () => {
    const sys = (await t.make.sysadmin()).apikey
    // an organization with an editor, and a public dataset made before the follower exists
    await ok('organization_create', { name: 'walk-river-org', title: 'Rivers Org' }, sys)
    const editor = await ok(
      'user_create',
      { name: 'walk-editor', email: 'editor@example.org', password: 'editor-password' },
      sys,
    )
    await ok('organization_member_create', { id: 'walk-river-org', username: 'walk-editor', role: 'editor' }, sys)
    const editorToken = (await ok('api_token_create', { user: editor.id, name: 'ci' }, sys)).token
    const ds = await ok(
      'package_create',
      { name: 'walk-rivers', title: 'Rivers', notes: 'Flow gauges.', owner_org: 'walk-river-org' },
      editorToken,
    )

    // a sysadmin creates the follower and their first token
    const follower = await ok(
      'user_create',
      {
        name: 'walk-follower',
        email: 'follower@example.org',
        password: 'follower-password',
        fullname: 'Fay Follower',
        activity_streams_email_notifications: true,
      },
      sys,
    )
    expect(follower.apikey).toBeNull()
    const first = (await ok('api_token_create', { user: 'walk-follower', name: 'given' }, sys)).token
    expect(first.split('.')).toHaveLength(3)

    // the follower follows the dataset and makes a second token of their own
    await ok('follow_dataset', { id: 'walk-rivers' }, first)
    const second = (await ok('api_token_create', { user: 'walk-follower', name: 'mine' }, first)).token
    const tokens = await ok('api_token_list', { user: 'walk-follower' }, second)
    expect(tokens.map((x: { name: string }) => x.name).sort()).toEqual(['given', 'mine'])

    // the editor changes the dataset twice
    await ok('package_patch', { id: ds.id, notes: 'Flow gauges, hourly.' }, editorToken)
    await ok('package_patch', { id: ds.id, title: 'Rivers and Streams' }, editorToken)

    const dash = await ok('dashboard_activity_list', {}, second)
    const fresh = dash.filter((a: { is_new: boolean }) => a.is_new)
    expect(fresh).toHaveLength(2)
    expect(fresh.map((a: { activity_type: string }) => a.activity_type)).toEqual([
      'changed package',
      'changed package',
    ])
    expect(fresh.every((a: { object_id: string; user_id: string }) => a.object_id === ds.id && a.user_id === editor.id)).toBe(true)
    expect(await ok('dashboard_new_activities_count', {}, second)).toBe(2)

    // the diff between the two changes shows the new title
    const diff = await ok('activity_diff', { id: fresh[0].id, object_type: 'package' }, second)
    expect(diff.activities.map((a: { id: string }) => a.id)).toEqual([fresh[1].id, fresh[0].id])
    expect(diff.diff).toMatch(/^-.*"title": "Rivers",?$/m)
    expect(diff.diff).toMatch(/^\+.*"title": "Rivers and Streams",?$/m)

    expect(await ok('dashboard_mark_activities_old', {}, second)).toBeNull()
    expect(await ok('dashboard_new_activities_count', {}, second)).toBe(0)

    // one e-mail with both changes in it, then nothing more to send
    const report = await ok('send_email_notifications', {}, sys)
    expect(report).toEqual({ sent: [{ user: 'walk-follower', activities: 2 }], failed: [] })
    const mine = smtp.received.filter((m) => m.to.includes('follower@example.org'))
    expect(mine).toHaveLength(1)
    const mail = parseMail(mine[0]!.raw)
    expect(mail.subject).toBe('2 new activities from Walk Data')
    const lines = mail.body.split('\n').filter((l) => l.includes('updated the dataset'))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('"Rivers and Streams"')
    expect(lines[1]).toContain('"Rivers"')
    expect(await ok('send_email_notifications', {}, sys)).toEqual({ sent: [], failed: [] })

    // revoking the tokens locks the follower out
    await ok('api_token_revoke', { token: first }, sys)
    const locked = await api('dashboard_activity_list', {}, first)
    expect(locked.status).toBe(403)
    expect(locked.success).toBe(false)
    await ok('dashboard_new_activities_count', {}, second)
    await ok('api_token_revoke', { token: second }, second)
    for (const key of [first, second]) {
      const r = await api('dashboard_new_activities_count', {}, key)
      expect([r.status, r.success]).toEqual([403, false])
    }
  })
})
