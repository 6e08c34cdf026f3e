// For search engines and harvesters: schema.org Dataset JSON-LD (what Google Dataset Search
// reads), and sitemap.xml (an index of pages of 5,000 public dataset URLs each).

import { escapeHtml } from '../http/envelope'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

/** The site's absolute base URL (service.site_url, no trailing slash). */
export const siteBase = (siteUrl: string) => siteUrl.replace(/\/+$/, '')

export function datasetJsonLd(d: Dict, base: string, siteTitle: string): Dict {
  const href = `${base}/dataset/${encodeURIComponent(d.name)}`
  const org = d.organization as Dict | null
  return {
    '@context': 'https://schema.org/',
    '@type': 'Dataset',
    '@id': href,
    url: href,
    identifier: d.id,
    name: str(d.title) ?? d.name,
    description: str(d.notes) ?? str(d.title) ?? d.name,
    keywords: ((d.tags ?? []) as Dict[]).map((t) => t.name),
    license: str(d.license_url) ?? str(d.license_title),
    version: str(d.version),
    dateCreated: str(d.metadata_created),
    dateModified: str(d.metadata_modified),
    isAccessibleForFree: true,
    ...(org
      ? {
          publisher: {
            '@type': 'Organization',
            name: str(org.title) ?? org.name,
            url: `${base}/organization/${encodeURIComponent(org.name)}`,
          },
        }
      : {}),
    ...(str(d.author) ? { creator: { '@type': 'Person', name: d.author, ...(str(d.author_email) ? { email: d.author_email } : {}) } } : {}),
    includedInDataCatalog: { '@type': 'DataCatalog', name: siteTitle, url: `${base}/` },
    distribution: ((d.resources ?? []) as Dict[])
      .filter((r) => str(r.url))
      .map((r) => ({
        '@type': 'DataDownload',
        name: str(r.name),
        description: str(r.description),
        encodingFormat: str(r.mimetype) ?? str(r.format),
        contentUrl: /^https?:\/\//i.test(r.url) ? r.url : `${base}${r.url.startsWith('/') ? '' : '/'}${r.url}`,
      })),
  }
}

/**
 * JSON for a <script> element: `<`, `>`, `&` and the line separators escaped, so no value can end
 * the element or open a comment (`</script>`, `<!--`).
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

// Python's html.escape: &, <, >, " and ' as entities or character references, valid in XML too
const xmlEscape = escapeHtml

export const SITEMAP_PAGE = 5000

export function sitemapIndex(base: string, pages: number): string {
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
  out += `<sitemap><loc>${xmlEscape(`${base}/sitemap-0.xml`)}</loc></sitemap>\n`
  for (let i = 1; i <= pages; i++) out += `<sitemap><loc>${xmlEscape(`${base}/sitemap-${i}.xml`)}</loc></sitemap>\n`
  return out + '</sitemapindex>\n'
}

/**
 * A sitemap page: `base` + each entry's `path`, with `<xhtml:link rel="alternate" hreflang>` for the
 * page in each of `locales` (`base/<locale>/path`, Google's way to list a page's languages).
 */
export function urlSet(base: string, entries: { path: string; lastmod?: string }[], locales: readonly string[] = []): string {
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
  out += locales.length ? ' xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' : '>\n'
  for (const e of entries) {
    out += `<url><loc>${xmlEscape(base + e.path)}</loc>${e.lastmod ? `<lastmod>${xmlEscape(e.lastmod.slice(0, 10))}</lastmod>` : ''}`
    for (const l of locales) {
      out += `<xhtml:link rel="alternate" hreflang="${xmlEscape(l)}" href="${xmlEscape(`${base}/${l}${e.path === '/' ? '' : e.path}`)}"/>`
    }
    if (locales.length) out += `<xhtml:link rel="alternate" hreflang="x-default" href="${xmlEscape(base + e.path)}"/>`
    out += '</url>\n'
  }
  return out + '</urlset>\n'
}
