// Issue 30 acceptance 3 in a real Chromium (Debian's `chromium`, playwright-core): the dataset
// page's extent map and the search page's filter by area pass axe-core (no serious or critical
// violation) at 390 and 1280 px without horizontal overflow, with JavaScript off (the server's
// SVG and the box form) and on (Leaflet); with JavaScript on and no tile URL set the page asks
// no tile server for anything, and with one set the tiles come from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { setup, type TestEnv } from '../helpers/setup'
import { clean, executablePath, runWithChromium } from '../helpers/chromium'
import { listen } from '../helpers/server'

const POLYGON = { type: 'Polygon', coordinates: [[[-3.5, 50.2], [1.8, 50.2], [1.8, 55.8], [-3.5, 55.8], [-3.5, 50.2]]] }
const TILES = 'https://tiles.example.test'

let t: TestEnv
let tiled: TestEnv
let server: { url: string; close: () => Promise<void> }
let tiledServer: { url: string; close: () => Promise<void> }
let browser: Browser


/**
 * A context whose every request is recorded (the URLs, in order). `script: 'off'` disables
 * JavaScript; `'blocked'` keeps it on for axe but never loads a script of the site, which is what
 * a visitor without JavaScript gets of the page.
 */
async function recorded(script: 'on' | 'off' | 'blocked'): Promise<{ ctx: BrowserContext; page: Page; urls: string[] }> {
  const ctx = await browser.newContext({ javaScriptEnabled: script !== 'off' })
  if (script === 'blocked') await ctx.route(/\.js(\?|$)/, (route) => route.abort())
  const urls: string[] = []
  ctx.on('request', (r) => urls.push(r.url()))
  return { ctx, page: await ctx.newPage(), urls }
}

