/** @jsxImportSource hono/jsx */
// Pieces shared by several pages: a dataset in a list, the pager, facet lists.

import { call, type Page } from './page'
import type { Translate } from './i18n'

type Dict = Record<string, any>

/** Display names of the users behind `activities` (id → name); users the caller cannot see are left out. */
export async function actorNames(page: Page, activities: Dict[]): Promise<Map<string, string>> {
  const ids = [...new Set(activities.map((a) => a.user_id).filter((id): id is string => typeof id === 'string'))]
  const out = new Map<string, string>()
  await Promise.all(
    ids.map(async (id) => {
      try {
        const u: Dict = await call(page, 'user_show', { id })
        out.set(id, String(u.display_name || u.name))
      } catch {
        /* not readable: shown as "Someone" */
      }
    }),
  )
  return out
}

/** A stored value shown as text: strings as they are, anything else as nothing. */
export const text = (v: unknown) => (typeof v === 'string' ? v : '')

/** The first `n` characters of `s` at a word boundary, with an ellipsis when cut. */
export function excerpt(s: unknown, n = 180): string {
  const t = text(s).replace(/[#*_`>[\]()!-]+/g, ' ').replace(/\s+/g, ' ').trim()
  if (t.length <= n) return t
  const cut = t.lastIndexOf(' ', n)
  return `${t.slice(0, cut > n / 2 ? cut : n)}…`
}

export const datasetHref = (d: Dict) => `/dataset/${encodeURIComponent(text(d.name) || text(d.id))}`

export function DatasetItem({ d, t }: { d: Dict; t: Translate }) {
  const formats = [...new Set(((d.resources ?? []) as Dict[]).map((r) => text(r.format)).filter(Boolean))]
  return (
    <li>
      <h3>
        <a href={datasetHref(d)}>{text(d.title) || text(d.name)}</a>{' '}
        {d.private ? <span class="badge private">{t('common.private')}</span> : null}
      </h3>
      {d.organization?.title ? <div class="muted">{text(d.organization.title)}</div> : null}
      {d.notes ? <p>{excerpt(d.notes)}</p> : <p class="muted">{t('common.noDescription')}</p>}
      {formats.length ? (
        <div class="formats" aria-label={t('common.formats')}>
          {formats.map((f) => (
            <span class="badge">{f}</span>
          ))}
        </div>
      ) : null}
    </li>
  )
}

export function DatasetList({ items, t }: { items: Dict[]; t: Translate }) {
  return (
    <ul class="items">
      {items.map((d) => (
        <DatasetItem d={d} t={t} />
      ))}
    </ul>
  )
}

/** Page links for `count` items at `size` a page; `href(n)` is page n's URL. */
export function Pager({ page, count, size, href, t }: { page: number; count: number; size: number; href: (n: number) => string; t: Translate }) {
  const last = Math.max(1, Math.ceil(count / size))
  if (last <= 1) return null
  const shown = new Set([1, last, page - 2, page - 1, page, page + 1, page + 2].filter((n) => n >= 1 && n <= last))
  const nums = [...shown].sort((a, b) => a - b)
  return (
    <nav aria-label={t('common.pages')}>
      <ul class="pager">
        {page > 1 ? (
          <li>
            <a href={href(page - 1)} rel="prev">
              {t('common.previous')}
            </a>
          </li>
        ) : null}
        {nums.map((n, i) => (
          <>
            {i > 0 && n - nums[i - 1]! > 1 ? (
              <li>
                <span aria-hidden="true">…</span>
              </li>
            ) : null}
            <li>
              {n === page ? (
                <a href={href(n)} aria-current="page">
                  {n}
                </a>
              ) : (
                <a href={href(n)}>{n}</a>
              )}
            </li>
          </>
        ))}
        {page < last ? (
          <li>
            <a href={href(page + 1)} rel="next">
              {t('common.next')}
            </a>
          </li>
        ) : null}
      </ul>
    </nav>
  )
}

export interface FacetItem {
  name: string
  display_name: string
  count: number
}

export function FacetList({ title, items, active, href, t }: { title: string; items: FacetItem[]; active: (name: string) => boolean; href: (name: string) => string; t: Translate }) {
  if (!items.length) return null
  return (
    <section>
      <h2>{title}</h2>
      <ul>
        {items.map((f) => (
          <li>
            {active(f.name) ? (
              <a href={href(f.name)} aria-current="true" title={t('common.removeFilter')}>
                <span>{f.display_name || f.name} ✕</span> <span class="count">{f.count}</span>
              </a>
            ) : (
              <a href={href(f.name)}>
                <span>{f.display_name || f.name}</span> <span class="count">{f.count}</span>
              </a>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}

export function Markdown({ html }: { html: string }) {
  return <div class="notes" dangerouslySetInnerHTML={{ __html: html }} />
}
