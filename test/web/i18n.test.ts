// Issue 28, item 4: the pages' own text in the visitor's language. Every key the pages use is in
// all four catalogues and every catalogue has English's keys; the main pages render in each locale
// under /<locale>/ and by Accept-Language, with lang, the switcher and hreflang links; a prefixed
// URL authorizes exactly as the plain one.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { IntlMessageFormat } from 'intl-messageformat'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOGUES, LOCALES, fromAcceptLanguage, localizable, prefixLinks } from '../../src/web/i18n'
import { setup, type TestEnv } from '../helpers/setup'

const root = fileURLToPath(new URL('../../', import.meta.url))

/** Every message key the web pages name: `t('…')` calls and the key tables (FACET_TITLES, SORTS, PLURAL). */
function usedKeys(): Set<string> {
  const keys = new Set<string>()
  const dir = root + 'src/web/'
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!/\.tsx?$/.test(f) || f.startsWith('i18n')) continue
    const src = readFileSync(dir + f, 'utf8')
    for (const m of src.matchAll(/\bt\(\s*'([^']+)'/g)) keys.add(m[1]!)
    for (const m of src.matchAll(/\bt\(\s*\w+\s*\?\s*'([^']+)'\s*:\s*'([^']+)'/g)) keys.add(m[1]!).add(m[2]!)
    // tables of keys: a quoted dotted name such as 'facets.tags' or 'sort.relevance'
    for (const m of src.matchAll(/'((?:facets|sort|nav|resource\.field)\.[A-Za-z_.]+)'/g)) keys.add(m[1]!)
  }
  return keys
}

describe('catalogues', () => {
  const used = usedKeys()
  it('finds the keys the pages use', () => {
    expect(used.size).toBeGreaterThan(150)
    expect(used).toContain('nav.datasets')
    expect(used).toContain('facets.tags')
  })
  for (const locale of LOCALES) {
    it(`${locale} has every key the pages use, and no key English lacks`, () => {
      const cat = CATALOGUES[locale] as Record<string, string>
      expect([...used].filter((k) => typeof cat[k] !== 'string' || cat[k] === '')).toEqual([])
      expect(Object.keys(cat).filter((k) => !(k in CATALOGUES.en))).toEqual([])
      expect(Object.keys(CATALOGUES.en).filter((k) => !(k in cat))).toEqual([])
    })
    it(`${locale}'s messages parse and keep English's placeholders`, () => {
      const en = CATALOGUES.en as Record<string, string>
      const cat = CATALOGUES[locale] as Record<string, string>
      // the arguments a message names, from its syntax tree (select and plural branches included)
      const names = (s: string) => {
        const out = new Set<string>()
        const walk = (els: any[]) => {
          for (const el of els) {
            if (typeof el.value === 'string' && el.type !== 0 && el.type !== 7) out.add(el.value)
            for (const o of Object.values(el.options ?? {}) as { value: any[] }[]) walk(o.value)
          }
        }
        walk(new IntlMessageFormat(s, 'en', undefined, { ignoreTag: true }).getAst())
        return [...out].sort()
      }
      for (const [k, v] of Object.entries(cat)) {
        expect(() => new IntlMessageFormat(v, locale, undefined, { ignoreTag: true }), k).not.toThrow()
        expect(names(v), k).toEqual(names(en[k]!))
      }
    })
  }
})

describe('locale choice and links', () => {
  it('reads Accept-Language with q-values and regions, among the offered locales', () => {
    const all = [...LOCALES]
    expect(fromAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8', all)).toBe('fr')
    expect(fromAcceptLanguage('it, de;q=0.5, es;q=0.7', all)).toBe('es')
    expect(fromAcceptLanguage('it, pt', all)).toBeNull()
    expect(fromAcceptLanguage('de', ['en', 'fr'])).toBeNull()
    expect(fromAcceptLanguage('*', all)).toBeNull()
  })
  it('prefixes page links only', () => {
    expect(localizable('/dataset/x')).toBe(true)
    for (const p of ['/api/3/action/package_show', '/datastore/dump/x', '/static/site-1.css', '/dataset/x.ttl', '/fr/dataset', '/dataset/x/resource/y/download/a.csv', '//evil.example']) {
      expect(localizable(p), p).toBe(false)
    }
    expect(prefixLinks('<a href="/dataset?q=a&amp;b=c">x</a><a href="/api/3">y</a><form action="/user/login"><a href="/">h</a>', '/de')).toBe(
      '<a href="/de/dataset?q=a&amp;b=c">x</a><a href="/api/3">y</a><form action="/de/user/login"><a href="/de">h</a>',
    )
  })
})

let t: TestEnv
let sys: { apikey: string; name: string; id: string }

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await t.app.request(path, { headers })
  return { status: res.status, html: await res.text(), location: res.headers.get('location') }
}

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys, { name: 'i18n-org', title: 'Lang Org' })
  await t.make.group(sys, { name: 'i18n-group', title: 'Lang Group' })
  await t.ok('package_create', { name: 'i18n-data', title: 'Lang data', owner_org: org.id, resources: [{ name: 'A file', url: 'http://example.com/a.csv' }] }, sys)
  await t.ok('package_create', { name: 'i18n-secret', title: 'Hidden plans', owner_org: org.id, private: true }, sys)
})
afterAll(() => t?.client.close())

