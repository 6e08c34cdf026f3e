// What every web page does before rendering: the request's services and caller (the same
// requestContext as the Action API, so the same authorization), and actions called in-process.
import { callAction } from '../actions/call'
import type { ActionContext, Deps } from '../context'
import type { DataDict } from '../data-dict'
import type { DepsResolver } from '../http/deps-source'
import { requestContext } from '../http/request-context'
import { CSRF_COOKIE, cookie, newCsrfToken, readCookies, sessionUser } from './session'
import { chooseLanguage, dateFormatter, numberFormatter, translator, type Locale, type Translate } from './i18n'

export interface Page {
  deps: Deps
  ctx: ActionContext
  url: URL
  req: Request
  /** Set-Cookie values the response must carry. */
  cookies: string[]
  /**
   * The caller came from an API key or token in the request headers (not the session cookie):
   * as in CKAN 2.10, such a request needs no CSRF token (a cross-site form cannot set headers).
   */
  byHeader: boolean
  /** The CSRF token forms repeat (the cookie's, or a new one the response sets). */
  csrf(): string
  /** The page's language (i18n/index.ts): its URL prefix, else Accept-Language, else ckan.locale_default. */
  locale: Locale
  /** '' or `/<locale>` when the URL named the locale; the page's links keep it. */
  prefix: string
  /** ckan.locales_offered (the language switcher, hreflang links). */
  offered: Locale[]
  /** The page's own text in its language: t(key, values), e.g. t("common.datasetCount", { n }). */
  t: Translate
  /** A stored date (or date and time, UTC) in the page's language. */
  date(v: unknown, withTime?: boolean): string
  /** A number in the page's language. */
  num(n: unknown): string
  /** The client's address where known (usage figures' once-a-day counting; never stored). */
  address?: string
}

/** `anonymous`: the page is for everybody (sitemaps), whoever asks for it. */
export async function openPage(source: DepsResolver, req: Request, opts: { anonymous?: boolean } = {}): Promise<Page> {
  const deps = await source.of(req)
  const ctx = await requestContext(deps, opts.anonymous ? null : req.headers)
  ctx.requestUrl = req.url
  ctx.via = 'web'
  // a browser signs in with the session cookie; an API key in the headers wins (scripts, tests)
  const byHeader = !!ctx.user
  if (!ctx.user && !opts.anonymous) ctx.user = await sessionUser(deps, req)
  const url = new URL(req.url)
  const cookies: string[] = []
  let token = readCookies(req).get(CSRF_COOKIE)
  const lang = chooseLanguage(deps.config, req)
  return {
    ...lang,
    t: translator(lang.locale),
    date: dateFormatter(lang.locale),
    num: numberFormatter(lang.locale),
    deps,
    ctx,
    url,
    req,
    cookies,
    byHeader,
    csrf() {
      if (!token) {
        token = newCsrfToken()
        cookies.push(cookie(url, CSRF_COOKIE, token, 7 * 86400))
      }
      return token
    },
  }
}

/** Runs action `name` as the page's caller: its errors (Not Found, Authorization…) propagate. */
export function call<R = any>(page: Page, name: string, data: DataDict = {}): Promise<R> {
  return callAction<R>(page.ctx, name, data)
}

/** The site's settings a layout shows (runtime-editable through config_option_update). */
export function siteInfo(page: Page) {
  const c = page.deps.config
  return {
    title: c.str('service.site_title'),
    description: c.str('service.site_description'),
    logo: c.str('service.site_logo'),
    intro: c.str('service.site_intro_text'),
    about: c.str('service.site_about'),
  }
}

export type SiteInfo = ReturnType<typeof siteInfo>
