// send_email_notifications: e-mail each opted-in user a digest of their new dashboard activities.
import { addMs } from '../../lib/time'
import { z } from 'zod'
import { defineAction } from '../action'
import { sql } from 'drizzle-orm'
import { ValidationError } from '../../errors'
import { dashboardActivitiesSince } from '../../model/dashboard'
import type { ActivityDict } from '../../model/activity'
import type { ActionContext } from '../../context'
import { mailUser, MailerNotConfigured } from '../../notify/mailer'
import { notificationEmail, parseDuration, type NotifiedActivity } from '../../notify/notifications'

interface Recipient {
  id: string
  name: string
  fullname: string | null
  email: string
  sysadmin: boolean
  created: string
  email_last_sent: string | null
}

const OPTED_IN = `SELECT u.id, u.name, u.fullname, u.email, u.sysadmin, u.created, d.email_last_sent
  FROM user u LEFT JOIN dashboard d ON d.user_id = u.id
  WHERE u.state = 'active' AND u.activity_streams_email_notifications = 1
    AND u.email IS NOT NULL AND u.email != ''
  ORDER BY u.name`

/** The activities as the digest lists them: actor display names and links looked up in one query. */
async function describe(ctx: ActionContext, list: ActivityDict[]): Promise<NotifiedActivity[]> {
  const ids = [...new Set(list.map((a) => a.user_id).filter((id): id is string => !!id))]
  const names = new Map<string, string>()
  if (ids.length) {
    const rows = await ctx.read(
      `SELECT id, name, fullname FROM user WHERE id IN (${ids.map(() => '?').join(',')})`,
      ids,
    )
    for (const r of rows) names.set(String(r.id), String(r.fullname || r.name))
  }
  const site = ctx.config.str('service.site_url').replace(/\/+$/, '')
  return list.map((a) => {
    const data = a.data as Record<string, { title?: unknown } | undefined>
    const sub = data.package ?? data.group
    const kind = a.activity_type.split(' ').pop()
    const path = { package: 'dataset', group: 'group', organization: 'organization', user: 'user' }[
      kind ?? ''
    ]
    return {
      timestamp: a.timestamp,
      activity_type: a.activity_type,
      actor: (a.user_id && names.get(a.user_id)) || '',
      objectTitle: typeof sub?.title === 'string' ? sub.title : '',
      ...(path && a.object_id ? { link: `${site}/${path}/${a.object_id}` } : {}),
    }
  })
}

/** Moves the user's email_last_sent to `at` unless another run moved it since OPTED_IN read it. */
async function claim(ctx: ActionContext, user: Recipient, at: string): Promise<boolean> {
  const r = await ctx.db.run(sql`INSERT INTO dashboard (user_id, activity_stream_last_viewed, email_last_sent)
    VALUES (${user.id}, ${user.created}, ${at})
    ON CONFLICT (user_id) DO UPDATE SET email_last_sent = excluded.email_last_sent
    WHERE dashboard.email_last_sent IS ${user.email_last_sent}`)
  return r.rowsAffected > 0
}

export const sendEmailNotifications = defineAction({
  name: 'send_email_notifications',
  readOnly: false,
  help: `Send any pending activity stream notification e-mails to users.

Each active user who turned on activity_streams_email_notifications and has an
e-mail address gets one e-mail listing the activities on their dashboard (their own
left out) since the last e-mail they were sent, looking back at most
service.email_notifications_since (default "2 days"). A user whose e-mail could
not be sent is listed under "failed" and is tried again on the next call.

Requires service.activity_streams_email_notifications and a sysadmin.

:returns: {"sent": [{"user": name, "activities": n}], "failed": [{"user": name, "error": text}]}
:rtype: dictionary`,
  auth: 'sysadmin',
  params: z.looseObject({}),
  async run(ctx) {
    if (!ctx.config.bool('service.activity_streams_email_notifications'))
      throw ValidationError.message(
        'service.activity_streams_email_notifications is not enabled in config',
      )
    const sinceText = ctx.config.str('service.email_notifications_since')
    const window = parseDuration(sinceText)
    if (window === null) throw ValidationError.message(`Not a valid time: ${sinceText}`)
    const limit = ctx.config.int('service.activity_list_limit_max')
    const siteTitle = ctx.config.str('service.site_title')
    const siteUrl = ctx.config.str('service.site_url')

    const sent: { user: string; activities: number }[] = []
    const failed: { user: string; error: string }[] = []
    const recipients = (await ctx.read(OPTED_IN)) as unknown as Recipient[]
    for (const user of recipients) {
      // Taken before reading, so an activity that lands while this runs goes in the next e-mail.
      const startedAt = ctx.now()
      const floor = addMs(startedAt, -window)
      // ckan: the dashboard (and its email_last_sent) starts with the user
      const last = String(user.email_last_sent ?? user.created)
      const since = last > floor ? last : floor
      const found = await dashboardActivitiesSince(
        ctx,
        { id: user.id, sysadmin: !!user.sysadmin },
        since,
        limit,
      )
      // The user is claimed first (the time of the last e-mail moved on, as ckan moves it even when
      // there is nothing to send), only if no other run moved it since we read it: two runs at
      // once never mail the same activities twice.
      if (!(await claim(ctx, user, startedAt))) continue
      if (!found.length) continue
      const mail = notificationEmail({ siteTitle, siteUrl, activities: await describe(ctx, found) })
      try {
        await mailUser(ctx.mailer, user, { subject: mail.subject, body: mail.body })
      } catch (e) {
        // not sent: the claim is undone (the row it made goes, unless something else wrote to it
        // since: then its email_last_sent goes back to where the look-back starts without a row),
        // so the next call tries these activities again
        if (user.email_last_sent === null)
          await ctx.db.run(
            sql`DELETE FROM dashboard WHERE user_id = ${user.id} AND email_last_sent = ${startedAt} AND activity_stream_last_viewed = ${user.created}`,
          )
        await ctx.db.run(
          sql`UPDATE dashboard SET email_last_sent = ${last} WHERE user_id = ${user.id} AND email_last_sent = ${startedAt}`,
        )
        // Nothing can be sent to anybody: say so once rather than per user.
        if (e instanceof MailerNotConfigured) throw ValidationError.message(e.message)
        failed.push({ user: user.name, error: e instanceof Error ? e.message : String(e) })
        continue
      }
      sent.push({ user: user.name, activities: found.length })
    }
    return { sent, failed }
  },
})
