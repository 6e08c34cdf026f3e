// The notification digest and CKAN's duration syntax for email_notifications_since.
import { describe, expect, it } from 'vitest'
import { describeActivity, notificationEmail, parseDuration } from '../../src/notify/notifications'

describe('parseDuration', () => {
  it('reads every form CKAN accepts', () => {
    expect(parseDuration('2 days')).toBe(2 * 86_400_000)
    expect(parseDuration('1 day')).toBe(86_400_000)
    expect(parseDuration('4:35:00')).toBe((4 * 3600 + 35 * 60) * 1000)
    expect(parseDuration('4:35:12.087465')).toBeCloseTo((4 * 3600 + 35 * 60 + 12) * 1000 + 87.465)
    expect(parseDuration('7 days, 3:23:34')).toBe(7 * 86_400_000 + (3 * 3600 + 23 * 60 + 34) * 1000)
    expect(parseDuration('7 days, 3:23:34.000001')).toBeCloseTo(7 * 86_400_000 + 12_214_000.001)
    expect(parseDuration('.087465')).toBeCloseTo(87.465)
  })
  it('refuses anything else', () => {
    for (const bad of ['', 'two days', '2', '2 weeks', '4:35', '-1 days', '1 days 3:00:00']) {
      expect(parseDuration(bad)).toBeNull()
    }
  })
})

describe('notificationEmail', () => {
  const a = (activity_type: string, objectTitle: string) => ({
    timestamp: '2026-11-24T10:05:06.123456',
    activity_type,
    actor: 'Editor Ed',
    objectTitle,
    link: 'http://cat.example/dataset/rivers',
  })
  it("has CKAN's subject and links, and a line per activity", () => {
    const mail = notificationEmail({
      siteTitle: 'Open Data',
      siteUrl: 'http://cat.example/',
      activities: [a('changed package', 'Rivers'), a('new package', 'Rivers')],
    })
    expect(mail.subject).toBe('2 new activities from Open Data')
    expect(mail.body).toContain('You have 2 new activities on your Open Data dashboard')
    expect(mail.body).toContain('- 2026-11-24 10:05 UTC: Editor Ed updated the dataset "Rivers"\n  http://cat.example/dataset/rivers')
    expect(mail.body).toContain('Editor Ed created the dataset "Rivers"')
    expect(mail.body).toContain('http://cat.example/dashboard/')
    expect(mail.body).toContain('http://cat.example/user/edit')
  })
  it('says "activity" for one', () => {
    const mail = notificationEmail({ siteTitle: 'S', siteUrl: 'http://s', activities: [a('new user', '')] })
    expect(mail.subject).toBe('1 new activity from S')
    expect(describeActivity({ ...a('new user', ''), actor: '' })).toBe('Someone signed up')
    expect(describeActivity(a('deleted organization', 'Org'))).toBe('Editor Ed deleted the organization "Org"')
  })
})
