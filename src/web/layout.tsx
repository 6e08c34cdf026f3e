/** @jsxImportSource hono/jsx */
// The one layout of every page: header with the site's name, navigation and search, the page,
// a footer. Values go through JSX, which escapes them; nothing is concatenated into HTML.
import type { Child } from 'hono/jsx'
import { siteInfo, type Page } from './page'
import { CSRF_FIELD } from './session'
import { stylesheet } from './style'

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
  children?: Child
}

/** CKAN's default logo path, an image this site does not serve: no logo is shown for it. */
const DEFAULT_LOGO = '/base/images/ckan-logo.png'
const DEFAULT_SITE = { title: 'CKAN', description: '', logo: '', intro: '', about: '' }

export function Layout({ page, title, alternate, rdf, description, jsonLd, refresh, children }: LayoutProps) {
  const site = page ? siteInfo(page) : DEFAULT_SITE
  const user = page?.ctx.user?.name
  const full = title ? `${title} - ${site.title}` : site.title
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{full}</title>
        {description || site.description ? (
          <meta name="description" content={(description || site.description).slice(0, 300)} />
        ) : null}
        {refresh ? <meta http-equiv="refresh" content={String(refresh)} /> : null}
        <link rel="stylesheet" href={stylesheet.path} />
        {alternate ? <link rel="alternate" type="application/json" href={alternate} /> : null}
        {rdf ? <link rel="alternate" type="text/turtle" href={`${rdf}.ttl`} /> : null}
        {rdf ? <link rel="alternate" type="application/ld+json" href={`${rdf}.jsonld`} /> : null}
        {rdf ? <link rel="alternate" type="application/rdf+xml" href={`${rdf}.rdf`} /> : null}
        {jsonLd ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLd }} /> : null}
      </head>
      <body>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/">
              {site.logo && site.logo !== DEFAULT_LOGO ? <img src={site.logo} alt="" /> : null}
              {site.title}
            </a>
            <nav aria-label="Main">
              <ul>
                <li>
                  <a href="/dataset">Datasets</a>
                </li>
                <li>
                  <a href="/organization">Organizations</a>
                </li>
                <li>
                  <a href="/group">Groups</a>
                </li>
                {site.about ? (
                  <li>
                    <a href="/about">About</a>
                  </li>
                ) : null}
              </ul>
            </nav>
            <form role="search" action="/dataset" method="get">
              <label class="skip" for="site-q">
                Search datasets
              </label>
              <input id="site-q" type="search" name="q" placeholder="Search datasets" />
              <button type="submit">Search</button>
            </form>
            {user && page ? (
              <div class="account">
                <a href={`/user/${encodeURIComponent(user)}`}>{user}</a> <a href="/dashboard">Dashboard</a>
                <form method="post" action="/user/logout">
                  <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
                  <button type="submit" class="link">
                    Sign out
                  </button>
                </form>
              </div>
            ) : (
              <div class="account">
                <a href={page ? `/user/login?came_from=${encodeURIComponent(page.url.pathname + page.url.search)}` : '/user/login'}>Sign in</a>
                {page?.deps.config.bool('service.auth.create_user_via_web') ? <a href="/user/register">Register</a> : null}
              </div>
            )}
          </div>
        </header>
        <main id="content">{children}</main>
        <footer class="site">
          {site.title} · <a href="/api/3">API</a> · <a href="/api/3/action/help_show?name=package_search">API help</a>
        </footer>
      </body>
    </html>
  )
}

/** Breadcrumbs: [label, href] pairs, the last one the current page. */
export function Crumbs({ items }: { items: [string, string][] }) {
  return (
    <nav aria-label="Breadcrumb">
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
