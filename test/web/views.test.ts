// Resource views on the resource page: an image_view shows the image, a webpage_view the page in a
// sandboxed frame with a link; URLs that are not http(s) are never put in either.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: any
let ds: any

beforeAll(async () => {
  t = await setup({ 'service.views.default_views': 'image_view webpage_view' })
  sys = await t.make.sysadmin()
  ds = await t.ok('package_create', { name: 'views-data', resources: [{ name: 'Picture', url: 'https://example.com/pic.png', format: 'PNG' }] }, sys)
})

const page = async (rid: string) => (await t.app.request(`/dataset/views-data/resource/${rid}`)).text()

describe('resource views on the resource page', () => {
  it('shows the default image view of an image', async () => {
    const html = await page(ds.resources[0].id)
    expect(html).toMatch(/<img src="https:\/\/example\.com\/pic\.png" alt="[^"]*" loading="lazy"/)
  })

  it('shows a web page view in a sandboxed frame, with a link', async () => {
    const r = await t.ok('resource_create', { package_id: 'views-data', name: 'Site', url: 'https://example.com/site' }, sys)
    await t.ok('resource_view_create', { resource_id: r.id, view_type: 'webpage_view', title: 'The site', page_url: 'https://example.com/page' }, sys)
    const html = await page(r.id)
    expect(html).toContain('<iframe src="https://example.com/page" title="The site" sandbox=""')
    expect(html).toContain('<a href="https://example.com/page" rel="nofollow">open the page</a>')
  })

  it('never puts a script URL in a view', async () => {
    const r = await t.ok('resource_create', { package_id: 'views-data', name: 'Bad', url: 'https://example.com/x' }, sys)
    await t.ok('resource_view_create', { resource_id: r.id, view_type: 'image_view', title: 'Bad image', image_url: 'javascript:alert(1)' }, sys)
    await t.ok('resource_view_create', { resource_id: r.id, view_type: 'webpage_view', title: 'Bad page', page_url: 'javascript:alert(2)' }, sys)
    const html = await page(r.id)
    expect(html).not.toContain('javascript:')
    expect(html).toContain('<img src="#"')
  })
})
