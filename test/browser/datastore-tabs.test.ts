// Issue 34 item 3 in a real Chromium (Debian's `chromium`, playwright-core): the Profile and Chart
// tabs of a DataStore table, and a saved chart_view, pass axe-core (no serious or critical
// violation) at 390 and 1280 px without horizontal overflow; without JavaScript a visitor opens
// the tabs by their links, draws a chart with the form, and an editor saves it as a view.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { jobKinds } from '../../src/jobs/kinds'
import { drain } from '../../src/jobs/runner'
import { setup, type TestEnv } from '../helpers/setup'
import { clean, executablePath, runWithChromium } from '../helpers/chromium'
import { listen } from '../helpers/server'

const PLUGINS = 'image_view webpage_view text_view recline_view recline_grid_view datatables_view chart_view'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let browser: Browser
let base = ''

/** A context with JavaScript on or off. */
async function open(script: 'on' | 'off'): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ javaScriptEnabled: script === 'on' })
  return { ctx, page: await ctx.newPage() }
}

runWithChromium('DataStore tabs in Chromium', () => {
  beforeAll(async () => {
    if (!executablePath) throw new Error("no Chromium: install Debian's `chromium` (CI does) or set CHROMIUM_PATH")
    t = await setup({ 'service.views.plugins': PLUGINS })
    server = await listen(t.app)
    const sys = await t.make.sysadmin()
    const org = await t.make.organization(sys, { name: 'transit-office', title: 'Transit Office' })
    const editor = await t.make.user({ name: 'tab-editor', password: 'tab editor password' })
    await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
    const ds = await t.make.dataset(sys, { name: 'ridership', title: 'Ridership', owner_org: org.id })
    const regions = ['north', 'south', 'west', 'east']
    const table = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id, name: 'Daily riders' },
        fields: [
          { id: 'stop', type: 'text', info: { label: 'Stop name' } },
          { id: 'riders', type: 'int' },
          { id: 'region', type: 'text' },
          { id: 'day', type: 'date' },
          { id: 'fare', type: 'numeric' },
          { id: 'notes', type: 'text' },
          { id: 'tags', type: '_text' },
        ],
        records: Array.from({ length: 120 }, (_, i) => ({
          stop: `Market Street and a rather long cross street name ${i % 40}`,
          riders: (i * 37) % 500,
          region: regions[i % 4],
          day: `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
          fare: i % 9 === 0 ? null : ((i * 13) % 40) / 4,
          notes: `note-${i}`,
          tags: ['bus', `line-${i % 3}`],
        })),
      },
      sys,
    )
    base = `/dataset/ridership/resource/${table.resource_id}`
    await drain(t.deps.jobs, jobKinds, t.deps)
    await t.ok('resource_view_create', { resource_id: table.resource_id, view_type: 'chart_view', title: 'Riders by region', chart_type: 'bar', x: 'region', y: 'riders', aggregate: 'sum' }, sys)
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('the Profile and Chart tabs and a chart view pass axe and fit 390 and 1280 px', async () => {
    const { ctx, page } = await open('on')
    const paths: [string, string][] = [
      [`${base}?tab=profile`, 'profile'],
      [`${base}?tab=chart`, 'chart (first chart)'],
      [`${base}?tab=chart&chart_type=line&x=day&y=riders&aggregate=sum&group_by=region`, 'chart (lines)'],
      [`${base}?tab=chart&chart_type=scatter&x=riders&y=fare&group_by=region`, 'chart (points)'],
      [`${base}?tab=chart&chart_type=bar&x=nope&y=riders`, 'chart (bad column)'],
      [base, 'resource page with a chart view'],
    ]
    for (const [path, what] of paths) {
      const res = await page.goto(server.url + path)
      expect([what, res?.status()]).toEqual([what, 200])
      await clean(page, what)
    }
    await ctx.close()
  }, 120_000)

  it('without JavaScript: the tabs are links, the chart form draws, and an editor saves the chart as a view', async () => {
    const { ctx, page } = await open('off')
    await page.goto(server.url + base)
    expect(await page.getAttribute('nav[aria-label="Ways to see the data"] a[aria-current="page"]', 'href')).toBe(base)
    await Promise.all([page.waitForURL(/tab=profile/), page.click('nav[aria-label="Ways to see the data"] a:has-text("Profile")')])
    expect(await page.isVisible('ul.cards.profile h4:has-text("riders")')).toBe(true)
    expect(await page.locator('ul.cards.profile > li').count()).toBe(7)
    expect(await page.locator('svg[role=img] rect.bin').count()).toBeGreaterThan(0)

    await Promise.all([page.waitForURL(/tab=chart/), page.click('nav[aria-label="Ways to see the data"] a:has-text("Chart")')])
    await page.selectOption('#chart-chart_type', 'bar')
    await page.selectOption('#chart-x', 'region')
    await page.selectOption('#chart-y', 'riders')
    await page.selectOption('#chart-aggregate', 'avg')
    await Promise.all([page.waitForURL(/aggregate=avg/), page.click('form.chart-form button[type=submit]')])
    expect(await page.locator('#ds-chart svg rect.bar').count()).toBe(4)
    expect(await page.locator('#ds-chart table.chart-data tbody tr').count()).toBe(4)
    expect(await page.textContent('#ds-chart-title')).toBe('Average of riders by region')
    expect(await page.locator('button:has-text("Save as view")').count()).toBe(0)

    await page.goto(server.url + '/user/login')
    await page.fill('#login', 'tab-editor')
    await page.fill('#password', 'tab editor password')
    await Promise.all([page.waitForURL(/\/dashboard$/), page.click('main button:has-text("Sign in")')])
    await page.goto(server.url + `${base}?tab=chart&chart_type=line&x=day&y=riders&aggregate=max`)
    await page.fill('#chart-view-title', 'Most riders a day')
    await Promise.all([page.waitForURL(/#view-/), page.click('button:has-text("Save as view")')])
    const id = new URL(page.url()).hash.slice(1)
    expect(await page.textContent(`#${id}-title`)).toBe('Most riders a day')
    expect(await page.isVisible(`#${id} svg path.line`)).toBe(true)
    await ctx.close()
  }, 60_000)
})
