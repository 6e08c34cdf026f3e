// Issue 28 item 5 in a real Chromium (Debian's `chromium`, playwright-core): an editor creates a
// river-photos dataset (a choice, checkboxes, a date) and a monitoring-stations dataset with two
// repeating station blocks, added with the form's own "Add another" button (no JavaScript on the
// page); an error shows by its field; every form and page passes axe-core (no serious or critical
// violation) at 390 and 1280 px without horizontal overflow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { setup, type TestEnv } from '../helpers/setup'
import { clean, executablePath, runWithChromium } from '../helpers/chromium'
import { listen } from '../helpers/server'

const F = 'test/fixtures/scheming/'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let browser: Browser


runWithChromium('schema-driven pages in Chromium', () => {
  beforeAll(async () => {
    if (!executablePath) throw new Error("no Chromium: install Debian's `chromium` (CI does) or set CHROMIUM_PATH")
    t = await setup({
      'scheming.dataset_schemas': `${F}river-photos.yaml ${F}monitoring-stations.yaml`,
      'scheming.presets': `ckanext.scheming:presets.json ${F}presets-extra.json`,
      'scheming.choices_helpers': `${F}choices-helpers.yaml`,
    })
    server = await listen(t.app)
    const sys = await t.make.sysadmin()
    const org = await t.make.organization(sys, { name: 'river-trust', title: 'River Trust' })
    const editor = await t.make.user({ name: 'rita-editor', password: 'rita password' })
    await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  async function signedIn() {
    const ctx = await browser.newContext()
    const page = await ctx.newPage()
    await page.goto(server.url + '/user/login')
    await page.fill('#login', 'rita-editor')
    await page.fill('#password', 'rita password')
    await Promise.all([page.waitForURL(/\/dashboard$/), page.click('main button:has-text("Sign in")')])
    return { ctx, page }
  }

  it('creates a river-photos dataset (a choice, checkboxes, a date), after an error shown by its field', async () => {
    const { ctx, page } = await signedIn()
    await page.goto(server.url + '/river-photos/new')
    await clean(page, 'river-photos form')
    await page.fill('#title', 'Weir at Millbrook')
    await page.selectOption('#field-river_section', 'lower')
    await page.check('#field-water_clarity-1')
    await page.check('#field-conditions-0')
    await page.selectOption('#field-is_public_domain', 'true')
    await page.selectOption('#private', 'False')
    // no date: the server's message sits by the date input
    await page.click('main form button:has-text("Next: add data") >> nth=-1')
    await page.waitForSelector('#observed_on-error')
    expect(await page.textContent('#observed_on-error')).toBe('Missing value')
    expect(await page.getAttribute('#field-observed_on', 'aria-describedby')).toContain('observed_on-error')
    expect(await page.isChecked('#field-conditions-0')).toBe(true)
    await clean(page, 'river-photos form with an error')
    await page.fill('#field-observed_on', '2024-04-02')
    await Promise.all([page.waitForURL(/\/dataset\/weir-at-millbrook\/resource\/new$/), page.click('main form button:has-text("Next: add data") >> nth=-1')])
    await page.goto(server.url + '/river-photos/weir-at-millbrook')
    expect(await page.textContent('dl.meta')).toContain('Lower course')
    expect(await page.textContent('dl.meta')).toContain('In flood')
    expect(await page.textContent('dl.meta')).toContain('2024')
    await clean(page, 'river-photos dataset page')
    await page.goto(server.url + '/river-photos/')
    expect(await page.textContent('ul.items')).toContain('Weir at Millbrook')
    await clean(page, 'river-photos list')
    await ctx.close()
  }, 90_000)

  it('creates a monitoring-stations dataset with two station blocks, the second added by "Add another"', async () => {
    const { ctx, page } = await signedIn()
    await page.goto(server.url + '/monitoring-stations/new')
    await page.fill('#title', 'Upper Avon gauges')
    await page.fill('#notes', 'Gauging stations on the *upper* Avon.')
    await page.fill('#field-stations-0-station_id', 'UA-1')
    await page.selectOption('#field-stations-0-status', 'active')
    await page.fill('#field-stations-0-installed_on', '2020-05-01')
    await page.fill('#field-stations-0-sensors-0', 'level')
    await page.fill('#field-contacts-0-email', 'desk@example.org')
    await page.click('button:has-text("Add another Station")')
    await page.waitForSelector('#field-stations-1-station_id')
    expect(await page.inputValue('#field-stations-0-station_id')).toBe('UA-1')
    await clean(page, 'monitoring-stations form with two blocks')
    await page.fill('#field-stations-1-station_id', 'UA-2')
    await page.selectOption('#field-stations-1-status', 'closed')
    await page.fill('#field-stations-1-sensors-0', 'flow')
    await page.selectOption('#private', 'False')
    // Enter in a text input saves (the form's hidden first button), it does not add a block
    await Promise.all([page.waitForURL(/\/dataset\/upper-avon-gauges\/resource\/new$/), page.press('#field-stations-1-station_id', 'Enter')])
    const d = await t.ok('package_show', { id: 'upper-avon-gauges' })
    expect(d.stations.map((s: { station_id: string; status: string }) => [s.station_id, s.status])).toEqual([
      ['UA-1', 'active'],
      ['UA-2', 'closed'],
    ])
    await page.goto(server.url + '/dataset/upper-avon-gauges')
    expect(await page.textContent('ol.blocks')).toContain('UA-2')
    await clean(page, 'monitoring-stations dataset page')
    await ctx.close()
  }, 90_000)
})