runWithChromium('maps in Chromium', () => {
  beforeAll(async () => {
    if (!executablePath) throw new Error("no Chromium: install Debian's `chromium` (CI does) or set CHROMIUM_PATH")
    t = await setup()
    server = await listen(t.app)
    tiled = await setup({ 'ckanext.spatial.common_map.type': 'custom', 'ckanext.spatial.common_map.custom_url': `${TILES}/{z}/{x}/{y}.png`, 'ckanext.spatial.common_map.attribution': 'Test tiles' })
    tiledServer = await listen(tiled.app)
    for (const env of [t, tiled]) {
      const sys = await env.make.sysadmin()
      const org = await env.make.organization(sys, { name: 'coast-office', title: 'Coast Office' })
      await env.make.dataset(sys, { name: 'channel-survey', title: 'Channel survey', owner_org: org.id, extras: [{ key: 'spatial', value: JSON.stringify(POLYGON) }] })
      await env.make.dataset(sys, { name: 'reef-stations', title: 'Reef stations', owner_org: org.id, extras: [{ key: 'spatial', value: '{"type":"MultiPoint","coordinates":[[147.1,-18.6],[146.8,-19.2]]}' }] })
    }
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await tiledServer?.close()
  })

  it('without JavaScript: the dataset page shows its extent as an SVG and its box in words', async () => {
    const { ctx, page, urls } = await recorded('off')
    await page.goto(server.url + '/dataset/channel-survey')
    expect(await page.isVisible('figure.map svg')).toBe(true)
    expect(await page.textContent('figure.map figcaption')).toBe('Bounding box: west -3.5, south 50.2, east 1.8, north 55.8 (degrees)')
    expect(await page.$$('.leaflet-container')).toHaveLength(0)
    // the world's land, drawn by the server, loaded as an image
    expect(urls.some((u) => u.endsWith('/land-110m.svg'))).toBe(true)
    await ctx.close()
    const blocked = await recorded('blocked')
    await blocked.page.goto(server.url + '/dataset/channel-survey')
    expect(await blocked.page.isVisible('figure.map svg')).toBe(true)
    await clean(blocked.page, 'dataset map, no script')
    await blocked.ctx.close()
  }, 60_000)

  it('without JavaScript: the area form filters the search, shows its errors by their fields, and the filter can be removed', async () => {
    const { ctx, page } = await recorded('off')
    await page.goto(server.url + '/dataset?q=survey')
    await page.fill('#area-west', '-4')
    await page.fill('#area-south', '50')
    await page.fill('#area-east', '2')
    await page.fill('#area-north', '56')
    await Promise.all([page.waitForURL(/ext_bbox=/), page.click('#area-form button[type=submit]')])
    const url = new URL(page.url())
    expect(url.searchParams.get('ext_bbox')).toBe('-4,50,2,56')
    expect(url.searchParams.get('q')).toBe('survey')
    expect(await page.textContent('.area-active')).toContain('west -4, south 50, east 2, north 56')
    expect(await page.$$('figure.map rect.map-box')).toHaveLength(1)
    // the browser checks ranges itself; a typed address reaches the server's checks
    await page.goto(server.url + '/dataset?_west=-4&_south=56&_east=2&_north=50')
    expect(await page.textContent('#_south-error')).toBe('South must not be greater than north')
    expect(await page.getAttribute('#area-south', 'aria-describedby')).toBe('_south-error')
    const blocked = await recorded('blocked')
    for (const [path, what] of [['/dataset?q=survey', 'search page'], ['/dataset?q=survey&ext_bbox=-4,50,2,56', 'search page with an area'], ['/dataset?_west=-4&_south=56&_east=2&_north=50', 'area form with an error']]) {
      await blocked.page.goto(server.url + path)
      expect(await blocked.page.$$('.leaflet-container')).toHaveLength(0)
      await clean(blocked.page, `${what}, no script`)
    }
    await blocked.ctx.close()
    await page.goto(server.url + '/dataset?q=survey&ext_bbox=-4,50,2,56')
    await Promise.all([page.waitForURL((u) => !u.searchParams.has('ext_bbox')), page.click('.area-active a')])
    expect(new URL(page.url()).searchParams.get('q')).toBe('survey')
    await ctx.close()
  }, 60_000)

  it('with JavaScript and no tile URL: Leaflet maps of the land and the extent, and no tile is asked for', async () => {
    const { ctx, page, urls } = await recorded('on')
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    for (const path of ['/dataset/channel-survey', '/dataset/reef-stations']) {
      await page.goto(server.url + path)
      await page.waitForSelector('figure.map .leaflet-container')
      // the land layer (from this site) and the geometry are drawn as vectors
      await page.waitForFunction(() => document.querySelectorAll('.leaflet-overlay-pane path').length >= 2)
      expect(await page.isHidden('figure.map > svg')).toBe(true)
      expect(await page.$$('.leaflet-tile')).toHaveLength(0)
      await clean(page, `dataset map with script: ${path}`)
    }
    await page.goto(server.url + '/dataset?ext_bbox=-4,50,2,56')
    await page.waitForSelector('figure.map .leaflet-container')
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-overlay-pane path').length >= 2)
    await clean(page, 'search map with script')
    await page.waitForLoadState('networkidle')
    expect(errors).toEqual([])
    // every request went to this site, none of them for a tile
    const foreign = urls.filter((u) => !u.startsWith(server.url))
    expect(foreign).toEqual([])
    expect(urls.filter((u) => /\.png|tile/i.test(u))).toEqual([])
    await ctx.close()
  }, 90_000)

  it('with JavaScript: a box drawn on the search map fills the form, which filters by it', async () => {
    const { ctx, page } = await recorded('on')
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(server.url + '/dataset')
    await page.waitForSelector('figure.map .leaflet-container')
    const draw = page.locator('#area-form button', { hasText: 'Draw a box on the map' })
    await draw.click()
    expect(await draw.getAttribute('aria-pressed')).toBe('true')
    const box = (await page.locator('figure.map .leaflet-container').boundingBox())!
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.3)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.4, { steps: 5 })
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 5 })
    await page.mouse.up()
    expect(await draw.getAttribute('aria-pressed')).toBe('false')
    const value = async (id: string) => Number(await page.inputValue(id))
    const [w, s, e, n] = [await value('#area-west'), await value('#area-south'), await value('#area-east'), await value('#area-north')]
    expect(w).toBeLessThan(e)
    expect(s).toBeLessThan(n)
    for (const v of [w, e]) expect(Math.abs(v)).toBeLessThanOrEqual(180)
    for (const v of [s, n]) expect(Math.abs(v)).toBeLessThanOrEqual(90)
    await Promise.all([page.waitForURL(/ext_bbox=/), page.click('#area-form button[type=submit]')])
    expect(new URL(page.url()).searchParams.get('ext_bbox')).toBe([w, s, e, n].join(','))
    await page.waitForSelector('figure.map .leaflet-container')
    await clean(page, 'search map after drawing')
    await ctx.close()
  }, 60_000)

  it('with JavaScript and a tile URL set (ckanext.spatial.common_map.custom_url): the tiles come from it', async () => {
    const { ctx, page, urls } = await recorded('on')
    // a 1×1 PNG for every tile: the test asks no real server
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64')
    await ctx.route(`${TILES}/**`, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: png }))
    await page.goto(tiledServer.url + '/dataset/channel-survey')
    await page.waitForSelector('.leaflet-tile-loaded')
    expect(urls.some((u) => /^https:\/\/tiles\.example\.test\/\d+\/\d+\/\d+\.png$/.test(u))).toBe(true)
    expect(await page.textContent('.leaflet-control-attribution')).toContain('Test tiles')
    // no land drawing of its own under the tiles
    expect(urls.some((u) => u.endsWith('.geojson'))).toBe(false)
    await clean(page, 'dataset map with tiles')
    await ctx.close()
  }, 60_000)
})
