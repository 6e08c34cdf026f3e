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

  it("shows an uploaded text file's start for a text view, escaped; never fetches a linked one", async () => {
    const upload = async (name: string, content: string) => {
      const fd = new FormData()
      fd.set('package_id', 'views-data')
      fd.set('name', name)
      fd.set('format', 'TXT')
      fd.set('upload', new Blob([content], { type: 'text/plain' }), `${name}.txt`)
      const res = await t.app.request('/api/3/action/resource_create', { method: 'POST', headers: { authorization: sys.apikey }, body: fd })
      return ((await res.json()) as { result: { id: string } }).result
    }
    const small = await upload('notes', '<script>alert(1)</script>\nline two\n')
    await t.ok('resource_view_create', { resource_id: small.id, view_type: 'text_view', title: 'Text' }, sys)
    const html = await page(small.id)
    expect(html).toContain('<pre class="text-view" tabindex="0">&lt;script&gt;alert(1)&lt;/script&gt;\nline two\n</pre>')
    expect(html).not.toContain('<script>alert(1)')
    const big = await upload('big', 'x'.repeat(70 * 1024))
    await t.ok('resource_view_create', { resource_id: big.id, view_type: 'text_view', title: 'Text' }, sys)
    const bigHtml = await page(big.id)
    expect(bigHtml).toContain('(the first 64 KB)')
    expect(bigHtml).not.toContain('x'.repeat(64 * 1024 + 1))
    const linked = await t.ok('resource_create', { package_id: 'views-data', name: 'Linked', url: 'https://example.com/notes.txt', format: 'TXT' }, sys)
    await t.ok('resource_view_create', { resource_id: linked.id, view_type: 'text_view', title: 'Text' }, sys)
    expect(await page(linked.id)).not.toContain('text-view')
  })
})
