// Uploads over real HTTP (fetch + FormData against a listening server) and the download route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let sys: Who
let admin: Who
let member: Who
let outsider: Who
let org: { id: string; name: string }
let uploads: string

beforeAll(async () => {
  t = await setup({ 'service.max_resource_size': '6' })
  server = await listen(t.app)
  uploads = join(dirname(t.file), 'uploads')
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  member = await t.make.user()
  outsider = await t.make.user()
  org = await t.make.organization(admin)
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, admin)
})
afterAll(() => server.close())

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** Every stored file (sidecars included) under the uploads directory. */
function storedFiles(): string[] {
  if (!existsSync(uploads)) return []
  return (readdirSync(uploads, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(uploads, join(e.parentPath, e.name)))
    .sort()
}

/** Bytes that differ at every offset, so a range or a swapped chunk shows. */
function pattern(n: number): Uint8Array {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = (i * 31 + (i >> 8)) & 0xff
  return b
}

async function post(action: string, form: FormData, as?: Caller | null) {
  const res = await fetch(`${server.url}/api/3/action/${action}`, {
    method: 'POST',
    body: form,
    headers: as ? { authorization: as.apikey } : {},
  })
  return { status: res.status, body: (await res.json()) as any }
}

function uploadForm(fields: Record<string, string>, bytes: Uint8Array, filename: string, type?: string) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  form.set('upload', new File([bytes as BlobPart], filename, type ? { type } : {}))
  return form
}

const dataset = (fields: Record<string, unknown> = {}) =>
  t.ok('package_create', { name: uniq('up-ds'), owner_org: org.id, ...fields }, sys)

const download = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init)
const pathOf = (url: string) => new URL(url).pathname

