// Activity notification e-mails: how far back they look, and the digest a user receives.

/**
 * ckan: string_to_timedelta, a duration in milliseconds from "2 days", "1 day", "4:35:00",
 * "4:35:12.087465", "7 days, 3:23:34", "7 days, 3:23:34.087465" or ".087465" (microseconds).
 * Returns null for anything else.
 */
export function parseDuration(text: string): number | null {
  const s = text.trim()
  const days = '(\\d+)\\s+days?'
  const hms = '(\\d?\\d):(\\d\\d):(\\d\\d)'
  const micro = '\\.(\\d{6})'
  const forms: [RegExp, (m: RegExpMatchArray) => number][] = [
    [new RegExp(`^${days}$`), (m) => dayMs(m[1])],
    [new RegExp(`^${hms}(?:${micro})?$`), (m) => hmsMs(m[1], m[2], m[3]) + microMs(m[4])],
    [new RegExp(`^${micro}$`), (m) => microMs(m[1])],
    [
      new RegExp(`^${days},\\s+${hms}(?:${micro})?$`),
      (m) => dayMs(m[1]) + hmsMs(m[2], m[3], m[4]) + microMs(m[5]),
    ],
  ]
  for (const [re, ms] of forms) {
    const m = s.match(re)
    if (m) return ms(m)
  }
  return null
}

const dayMs = (d?: string) => Number(d ?? 0) * 86_400_000
const hmsMs = (h?: string, m?: string, s?: string) =>
  ((Number(h ?? 0) * 60 + Number(m ?? 0)) * 60 + Number(s ?? 0)) * 1000
const microMs = (u?: string) => (u ? Number(u) / 1000 : 0)

/** One activity as the digest describes it. */
export interface NotifiedActivity {
  timestamp: string
  activity_type: string
  /** The actor's display name ('' when unknown). */
  actor: string
  /** The object's title or name, as recorded in the activity. */
  objectTitle: string
  /** A link to the object on the site, when there is one. */
  link?: string
}

export interface NotificationEmail {
  subject: string
  body: string
}

const VERBS: Record<string, string> = {
  'new package': 'created the dataset',
  'changed package': 'updated the dataset',
  'deleted package': 'deleted the dataset',
  'new group': 'created the group',
  'changed group': 'updated the group',
  'deleted group': 'deleted the group',
  'new organization': 'created the organization',
  'changed organization': 'updated the organization',
  'deleted organization': 'deleted the organization',
  'new user': 'signed up',
  'changed user': 'updated the profile of',
  'follow dataset': 'started following the dataset',
  'follow user': 'started following',
  'follow group': 'started following the group',
}

/** "joe updated the dataset "Rivers"", the line an activity gets in the digest. */
export function describeActivity(a: NotifiedActivity): string {
  const who = a.actor || 'Someone'
  if (a.activity_type === 'new user') return `${who} signed up`
  const verb = VERBS[a.activity_type] ?? a.activity_type
  return a.objectTitle ? `${who} ${verb} "${a.objectTitle}"` : `${who} ${verb}`
}

/**
 * The digest of a user's new dashboard activities, CKAN's subject ("{n} new activities from
 * {site_title}") and text (a link to the dashboard and to the preferences), plus one line per
 * activity, newest first (CKAN's body names none of them).
 */
export function notificationEmail(opts: {
  siteTitle: string
  siteUrl: string
  activities: NotifiedActivity[]
}): NotificationEmail {
  const n = opts.activities.length
  const site = opts.siteUrl.replace(/\/+$/, '')
  const noun = n === 1 ? 'activity' : 'activities'
  const lines = opts.activities.map((a) => {
    const when = `${a.timestamp.slice(0, 16).replace('T', ' ')} UTC`
    return `- ${when}: ${describeActivity(a)}${a.link ? `\n  ${a.link}` : ''}`
  })
  const body = [
    `You have ${n} new ${noun} on your ${opts.siteTitle} dashboard:`,
    '',
    ...lines,
    '',
    'To view your dashboard, click on this link:',
    '',
    `${site}/dashboard/`,
    '',
    `You can turn off these email notifications in your ${opts.siteTitle} preferences. ` +
      'To change your preferences, click on this link:',
    '',
    `${site}/user/edit`,
    '',
  ].join('\n')
  return { subject: `${n} new ${noun} from ${opts.siteTitle}`, body }
}
