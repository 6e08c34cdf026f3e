// The harvest pages in a real Chromium (as test/browser/web.test.ts does): the list, the source form
// (also with its errors), a source after a run with an errored record, its jobs, the job's report,
// the Clear confirmation, the edit form and a harvested dataset pass axe-core (no serious or
// critical violation) at 390 and 1280 px without horizontal overflow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { chromium, type Browser, type Page } from 'playwright-core'
import { setup, type TestEnv } from '../helpers/setup'
import { clean, executablePath, runWithChromium } from '../helpers/chromium'
import { listen } from '../helpers/server'
import { runHarvest, useListHarvester } from '../helpers/harvest'


useListHarvester()

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let remote: { url: string; close: () => Promise<void> }
let browser: Browser
let jobId = ''
let sysName = ''


runWithChromium('the harvest pages in Chromium', () => {
  beforeAll(async () => {
    if (!executablePath) throw new Error("no Chromium: install Debian's `chromium` (CI does) or set CHROMIUM_PATH")
    const feed = {
      datasets: [
        { guid: 'b-1', dataset: { name: 'browser-harvested', title: 'A harvested dataset' } },
        { guid: 'https://remote.example/records/a-rather-long-remote-identifier-that-must-wrap', dataset: { name: 'b-bad', fail: 'The remote record could not be read: an unexpected token somewhere in its body' } },
      ],
    }
    remote = await listen(new Hono().get('/list.json', (c) => c.json(feed)) as never)
    t = await setup({ 'service.loader.allow_private_urls': 'true' })
    server = await listen(t.app)
    const sys = await t.make.sysadmin()
    sysName = sys.name
    const org = await t.make.organization(sys, { name: 'harvest-browser-org', title: 'Harvest Browser Org' })
    await t.ok('harvest_source_create', { name: 'browser-feed', title: 'Browser Feed', notes: 'Datasets of a *remote* catalogue.', url: `${remote.url}/list.json`, source_type: 'test_list', owner_org: org.id }, sys)
    jobId = (await runHarvest(t, 'browser-feed', sys)).id
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await remote?.close()
  })

  it('every harvest page passes axe and fits 390 and 1280 px', async () => {
    const ctx = await browser.newContext()
    const page = await ctx.newPage()
    await page.goto(server.url + '/user/login')
    await page.fill('#login', sysName)
    await page.fill('#password', 'password123')
    await Promise.all([page.waitForURL(/\/dashboard$/), page.click('main button:has-text("Sign in")')])
    for (const path of ['/harvest', '/harvest/new', '/harvest/browser-feed', '/harvest/browser-feed/job', `/harvest/browser-feed/job/${jobId}`, '/harvest/clear/browser-feed', '/harvest/edit/browser-feed', '/dataset/browser-harvested']) {
      const res = await page.goto(server.url + path)
      expect([path, res?.status()]).toEqual([path, 200])
      await clean(page, path)
    }
    // the form with its errors
    await page.goto(server.url + '/harvest/new')
    await page.fill('#url', 'http://127.0.0.1:1/x')
    await page.fill('#title', 'Broken')
    await page.check('input[name=source_type]')
    await page.fill('#config', '{not json')
    const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('main button:has-text("Save source")')])
    expect(res.status()).toBe(409)
    await page.waitForLoadState()
    expect(await page.isVisible('#config-error')).toBe(true)
    await clean(page, '/harvest/new (errors)')
    await ctx.close()
  }, 120_000)
})
