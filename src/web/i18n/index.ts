// The pages' own text in the visitor's language: message catalogues in ICU MessageFormat
// (intl-messageformat, which interprets messages without eval, so it runs in workerd too), the
// locale chosen as CKAN does (a /<locale>/ URL prefix, else Accept-Language, else
// ckan.locale_default, among ckan.locales_offered), and the links of a page kept under its prefix.
// Messages that actions return (validation errors) are shown as the API gives them.
import { IntlMessageFormat } from 'intl-messageformat'
import type { Config } from '../../config/load'
import { de } from './de'
import { en, type MessageKey } from './en'
import { es } from './es'
import { fr } from './fr'

export type { MessageKey } from './en'

/** Every locale with a catalogue; ckan.locales_offered picks among them. */
export const LOCALES = ['en', 'fr', 'de', 'es'] as const
export type Locale = (typeof LOCALES)[number]

export const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { en, fr, de, es }

/** Each language named in itself, for the switcher. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', fr: 'Français', de: 'Deutsch', es: 'Español' }

export const isLocale = (s: string): s is Locale => (LOCALES as readonly string[]).includes(s)

/** ckan.locales_offered among the locales with a catalogue (all of them when it names none). */
export function offeredLocales(config: Config): Locale[] {
  const wanted = config.list('service.locales_offered').map((l) => l.toLowerCase().replace('_', '-'))
  const offered = LOCALES.filter((l) => wanted.some((w) => w === l || w.startsWith(`${l}-`)))
  return offered.length ? offered : [...LOCALES]
}

/** ckan.locale_default if it is offered, else the first offered locale. */
export function defaultLocale(config: Config, offered: Locale[]): Locale {
  const d = config.str('service.locale_default').toLowerCase().split(/[-_]/)[0] ?? ''
  return offered.find((l) => l === d) ?? offered[0] ?? 'en'
}

/** The offered locale an Accept-Language header likes best (q-values honoured; `fr-CA` counts as `fr`), or null. */
export function fromAcceptLanguage(header: string | null | undefined, offered: Locale[]): Locale | null {
  if (!header) return null
  const ranges = header
    .split(',')
    .slice(0, 50)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)).find(Boolean)
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q[1]) : 1, i }
    })
    .filter((r) => r.tag && Number.isFinite(r.q) && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
  for (const r of ranges) {
    const base = r.tag.split('-')[0]!
    const hit = offered.find((l) => l === base)
    if (hit) return hit
  }
  return null
}

// Requests re-dispatched without their /<locale> prefix (mount.tsx), and the locale it named
const prefixed = new WeakMap<Request, Locale>()
export const markPrefixed = (req: Request, locale: Locale) => void prefixed.set(req, locale)
export const prefixOf = (req: Request): Locale | undefined => prefixed.get(req)

export interface Language {
  locale: Locale
  /** '' when the locale came from the header or the default, else `/<locale>` (kept on links). */
  prefix: string
  offered: Locale[]
}

/** The request's language: its URL prefix, else Accept-Language, else the default, among those offered. */
export function chooseLanguage(config: Config, req: Request): Language {
  const offered = offeredLocales(config)
  const p = prefixOf(req)
  if (p && offered.includes(p)) return { locale: p, prefix: `/${p}`, offered }
  const locale = fromAcceptLanguage(req.headers.get('accept-language'), offered) ?? defaultLocale(config, offered)
  return { locale, prefix: '', offered }
}

export type Values = Record<string, string | number | Date>
export type Translate = (key: MessageKey, values?: Values) => string

const compiled = new Map<string, IntlMessageFormat>()

/** `t(key, values)` in `locale` (English where a catalogue lacks the key; the key itself where English does too). */
export function translator(locale: Locale): Translate {
  return (key, values) => {
    const id = `${locale}\u0000${key}`
    let f = compiled.get(id)
    if (!f) {
      const source = CATALOGUES[locale][key] ?? CATALOGUES.en[key]
      if (source === undefined) return key
      f = new IntlMessageFormat(source, locale, undefined, { ignoreTag: true })
      compiled.set(id, f)
    }
    return String(f.format(values))
  }
}

/** Dates in the page's locale: `date` alone, or with the time (UTC, as stored). Not a date: '' . */
const dates = new Map<Locale, (v: unknown, withTime?: boolean) => string>()
export function dateFormatter(locale: Locale) {
  let f = dates.get(locale)
  if (!f) dates.set(locale, (f = makeDateFormatter(locale)))
  return f
}

function makeDateFormatter(locale: Locale) {
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' })
  const time = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
  return (v: unknown, withTime = false): string => {
    if (typeof v !== 'string' || !v) return ''
    // stored timestamps are UTC without a zone (CKAN's): read them as UTC
    const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) || !v.includes('T') ? v : `${v}Z`)
    return Number.isNaN(d.getTime()) ? v : (withTime ? time : day).format(d)
  }
}

/** Numbers in the page's locale (1,234 / 1 234 / 1.234). */
const numbers = new Map<Locale, (n: unknown) => string>()
export function numberFormatter(locale: Locale) {
  let f = numbers.get(locale)
  if (!f) {
    const nf = new Intl.NumberFormat(locale)
    numbers.set(locale, (f = (n: unknown) => nf.format(Number(n ?? 0))))
  }
  return f
}

/** Whether a site path is a page that answers under a locale prefix (not the API, files, dumps or feeds). */
export function localizable(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//')) return false
  const p = path.split(/[?#]/)[0]!
  const first = p.split('/')[1] ?? ''
  if (isLocale(first)) return false // already under a prefix (the switcher, hreflang links)
  if (['api', 'datastore', 'static', 'base', 'uploads', 'catalog', 'sitemap.xml', 'robots.txt'].includes(first)) return false
  if (p.includes('/download') || /\.[A-Za-z0-9]+$/.test(p)) return false
  return true
}

/** `path` under the page's prefix if it is a page. */
export const localPath = (prefix: string, path: string) => (prefix && localizable(path) ? (path === '/' ? prefix : prefix + path) : path)

/**
 * The rendered page's root-relative `href` and `action` targets under `prefix`. JSX escapes `"`
 * in text and attribute values, so ` href="/` only ever starts a real attribute.
 */
export function prefixLinks(html: string, prefix: string): string {
  if (!prefix) return html
  return html.replace(/ (href|action)="(\/[^"]*)"/g, (all, attr: string, path: string) => {
    const p = path.replaceAll('&amp;', '&')
    return localizable(p) ? ` ${attr}="${localPath(prefix, path)}"` : all
  })
}
