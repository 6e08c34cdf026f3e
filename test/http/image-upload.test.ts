// User, group and organization images over real HTTP: image_upload, clear_upload, types, /uploads/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { uniq } from '../helpers/make'
import { sniffType } from '../../src/lib/sniff-type'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let sys: Who
let admin: Who
let outsider: Who
let uploads: string
let siteUrl: string

beforeAll(async () => {
  t = await setup({ 'service.max_image_size': '1' })
  server = await listen(t.app)
  uploads = join(dirname(t.file), 'uploads')
  siteUrl = t.deps.config.str('service.site_url').replace(/\/+$/, '')
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  outsider = await t.make.user()
})
afterAll(() => server.close())

/** Every stored file (sidecars included) under the uploads directory. */
function storedFiles(): string[] {
  if (!existsSync(uploads)) return []
  const all = readdirSync(uploads, { recursive: true, withFileTypes: true })
  return (all as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(uploads, join(e.parentPath, e.name)))
    .sort()
}

const PNG_SIG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** A PNG-signed body of `n` bytes that differ from one call to the next. */
function png(n = 3000, seed = Math.floor(Math.random() * 255)): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = (i * 7 + seed) & 0xff
  b.set(PNG_SIG, 0)
  return b
}

const img = (name: string) => ({ bytes: png(), name })

function form(
  fields: Record<string, string>,
  file?: { bytes: Uint8Array<ArrayBuffer> | string; name: string; type?: string },
) {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  if (file)
    f.append('image_upload', new Blob([file.bytes], { type: file.type ?? 'image/png' }), file.name)
  return f
}

async function post(action: string, body: FormData, as?: Caller | null) {
  const res = await fetch(`${server.url}/api/3/action/${action}`, {
    method: 'POST',
    body,
    headers: as ? { authorization: as.apikey } : {},
  })
  return { status: res.status, body: (await res.json()) as any }
}

async function fetchBytes(url: string) {
  const res = await fetch(url)
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) }
}

const storedUnder = (folder: string) => storedFiles().filter((f) => f.startsWith(`${folder}/`))

describe('image_upload on users', () => {
  it('stores the image on user_create and serves it back at image_display_url', async () => {
    const bytes = png()
    const name = uniq('imguser')
    const r = await post(
      'user_create',
      form(
        { name, email: `${name}@example.org`, password: 'correct horse battery' },
        { bytes, name: 'Me Photo.png' },
      ),
      sys,
    )
    expect(r.body.success).toBe(true)
    const u = r.body.result
    expect(u.image_url).toMatch(/^\d{4}-\d\d-\d\d-\d{6}(\.\d+)?Me-Photo\.png$/)
    expect(u.image_display_url).toBe(`${siteUrl}/uploads/user/${u.image_url}`)
    expect(storedFiles()).toContain(`user/${u.image_url}`)
    expect(storedFiles().some((f) => f.startsWith('incoming'))).toBe(false)
    const { res, bytes: got } = await fetchBytes(`${server.url}/uploads/user/${u.image_url}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(res.headers.get('content-length')).toBe(String(bytes.length))
    expect(res.headers.get('content-disposition')).toBe('inline')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
    expect(got).toEqual(bytes)
    const etag = res.headers.get('etag')!
    const again = await fetch(`${server.url}/uploads/user/${u.image_url}`, {
      headers: { 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
    const head = await fetch(`${server.url}/uploads/user/${u.image_url}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(bytes.length))
  })

  it('replaces the old file on user_update and deletes it on clear_upload', async () => {
    const u = await t.make.user()
    const first = await post('user_patch', form({ id: u.id }, { bytes: png(), name: 'a.png' }), u)
    expect(first.body.success).toBe(true)
    const oldName = first.body.result.image_url
    expect(storedFiles()).toContain(`user/${oldName}`)
    const user = await t.ok('user_show', { id: u.id }, u)
    const bytes = png(2000)
    const second = await post(
      'user_update',
      form({ id: u.id, email: user.email }, { bytes, name: 'b.gif', type: 'image/gif' }),
      u,
    )
    expect(second.body.success).toBe(true)
    const newName = second.body.result.image_url
    expect(newName).toMatch(/b\.gif$/)
    expect(storedFiles()).toContain(`user/${newName}`)
    expect(storedFiles()).not.toContain(`user/${oldName}`)
    // served with the sniffed type, not the claimed one
    const { res, bytes: got } = await fetchBytes(`${server.url}/uploads/user/${newName}`)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(got).toEqual(bytes)
    // an image_url alone does not replace an uploaded image (ckan)
    const kept = await post('user_patch', form({ id: u.id, image_url: 'http://x.org/a.png' }), u)
    expect(kept.body.result.image_url).toBe(newName)
    const cleared = await post('user_patch', form({ id: u.id, clear_upload: 'true' }), u)
    expect(cleared.body.result.image_url).toBe('')
    expect(cleared.body.result.image_display_url).toBe('')
    expect(storedFiles()).not.toContain(`user/${newName}`)
    expect((await fetch(`${server.url}/uploads/user/${newName}`)).status).toBe(404)
  })

  it('refuses callers who may not edit the user and stores nothing', async () => {
    const before = storedFiles()
    const r = await post('user_patch', form({ id: admin.id }, img('x.png')), outsider)
    expect(r.body.error.__type).toBe('Authorization Error')
    expect(storedFiles()).toEqual(before)
  })
})