// a phrase of each main page in each language (from the catalogues, so the test reads what they say)
const PAGES: [string, (l: (typeof LOCALES)[number]) => string][] = [
  ['/', (l) => CATALOGUES[l]['home.newDatasets']],
  ['/dataset', (l) => CATALOGUES[l]['sort.label']],
  ['/dataset/i18n-data', (l) => CATALOGUES[l]['dataset.dataAndResources']],
  ['/organization', (l) => CATALOGUES[l]['orgs.search'].match(/other \{([^}]+)\}/)![1]!],
  ['/group', (l) => CATALOGUES[l]['orgs.search'].match(/group \{([^}]+)\}/)![1]!],
  ['/user/login', (l) => CATALOGUES[l]['login.forgot']],
]
const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

describe('pages in each language', () => {
  for (const locale of LOCALES) {
    it(`/${locale}/… and Accept-Language: ${locale} render the main pages in ${locale}`, async () => {
      for (const [path, phrase] of PAGES) {
        const prefixed = await get(`/${locale}${path === '/' ? '' : path}`)
        expect(prefixed.status, `/${locale}${path}`).toBe(200)
        expect(prefixed.html).toContain(`<html lang="${locale}">`)
        expect(prefixed.html, `/${locale}${path}`).toContain(esc(phrase(locale)))
        // links keep the prefix; the API and the stylesheet do not get one
        expect(prefixed.html).toContain(`href="/${locale}/dataset"`)
        expect(prefixed.html).toContain('href="/api/3"')
        expect(prefixed.html).toMatch(/href="\/static\/site-[^"]+\.css"/)
        const negotiated = await get(path, { 'accept-language': `${locale};q=0.9, xx` })
        expect(negotiated.status).toBe(200)
        expect(negotiated.html).toContain(`<html lang="${locale}">`)
        expect(negotiated.html, path).toContain(esc(phrase(locale)))
        expect(negotiated.html).toContain('href="/dataset"') // no prefix: the header chose
      }
    })
  }

  it('is English with no prefix and no Accept-Language; the switcher and hreflang name every locale', async () => {
    const home = await get('/dataset?q=x')
    expect(home.html).toContain('<html lang="en">')
    expect(home.html).toContain('Order by')
    for (const l of LOCALES) {
      expect(home.html).toContain(`<link rel="alternate" hreflang="${l}" href="http://test.ckan.net/${l}/dataset?q=x"`)
      expect(home.html).toMatch(new RegExp(`<a href="/${l}/dataset\\?q=x" hreflang="${l}"`))
    }
    expect(home.html).toContain('<link rel="alternate" hreflang="x-default" href="http://test.ckan.net/dataset?q=x"')
  })

  it('plural forms and numbers follow the locale', async () => {
    expect((await get('/fr/dataset?q=Lang')).html).toMatch(/<strong>1<\/strong> jeu de données trouvé pour « Lang »/)
    expect((await get('/de/dataset')).html).toContain('<strong>1</strong> Datensatz gefunden')
    expect((await get('/de/dataset?q=nirgends')).html).toContain('<strong>0</strong> Datensätze gefunden')
    expect((await get('/es/dataset/i18n-data')).html).toMatch(/<time datetime="[^"]+">\d{1,2} [a-z]{3,5}\.? \d{4}<\/time>/)
  })

  it('a prefixed private dataset is the 404 page for a visitor and the page for its reader', async () => {
    for (const path of ['/dataset/i18n-secret', '/fr/dataset/i18n-secret']) {
      const anon = await get(path)
      expect(anon.status, path).toBe(404)
      expect(anon.html).not.toContain('Hidden plans')
      const reader = await get(path, { authorization: sys.apikey })
      expect(reader.status, path).toBe(200)
      expect(reader.html).toContain('Hidden plans')
    }
    expect((await get('/fr/dataset/i18n-secret')).html).toContain('Jeu de données introuvable')
  })

  it('a locale not offered is not a prefix; redirects keep the prefix; the API has no prefix', async () => {
    expect((await get('/xx/dataset')).status).toBe(404)
    const login = await get('/fr/dataset/new')
    expect(login.status).toBe(303)
    expect(login.location).toBe('/fr/user/login?came_from=%2Fdataset%2Fnew')
    expect((await get('/fr/api/3/action/package_list')).status).toBe(404)
  })

  it('the sitemap lists each page in each offered locale', async () => {
    const xml = (await get('/sitemap-0.xml')).html
    expect(xml).toContain('xmlns:xhtml="http://www.w3.org/1999/xhtml"')
    for (const l of LOCALES) expect(xml).toContain(`<xhtml:link rel="alternate" hreflang="${l}" href="http://test.ckan.net/${l}/organization/i18n-org"/>`)
    const datasets = (await get('/sitemap-1.xml')).html
    expect(datasets).toContain('<xhtml:link rel="alternate" hreflang="de" href="http://test.ckan.net/de/dataset/i18n-data"/>')
  })
})

describe('ckan.locales_offered and ckan.locale_default', () => {
  it('offers only the listed locales: no other prefix, header or switcher entry; the default when nothing matches', async () => {
    const env = await setup({ 'ckan.locales_offered': 'en de', 'ckan.locale_default': 'de' })
    try {
      const req = async (path: string, headers: Record<string, string> = {}) => {
        const res = await env.app.request(path, { headers })
        return { status: res.status, html: await res.text() }
      }
      expect((await req('/fr/dataset')).status).toBe(404)
      const plain = await req('/dataset', { 'accept-language': 'fr, es;q=0.5' })
      expect(plain.html).toContain('<html lang="de">')
      expect(plain.html).toContain('hreflang="en"')
      expect(plain.html).not.toContain('hreflang="fr"')
      expect((await req('/dataset', { 'accept-language': 'en-GB' })).html).toContain('<html lang="en">')
      expect((await req('/en/dataset')).html).toContain('<html lang="en">')
    } finally {
      env.client.close()
    }
  })
})
