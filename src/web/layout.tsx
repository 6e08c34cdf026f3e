/** @jsxImportSource hono/jsx */
// The one layout of every page: header with the site's name, navigation and search, the page,
// a footer. Values go through JSX, which escapes them; nothing is concatenated into HTML.
import type { Child } from 'hono/jsx'
import { siteInfo, type Page } from './page'
import { CSRF_FIELD } from './session'
import { stylesheet } from './style'
import { LANGUAGE_NAMES, localizable, translator } from './i18n'
import { siteBase } from './seo'
import { mapAssets } from './map/client'

export interface LayoutProps {
  /** The page being rendered (null: the request failed before it had one). */
  page: Page | null
  title: string
  /** The API call that gives this page's data as JSON (<link rel="alternate">). */
  alternate?: string
  /** The page's data as DCAT (the path without extension: .ttl, .jsonld and .rdf are linked). */
  rdf?: string
  description?: string
  /** schema.org JSON-LD, already made safe for a script element (seo.ts scriptJson). */
  jsonLd?: string
  /** Seconds after which the browser reloads the page (a load in progress). */
  refresh?: number
  /** The page has maps: load the map stylesheet and scripts (the page works without them). */
  maps?: boolean
  children?: Child
}

/** CKAN's default logo path, an image this site does not serve: no logo is shown for it. */
const DEFAULT_LOGO = '/base/images/ckan-logo.png'
const DEFAULT_SITE = { title: 'CKAN', description: '', logo: '', intro: '', about: '' }

const english = translator('en')

export function Layout({ page, title, alternate, rdf, description, jsonLd, refresh, maps, children }: LayoutProps) {
  const site = page ? siteInfo(page) : DEFAULT_SITE
  const user = page?.ctx.user?.name
  const full = title ? `${title} - ${site.title}` : site.title
  const t = page?.t ?? english
  // this page in each offered language: /<locale> + its path (the switcher, hreflang links)
  const here = page && localizable(page.url.pathname) ? page.url.pathname + page.url.search : null
  const inLocale = (l: string) => (here === '/' ? `/${l}` : `/${l}${here}`)
  const base = page ? siteBase(page.deps.config.str('service.site_url')) : ''
  return (
    <html lang={page?.locale ?? 'en'}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{full}</title>
        {description || site.description ? (
          <meta name="description" content={(description || site.description).slice(0, 300)} />
        ) : null}
        {refresh ? <meta http-equiv="refresh" content={String(refresh)} /> : null}
        <link rel="stylesheet" href={stylesheet.path} />
        {maps ? <link rel="stylesheet" href={mapAssets.css.path} /> : null}
        {maps ? <script defer src={mapAssets.leafletJs.path} /> : null}
        {maps ? <script defer src={mapAssets.script.path} /> : null}
        {alternate ? <link rel="alternate" type="application/json" href={alternate} /> : null}
        {rdf ? <link rel="alternate" type="text/turtle" href={`${rdf}.ttl`} /> : null}
        {rdf ? <link rel="alternate" type="application/ld+json" href={`${rdf}.jsonld`} /> : null}
        {rdf ? <link rel="alternate" type="application/rdf+xml" href={`${rdf}.rdf`} /> : null}
        {page && here
          ? page.offered.map((l) => <link rel="alternate" hreflang={l} href={`${base}${inLocale(l)}`} />)
          : null}
        {page && here ? <link rel="alternate" hreflang="x-default" href={`${base}${here}`} /> : null}
        {jsonLd ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLd }} /> : null}
      </head>
      <body>
        <a class="skip" href="#content">
          {t('layout.skip')}
        </a>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/">
              {site.logo && site.logo !== DEFAULT_LOGO ? <img src={site.logo} alt="" /> : null}
              {site.title}
            </a>
            <nav aria-label={t('layout.mainNav')}>
              <ul>
                <li>
                  <a href="/dataset">{t('nav.datasets')}</a>
                </li>
                <li>
                  <a href="/organization">{t('nav.organizations')}</a>
                </li>
                <li>
                  <a href="/group">{t('nav.groups')}</a>
                </li>
                {site.about ? (
                  <li>
                    <a href="/about">{t('nav.about')}</a>
                  </li>
                ) : null}
              </ul>
            </nav>
            <form role="search" action="/dataset" method="get">
              <label class="skip" for="site-q">
                {t('search.datasets')}
              </label>
              <input id="site-q" type="search" name="q" placeholder={t('search.datasets')} />
              <button type="submit">{t('search.button')}</button>
            </form>
            {user && page ? (
              <div class="account">
                <a href={`/user/${encodeURIComponent(user)}`}>{user}</a> <a href="/dashboard">{t('nav.dashboard')}</a>
                {page.ctx.user?.sysadmin ? <a href="/ckan-admin">{t('nav.admin')}</a> : null}
                <form method="post" action="/user/logout">
                  <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
                  <button type="submit" class="link">
                    {t('nav.signOut')}
                  </button>
                </form>
              </div>
            ) : (
              <div class="account">
                <a href={page ? `/user/login?came_from=${encodeURIComponent(page.url.pathname + page.url.search)}` : '/user/login'}>{t('nav.signIn')}</a>
                {page?.deps.config.bool('service.auth.create_user_via_web') ? <a href="/user/register">{t('nav.register')}</a> : null}
              </div>
            )}
          </div>
        </header>
        <main id="content">{children}</main>
        <footer class="site">
          {site.title} · <a href="/api/3">API</a> · <a href="/api/3/action/help_show?name=package_search">{t('layout.apiHelp')}</a>
          {page && here && page.offered.length > 1 ? (
            <nav class="languages" aria-label={t('layout.language')}>
              <ul>
                {page.offered.map((l) => (
                  <li>
                    <a href={inLocale(l)} hreflang={l} lang={l} aria-current={l === page.locale ? 'true' : undefined}>
                      {LANGUAGE_NAMES[l]}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
        </footer>
      </body>
    </html>
  )
}

/** Breadcrumbs: [label, href] pairs, the last one the current page. */
export function Crumbs({ items, page }: { items: [string, string][]; page?: Page }) {
  return (
    <nav aria-label={(page?.t ?? english)('layout.breadcrumb')}>
      <ol class="crumbs">
        {items.map(([label, href], i) => (
          <li>
            {i === items.length - 1 ? (
              <a href={href} aria-current="page">
                {label}
              </a>
            ) : (
              <a href={href}>{label}</a>
            )}
          </li>
        ))}
      </ol>
    </nav>
  )
}
