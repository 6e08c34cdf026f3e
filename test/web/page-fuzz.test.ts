// Every page route with odd path values and query strings, as a visitor and as a signed-in
// sysadmin: never a server error (a missing or unreadable object is the 404 page), and posts
// without a token are refused before anything else.
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let admin: Browser
let anon: Browser
let rid: string

const GETS = [
  '/dataset/{x}', '/dataset/edit/{x}', '/dataset/delete/{x}', '/dataset/groups/{x}', '/dataset/collaborators/{x}', '/dataset/activity/{x}',
  '/dataset/pf-data/resource/{x}', '/dataset/pf-data/resource/{x}/edit', '/dataset/pf-data/resource/{x}/delete', '/dataset/{x}/resource/{rid}',
  '/organization/{x}', '/organization/edit/{x}', '/organization/members/{x}', '/organization/delete/{x}', '/organization/activity/{x}',
  '/group/{x}', '/group/edit/{x}', '/group/members/{x}', '/group/activity/{x}',
  '/user/{x}', '/user/edit/{x}', '/user/{x}/api-tokens', '/user/activity/{x}', '/user/reset/{x}?key={x}',
  '/dataset?q={x}&sort={x}&page={x}', '/dataset/activity/pf-data?offset={x}', '/organization?q={x}', '/user/login?came_from={x}',
]
const POSTS = [
  '/dataset/edit/{x}', '/dataset/delete/{x}', '/dataset/groups/{x}/add', '/dataset/collaborators/{x}/new', '/organization/member_new/{x}',
  '/organization/edit/{x}', '/group/delete/{x}', '/user/edit/{x}', '/user/{x}/api-tokens', '/user/{x}/api-tokens/{x}/revoke', '/user/reset/{x}',
  '/user/register', '/user/reset', '/dataset/pf-data/resource/{x}/edit',
]

const odd = fc.oneof(
  fc.constantFrom('', '%00', '..', '%2e%2e', 'a'.repeat(3000), '%F0%9F%98%80', '<script>', "'", '"', '%ZZ', 'pf-data', 'pf-org', 'null', '-1', '1e9999'),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
)

beforeAll(async () => {
  t = await setup({ 'service.auth.allow_dataset_collaborators': 'true' })
  const sys = await t.make.sysadmin() // password: password123 (test/helpers/make.ts)
  const org = await t.make.organization(sys, { name: 'pf-org' })
  const d = await t.ok('package_create', { name: 'pf-data', owner_org: org.id, resources: [{ url: 'https://example.com/a.csv' }] }, sys)
  rid = d.resources[0].id
  admin = browser((path, init) => t.app.request(path, init))
  anon = browser((path, init) => t.app.request(path, init))
  await signIn(admin, sys.name, 'password123')
})

describe('page routes under odd input', () => {
  it('never answer 5xx', async () => {
    const csrf = csrfOf((await admin.get('/dataset')).html)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GETS, ...POSTS.map((p) => `POST ${p}`)), odd, fc.boolean(), async (route, x, signedIn) => {
        const b = signedIn ? admin : anon
        const path = route.replace(/^POST /, '').replaceAll('{x}', x).replaceAll('{rid}', rid)
        const r = route.startsWith('POST ')
          ? await b.post(path, { _csrf_token: signedIn ? csrf : '', name: x, title: x, user: x, username: x, group: x, key: x, user_id: x, password1: x, password2: x })
          : await b.get(path)
        expect(r.res.status, `${route} ${x.slice(0, 80)} → ${r.res.status}`).toBeLessThan(500)
      }),
      { numRuns: Number(process.env.PAGE_FUZZ_RUNS ?? 300), seed: Number(process.env.FUZZ_SEED ?? 20261127) },
    )
  }, 120_000)
})
