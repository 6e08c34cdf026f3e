/** @jsxImportSource hono/jsx */
// The one layout of every page: header with the site's name, navigation and search, the page,
// a footer. Values go through JSX, which escapes them; nothing is concatenated into HTML.
import type { Child } from 'hono/jsx'
import type { SiteInfo } from './page'
import { stylesheet } from './style'

export interface LayoutProps {
  site: SiteInfo
  title: string
  user?: string | null
  /** The API call that gives this page's data as JSON (<link rel="alternate">). */
  alternate?: string
  description?: string
  /** schema.org JSON-LD, already made safe for a script element (seo.ts scriptJson). */
  jsonLd?: string
  children?: Child
}

export function Layout({ site, title, user, alternate, description, jsonLd, children }: LayoutProps) {
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
        <link rel="stylesheet" href={stylesheet.path} />
        {alternate ? <link rel="alternate" type="application/json" href={alternate} /> : null}
        {jsonLd ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLd }} /> : null}
      </head>
      <body>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/">
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
            {user ? (
              <span class="muted">
                Signed in as <a href={`/user/${encodeURIComponent(user)}`}>{user}</a>
              </span>
            ) : null}
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