describe('upload then download', () => {
  it('stores the bytes and serves them back with their headers', async () => {
    const d = await dataset()
    const bytes = new TextEncoder().encode('a,b\n1,2\n3,4\n')
    const r = await post('resource_create', uploadForm({ package_id: d.id, name: 'data' }, bytes, 'My Data Ü.csv'), admin)
    expect(r.status).toBe(200)
    const res = r.body.result
    expect(res).toMatchObject({
      url_type: 'upload',
      url: `http://test.ckan.net/dataset/${d.id}/resource/${res.id}/download/my-data-u.csv`,
      size: bytes.length,
      mimetype: 'text/csv',
    })
    expect(res.last_modified).toBeTruthy()
    expect(storedFiles()).toContain(`resources/${res.id}/my-data-u.csv`)
    expect(storedFiles().some((f) => f.startsWith('incoming'))).toBe(false)

    const got = await download(pathOf(res.url))
    expect(got.status).toBe(200)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes)
    expect(got.headers.get('content-type')).toBe('text/csv')
    expect(got.headers.get('content-length')).toBe(String(bytes.length))
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="my-data-u.csv"')
    expect(got.headers.get('etag')).toBe(`"${sha(bytes)}"`)

    // without the file name, and with the dataset's name instead of its id
    const byName = await download(`/dataset/${d.name}/resource/${res.id}/download`)
    expect(await byName.text()).toBe('a,b\n1,2\n3,4\n')
  })

  it('streams a 5 MB file both ways unchanged', async () => {
    const d = await dataset()
    const bytes = pattern(5 * 1024 * 1024 + 17)
    const r = await post('resource_create', uploadForm({ package_id: d.id }, bytes, 'big.bin'), admin)
    expect(r.status).toBe(200)
    expect(r.body.result.size).toBe(bytes.length)
    const got = await download(pathOf(r.body.result.url))
    const back = new Uint8Array(await got.arrayBuffer())
    expect(back.length).toBe(bytes.length)
    expect(sha(back)).toBe(sha(bytes))
  })

  it('answers HEAD, ranges and If-None-Match', async () => {
    const d = await dataset()
    const bytes = pattern(1000)
    const res = (await post('resource_create', uploadForm({ package_id: d.id }, bytes, 'r.bin'), admin)).body.result
    const path = pathOf(res.url)

    const head = await download(path, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe('1000')
    expect(head.headers.get('etag')).toBe(`"${sha(bytes)}"`)
    expect(await head.text()).toBe('')

    const part = await download(path, { headers: { range: 'bytes=100-199' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe('bytes 100-199/1000')
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(100, 200))

    const tail = await download(path, { headers: { range: 'bytes=-10' } })
    expect(tail.status).toBe(206)
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(990))

    const open = await download(path, { headers: { range: 'bytes=995-' } })
    expect(open.headers.get('content-range')).toBe('bytes 995-999/1000')

    const past = await download(path, { headers: { range: 'bytes=1000-' } })
    expect(past.status).toBe(416)
    expect(past.headers.get('content-range')).toBe('bytes */1000')

    const cached = await download(path, { headers: { 'if-none-match': `"${sha(bytes)}"` } })
    expect(cached.status).toBe(304)
    expect(await cached.text()).toBe('')
    const stale = await download(path, { headers: { 'if-none-match': '"other"' } })
    expect(stale.status).toBe(200)
  })

  it('redirects a linked resource to its URL and 404s the unknown', async () => {
    const d = await dataset({ resources: [{ url: 'http://example.com/x.csv' }] })
    const rid = d.resources[0].id
    const r = await download(`/dataset/${d.id}/resource/${rid}/download`, { redirect: 'manual' })
    expect(r.status).toBe(302)
    expect(r.headers.get('location')).toBe('http://example.com/x.csv')
    expect((await download(`/dataset/${d.id}/resource/nonexistent/download`)).status).toBe(404)
    expect((await download(`/dataset/no-such-dataset/resource/${rid}/download`)).status).toBe(404)
    const other = await dataset()
    expect((await download(`/dataset/${other.id}/resource/${rid}/download/x.csv`)).status).toBe(404)
  })
})

describe('private datasets', () => {
  it('serve their files only to callers who may read them, 404 to everyone else', async () => {
    const d = await dataset({ private: true })
    const bytes = new TextEncoder().encode('secret')
    const res = (await post('resource_create', uploadForm({ package_id: d.id }, bytes, 's.txt'), admin)).body.result
    const path = pathOf(res.url)
    const as = (who: Caller) => ({ headers: { authorization: who.apikey } })
    expect((await download(path)).status).toBe(404)
    expect((await download(path, { method: 'HEAD' })).status).toBe(404)
    expect((await download(path, as(outsider))).status).toBe(404)
    const byMember = await download(path, as(member))
    expect(byMember.status).toBe(200)
    expect(await byMember.text()).toBe('secret')
    expect((await download(path, as(sys))).status).toBe(200)
    // an API token in the X-CKAN-API-Key header works as the key does
    const token = (await t.ok('api_token_create', { user: member.name, name: 'dl' }, member)).token
    const byToken = await download(path, { headers: { 'X-CKAN-API-Key': token } })
    expect(byToken.status).toBe(200)
    const outsiderToken = (await t.ok('api_token_create', { user: outsider.name, name: 'dl' }, outsider)).token
    expect((await download(path, { headers: { authorization: outsiderToken } })).status).toBe(404)
  })
})

describe('what is stored and what is not', () => {
  it('refuses a file over max_resource_size while reading, storing nothing', async () => {
    const d = await dataset()
    const before = storedFiles()
    const r = await post('resource_create', uploadForm({ package_id: d.id }, pattern(6 * 1024 * 1024 + 1), 'big.bin'), admin)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', upload: ['File upload too large'] })
    expect(storedFiles()).toEqual(before)
    expect((await t.ok('package_show', { id: d.id }, sys)).resources).toEqual([])
  })

  it('leaves no file behind a refused or invalid call', async () => {
    const d = await dataset()
    const before = storedFiles()
    const refused = await post('resource_create', uploadForm({ package_id: d.id }, pattern(10), 'a.bin'), outsider)
    expect(refused.status).toBe(403)
    const anon = await post('resource_create', uploadForm({ package_id: d.id }, pattern(10), 'a.bin'))
    expect(anon.status).toBe(403)
    const invalid = await post('resource_create', uploadForm({ package_id: d.id, size: 'lots' }, pattern(10), 'a.bin'), admin)
    expect(invalid.status).toBe(409)
    expect(invalid.body.error.size).toBeTruthy()
    const missing = await post('resource_create', uploadForm({ package_id: 'no-such-dataset' }, pattern(10), 'a.bin'), admin)
    expect(missing.status).toBe(404)
    expect(storedFiles()).toEqual(before)
  })

  it('answers a malformed multipart body with a 400 envelope, storing nothing', async () => {
    const before = storedFiles()
    const body = '--xyz\r\nContent-Disposition: form-data; name="upload"; filename="a.bin"\r\n\r\nabc'
    const res = await fetch(`${server.url}/api/3/action/resource_create`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'multipart/form-data; boundary=xyz', authorization: admin.apikey },
    })
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/multipart form data: the body ends inside a file/)
    expect(storedFiles()).toEqual(before)
  })

  it('replaces the file on a new upload and drops the old name', async () => {
    const d = await dataset()
    const first = (await post('resource_create', uploadForm({ package_id: d.id }, pattern(10), 'one.bin'), admin)).body.result
    expect(storedFiles()).toContain(`resources/${first.id}/one.bin`)
    const second = await post('resource_update', uploadForm({ id: first.id }, pattern(20), 'two.bin'), admin)
    expect(second.status).toBe(200)
    const mine = storedFiles().filter((f) => f.includes(first.id))
    expect(mine.filter((f) => !f.includes('/.'))).toEqual([`resources/${first.id}/two.bin`])
    const got = await download(pathOf(second.body.result.url))
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(pattern(20))
    // same name again: the bytes are replaced in place
    await post('resource_patch', uploadForm({ id: first.id }, pattern(30), 'two.bin'), admin)
    expect((await download(pathOf(second.body.result.url))).headers.get('content-length')).toBe('30')
    // to a link: the file goes
    await t.ok('resource_update', { id: first.id, url: 'http://example.com/x', clear_upload: true }, admin)
    expect(storedFiles().filter((f) => f.includes(first.id))).toEqual([])
  })

  it('stores a file sent to package_revise for a new resource', async () => {
    const d = await dataset()
    const form = new FormData()
    form.set('match__id', d.id)
    form.set('update__resources__extend', JSON.stringify([{ name: 'revised' }]))
    form.set('update__resources__-1__upload', new File(['x,y\n'], 'rev.csv'))
    const r = await post('package_revise', form, admin)
    expect(r.status).toBe(200)
    const [res] = r.body.result.package.resources
    const got = await download(pathOf(res.url))
    expect(await got.text()).toBe('x,y\n')
    expect(storedFiles().some((f) => f.startsWith('incoming'))).toBe(false)
  })

  it('removes the file on resource_delete', async () => {
    const d = await dataset()
    const res = (await post('resource_create', uploadForm({ package_id: d.id }, pattern(10), 'gone.bin'), admin)).body.result
    expect(storedFiles().some((f) => f.includes(res.id))).toBe(true)
    await t.ok('resource_delete', { id: res.id }, admin)
    expect(storedFiles().some((f) => f.includes(res.id))).toBe(false)
    expect((await download(pathOf(res.url))).status).toBe(404)
  })

  it('keeps files through package_delete and removes them on dataset_purge', async () => {
    const d = await dataset()
    const a = (await post('resource_create', uploadForm({ package_id: d.id }, pattern(10), 'a.bin'), admin)).body.result
    const b = (await post('resource_create', uploadForm({ package_id: d.id }, pattern(10), 'b.bin'), admin)).body.result
    // a resource dropped by package_update keeps its file until the purge
    await t.ok('package_patch', { id: d.id, resources: [{ id: a.id, url: a.url, url_type: 'upload' }] }, sys)
    await t.ok('package_delete', { id: d.id }, sys)
    expect(storedFiles().filter((f) => f.includes(a.id) || f.includes(b.id)).length).toBeGreaterThan(0)
    // a deleted dataset's file is not served
    expect((await download(pathOf(a.url))).status).toBe(404)
    await t.ok('dataset_purge', { id: d.id }, sys)
    expect(storedFiles().filter((f) => f.includes(a.id) || f.includes(b.id))).toEqual([])
  })
})