describe('image_upload on groups and organizations', () => {
  for (const kind of ['group', 'organization'] as const) {
    it(`stores, replaces and clears a ${kind}'s image`, async () => {
      const bytes = png()
      const name = uniq(kind)
      const created = await post(`${kind}_create`, form({ name }, { bytes, name: 'l.png' }), admin)
      expect(created.body.success).toBe(true)
      const g = created.body.result
      expect(g.image_display_url).toBe(`${siteUrl}/uploads/group/${g.image_url}`)
      expect(storedFiles()).toContain(`group/${g.image_url}`)
      const { res, bytes: got } = await fetchBytes(g.image_display_url.replace(siteUrl, server.url))
      expect(res.status).toBe(200)
      expect(got).toEqual(bytes)
      const shown = await t.ok(`${kind}_show`, { id: name })
      expect(shown.image_display_url).toBe(g.image_display_url)

      const replaced = await post(`${kind}_patch`, form({ id: name }, img('l2.jpg')), admin)
      const newName = replaced.body.result.image_url
      expect(newName).not.toBe(g.image_url)
      expect(storedFiles()).toContain(`group/${newName}`)
      expect(storedFiles()).not.toContain(`group/${g.image_url}`)

      const cleared = await post(`${kind}_update`, form({ id: name, clear_upload: 'true' }), admin)
      expect(cleared.body.success).toBe(true)
      expect(cleared.body.result.image_url).toBe('')
      expect(storedFiles()).not.toContain(`group/${newName}`)
    })
  }

  it('deletes the image when the organization is purged', async () => {
    const made = await post('organization_create', form({ name: uniq('o') }, img('p.png')), admin)
    const o = made.body.result
    expect(storedFiles()).toContain(`group/${o.image_url}`)
    await t.ok('organization_purge', { id: o.id }, sys)
    expect(storedFiles()).not.toContain(`group/${o.image_url}`)
  })

  it('refuses a non-admin and stores nothing', async () => {
    const org = await t.make.organization(admin)
    const before = storedFiles()
    const r = await post('organization_patch', form({ id: org.id }, img('x.png')), outsider)
    expect(r.body.error.__type).toBe('Authorization Error')
    expect(storedFiles()).toEqual(before)
  })

  it('leaves no file when the call fails on another field', async () => {
    const org = await t.make.organization(admin)
    const before = storedFiles()
    const r = await post('organization_create', form({ name: org.name }, img('x.png')), admin)
    expect(r.body.error).toMatchObject({
      __type: 'Validation Error',
      name: ['Group name already exists in database'],
    })
    expect(storedFiles()).toEqual(before)
    const name = uniq('u')
    const u = await post('user_create', form({ name, email: 'nowhere' }, img('x.png')), sys)
    expect(u.body.error.__type).toBe('Validation Error')
    expect(storedFiles()).toEqual(before)
  })
})

describe('image type and size rules', () => {
  it.each([
    ['an HTML page named .png', '<!DOCTYPE html><html><script>alert(1)</script>', 'text/html'],
    ['a text file named .png', 'just some text\n', 'text/plain'],
    ['an SVG', '<svg xmlns="http://www.w3.org/2000/svg"><script>1</script>', 'image/svg+xml'],
  ])('refuses %s with CKAN message and stores nothing', async (_what, body, actual) => {
    const before = storedFiles()
    const evil = { bytes: body, name: 'evil.png' }
    const r = await post('group_create', form({ name: uniq('g') }, evil), admin)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      image_upload: [`Unsupported upload type: ${actual}`],
    })
    expect(storedFiles()).toEqual(before)
  })

  it('refuses an image over service.max_image_size and stores nothing', async () => {
    const before = storedFiles()
    const big = { bytes: png(1024 * 1024 + 10), name: 'big.png' }
    const r = await post('user_patch', form({ id: admin.id }, big), admin)
    expect(r.body.error).toEqual({ __type: 'Validation Error', upload: ['File upload too large'] })
    expect(storedFiles()).toEqual(before)
  })

  it('answers 404 for unknown or unsafe image names', async () => {
    expect((await fetch(`${server.url}/uploads/user/nothing-here.png`)).status).toBe(404)
    expect((await fetch(`${server.url}/uploads/group/.hidden`)).status).toBe(404)
  })

  it('leaves no staged file behind', () => {
    expect(storedUnder('incoming')).toEqual([])
  })
})

