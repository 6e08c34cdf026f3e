/** @jsxImportSource hono/jsx */
// Sign-in, sign-out and the dashboard.
import { userByLogin } from '../../model/user'
import { verifyPassword } from '../../lib/password'
import { readDataDict } from '../../http/params'
import { bodyLimits } from '../../http/body-limits'
import { DatasetList, actorNames } from '../components'
import { Layout } from '../layout'
import { call, type Page } from '../page'
import type { Translate } from '../i18n'
import {
  CSRF_FIELD,
  clearLoginFailures,
  clearSessionCookie,
  clientAddress,
  csrfOk,
  loginBlockedFor,
  recordLoginFailure,
  sessionCookie,
} from '../session'

type Dict = Record<string, any>

/** A path on this site to return to after signing in (nothing absolute, nothing protocol-relative). */
export function safeReturn(v: unknown, fallback = '/dashboard'): string {
  return typeof v === 'string' && /^\/(?![/\\])/.test(v) && !/[\r\n]/.test(v) ? v : fallback
}

export function loginView(page: Page, opts: { error?: string; login?: string; cameFrom?: string } = {}) {
  const t = page.t
  return (
    <Layout page={page} title={t('login.title')}>
      <h1>{t('login.title')}</h1>
      {opts.error ? (
        <p class="error" role="alert">
          {opts.error}
        </p>
      ) : null}
      <form class="form" method="post" action="/user/login">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <input type="hidden" name="came_from" value={safeReturn(opts.cameFrom ?? page.url.searchParams.get('came_from'))} />
        <div>
          <label for="login">{t('common.usernameOrEmail')}</label>
          <input id="login" name="login" type="text" autocomplete="username" required value={opts.login ?? ''} />
        </div>
        <div>
          <label for="password">{t('common.password')}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <div>
          <button type="submit">{t('login.button')}</button>
        </div>
      </form>
      <p>
        <a href="/user/reset">{t('login.forgot')}</a>
        {page.deps.config.bool('service.auth.create_user_via_web') ? (
          <>
            {' · '}
            <a href="/user/register">{t('login.register')}</a>
          </>
        ) : null}
      </p>
    </Layout>
  )
}

export function formExpiredView(page: Page) {
  return (
    <Layout page={page} title={page.t('form.expiredTitle')}>
      <h1>{page.t('form.expiredHeading')}</h1>
      <p>{page.t('form.expiredText')}</p>
    </Layout>
  )
}

/** The posted form's fields (the Action API's reader: its size and shape limits hold here too). */
export const readForm = (page: Page) => readDataDict(page.req, false, bodyLimits(page.deps.config))

export type Outcome = { redirect: string; cookies?: string[] } | { view: unknown; status?: number }

export async function login(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  if (!page.byHeader && !csrfOk(page.req, form[CSRF_FIELD], page.deps.config.str('service.site_url'))) return { view: formExpiredView(page), status: 403 }
  const login = typeof form.login === 'string' ? form.login.trim() : ''
  const password = typeof form.password === 'string' ? form.password : ''
  const cameFrom = safeReturn(form.came_from)
  const keys = [`user:${login.toLowerCase()}`, `ip:${clientAddress(page.req)}`]
  const wait = await loginBlockedFor(page.deps, keys)
  if (wait) {
    return { view: loginView(page, { error: page.t('login.tooMany', { n: wait }), login, cameFrom }), status: 429 }
  }
  const user = await userByLogin(page.deps, login)
  const good = !!user && user.state === 'active' && !!user.password_hash && (await verifyPassword(password, user.password_hash))
  if (!good) {
    await recordLoginFailure(page.deps, keys)
    return { view: loginView(page, { error: page.t('login.failed'), login, cameFrom }), status: 200 }
  }
  await clearLoginFailures(page.deps, keys)
  return { redirect: cameFrom, cookies: [await sessionCookie(page.deps, page.url, user!)] }
}

export async function logout(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  if (!page.byHeader && !csrfOk(page.req, form[CSRF_FIELD], page.deps.config.str('service.site_url'))) return { view: formExpiredView(page), status: 403 }
  return { redirect: '/', cookies: [clearSessionCookie(page.url)] }
}

/** What an activity did, in the page's language ("created the dataset X"); `withTitle` false: without its object's title. */
export function activityText(a: Dict, t: Translate, withTitle = true): string {
  const type = String(a.activity_type ?? '')
  const [verb = '', ...rest] = type.split(' ')
  const what = rest.join(' ')
  const raw = a.data?.package?.title ?? a.data?.group?.title ?? a.data?.user?.name ?? ''
  const title = withTitle && typeof raw === 'string' ? raw : ''
  const out =
    what === 'package'
      ? t('activity.package', { verb, title })
      : what === 'organization'
        ? t('activity.organization', { verb, title })
        : what === 'group'
          ? t('activity.group', { verb, title })
          : what === 'user'
            ? t('activity.user', { verb })
            : t('activity.other', { type })
  return out.trim()
}

export async function dashboardPage(page: Page) {
  const [count, activity, followed] = await Promise.all([
    call<number>(page, 'dashboard_new_activities_count'),
    call<Dict[]>(page, 'dashboard_activity_list', { limit: 30 }),
    call<Dict[]>(page, 'followee_list', { id: page.ctx.user!.id }).catch(() => [] as Dict[]),
  ])
  const names = await actorNames(page, activity)
  const mine: Dict = await call(page, 'package_search', { fq: `creator_user_id:"${page.ctx.user!.id}"`, rows: 10, include_private: true, sort: 'metadata_modified desc' })
  // seeing the dashboard marks its activity seen, as CKAN's dashboard does
  await call(page, 'dashboard_mark_activities_old').catch(() => undefined)
  const t = page.t
  return (
    <Layout page={page} title={t('dashboard.title')}>
      <h1>{t('dashboard.title')}</h1>
      <p>
        <strong>{page.num(count)}</strong> {t('dashboard.newCount', { n: count })}
      </p>
      <h2>{t('dashboard.feed')}</h2>
      {activity.length ? (
        <ul class="items">
          {activity.map((a) => (
            <li>
              {a.is_new ? <span class="badge">{t('dashboard.new')}</span> : null} <span>{names.get(a.user_id) ?? t('common.someone')}</span> {activityText(a, t)}{' '}
              <span class="muted">{page.date(a.timestamp, true)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('dashboard.empty')}</p>
      )}
      <h2>{t('dashboard.following')}</h2>
      {followed.length ? (
        <ul>
          {followed.map((f) => (
            <li>
              <a href={`/${f.type === 'dataset' ? 'dataset' : f.type}/${encodeURIComponent(f.dict?.name ?? '')}`}>{String(f.display_name ?? f.dict?.name ?? '')}</a>{' '}
              <span class="muted">({t('dashboard.followType', { type: String(f.type) })})</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('dashboard.followNothing')}</p>
      )}
      <h2>{t('dashboard.yourDatasets')}</h2>
      {mine.results.length ? <DatasetList items={mine.results} t={t} /> : <p class="muted">{t('dashboard.noDatasets')}</p>}
    </Layout>
  )
}