describe('sniffType', () => {
  it.each([
    [[0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    [[...'GIF89a'].map((c) => c.charCodeAt(0)), 'image/gif'],
    [[...'RIFF\0\0\0\0WEBPVP8 '].map((c) => c.charCodeAt(0)), 'image/webp'],
    [[], 'application/x-empty'],
    [[0, 1, 2, 3, 0xfe], 'application/octet-stream'],
  ])('judges %j as %s', (bytes, type) => {
    expect(sniffType(new Uint8Array(bytes))).toBe(type)
  })
})

describe('CKAN 2.10 image rules (api_compat 2.11), beside 2.9', () => {
  const envs: Record<string, { t: TestEnv; url: string; close: () => Promise<void>; sys: Who }> = {}
  const make = async (key: string, overrides: Record<string, string>) => {
    const t = await setup(overrides)
    const s = await listen(t.app)
    envs[key] = { t, url: s.url, close: s.close, sys: await t.make.sysadmin() }
  }
  beforeAll(async () => {
    await make('2.9 none', { 'service.upload.user.types': '', 'service.upload.user.mimetypes': '' })
    await make('2.11 none', { 'ckan.api_compat': '2.11', 'ckan.upload.user.types': '', 'ckan.upload.user.mimetypes': '' })
    await make('2.11 any', { 'ckan.api_compat': '2.11', 'ckan.upload.user.types': '*', 'ckan.upload.user.mimetypes': '*' })
    await make('2.11', { 'ckan.api_compat': '2.11' })
    await make('2.9', {})
  })
  afterAll(async () => {
    for (const e of Object.values(envs)) await e.close()
  })
  const newUser = async (key: string, file: { bytes: Uint8Array<ArrayBuffer> | string; name: string; type?: string }) => {
    const e = envs[key]!
    const name = uniq('u')
    const f = form({ name, email: `${name}@example.org`, password: 'password123' }, file)
    const res = await fetch(`${e.url}/api/3/action/user_create`, { method: 'POST', body: f, headers: { authorization: e.sys.apikey } })
    return { status: res.status, body: (await res.json()) as any }
  }
  const JPEG = () => {
    const b = png()
    b.set([0xff, 0xd8, 0xff, 0xe0], 0)
    return b
  }

  it('with both lists empty: any file under 2.9, no uploads from 2.10', async () => {
    expect((await newUser('2.9 none', { bytes: '{"a": 1}', name: 'file.json', type: 'application/json' })).status).toBe(200)
    const r = await newUser('2.11 none', { bytes: png(), name: 'x.png' })
    expect(r.body.error).toEqual({ __type: 'Validation Error', image_upload: ['No uploads allowed for object type user'] })
  })

  it('"*" accepts any file', async () => {
    const r = await newUser('2.11 any', { bytes: '{"a": 1}', name: 'file.json', type: 'application/json' })
    expect(r.status).toBe(200)
    expect(r.body.result.image_url).toMatch(/file\.txt$/) // the content is text
  })

  it('checks the declared types from 2.10 (the name, the part type), only the content under 2.9', async () => {
    const named = await newUser('2.11', { bytes: png(), name: 'picture.txt' })
    expect(named.body.error).toEqual({ __type: 'Validation Error', image_upload: ['Unsupported upload type: text/plain'] })
    const declared = await newUser('2.11', { bytes: png(), name: 'picture.png', type: 'text/html' })
    expect(declared.body.error.image_upload).toEqual(['Unsupported upload type: text/html'])
    expect((await newUser('2.9', { bytes: png(), name: 'picture.txt' })).status).toBe(200)
  })

  it('names the stored file by the content\'s type from 2.10', async () => {
    const r211 = await newUser('2.11', { bytes: JPEG(), name: 'file.png', type: 'image/png' })
    expect(r211.body.result.image_url).toMatch(/file\.jpg$/)
    expect(r211.body.result.image_display_url).toMatch(/file\.jpg$/)
    const r29 = await newUser('2.9', { bytes: JPEG(), name: 'file.png', type: 'image/png' })
    expect(r29.body.result.image_url).toMatch(/file\.png$/)
  })
})
