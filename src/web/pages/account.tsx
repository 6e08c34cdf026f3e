/** @jsxImportSource hono/jsx */
// Sign-in, sign-out and the dashboard.
import { userByLogin } from '../../model/user'
import { verifyPassword } from '../../lib/password'
import { readDataDict } from '../../http/params'
import { bodyLimits } from '../../http/body-limits'
import { DatasetList, actorNames } from '../components'
import { Layout } from '../layout'
import { call, type Page } from '../page'
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
  return (
    <Layout page={page} title="Sign in">
      <h1>Sign in</h1>
      {opts.error ? (
        <p class="error" role="alert">
          {opts.error}
        </p>
      ) : null}
      <form class="form" method="post" action="/user/login">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <input type="hidden" name="came_from" value={safeReturn(opts.cameFrom ?? page.url.searchParams.get('came_from'))} />
        <div>
          <label for="login">Username or email</label>
          <input id="login" name="login" type="text" autocomplete="username" required value={opts.login ?? ''} />
        </div>
        <div>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <div>
          <button type="submit">Sign in</button>
        </div>
      </form>
      <p>
        <a href="/user/reset">Forgot your password?</a>
        {page.deps.config.bool('service.auth.create_user_via_web') ? (
          <>
            {' · '}
            <a href="/user/register">Register for an account</a>
          </>
        ) : null}
      </p>
    </Layout>
  )
}

export function formExpiredView(page: Page) {
  return (
    <Layout page={page} title="Form expired">
      <h1>The form could not be accepted</h1>
      <p>It has expired or did not come from this site. Go back, reload the page and try again.</p>
    </Layout>
  )
}

/** The posted form's fields (the Action API's reader: its size and shape limits hold here too). */
export const readForm = (page: Page) => readDataDict(page.req, false, bodyLimits(page.deps.config))

export type Outcome = { redirect: string; cookies?: string[] } | { view: unknown; status?: number }

export async function login(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  if (!csrfOk(page.req, form[CSRF_FIELD], page.deps.config.str('service.site_url'))) return { view: formExpiredView(page), status: 403 }
  const login = typeof form.login === 'string' ? form.login.trim() : ''
  const password = typeof form.password === 'string' ? form.password : ''
  const cameFrom = safeReturn(form.came_from)
  const keys = [`user:${login.toLowerCase()}`, `ip:${clientAddress(page.req)}`]
  const wait = await loginBlockedFor(page.deps, keys)
  if (wait) {
    return { view: loginView(page, { error: `Too many failed sign-ins. Try again in ${wait} minute${wait === 1 ? '' : 's'}.`, login, cameFrom }), status: 429 }
  }
  const user = await userByLogin(page.deps, login)
  const good = !!user && user.state === 'active' && !!user.password_hash && (await verifyPassword(password, user.password_hash))
  if (!good) {
    await recordLoginFailure(page.deps, keys)
    return { view: loginView(page, { error: 'Login failed. Bad username or password.', login, cameFrom }), status: 200 }
  }
  await clearLoginFailures(page.deps, keys)
  return { redirect: cameFrom, cookies: [await sessionCookie(page.deps, page.url, user!)] }
}

export async function logout(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  if (!csrfOk(page.req, form[CSRF_FIELD], page.deps.config.str('service.site_url'))) return { view: formExpiredView(page), status: 403 }
  return { redirect: '/', cookies: [clearSessionCookie(page.url)] }
}

export function activityText(a: Dict): string {
  const type = String(a.activity_type ?? '')
  const [verb, ...rest] = type.split(' ')
  const what = rest.join(' ').replace('package', 'dataset')
  const past = verb === 'new' ? 'created' : verb === 'deleted' ? 'deleted' : verb === 'changed' ? 'updated' : verb
  const title = a.data?.package?.title ?? a.data?.group?.title ?? a.data?.user?.name ?? ''
  return `${past} the ${what}${title ? ` ${title}` : ''}`
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
  return (
    <Layout page={page} title="Dashboard">
      <h1>Dashboard</h1>
      <p>
        <strong>{count}</strong> new {count === 1 ? 'activity' : 'activities'} from what you follow.
      </p>
      <h2>News feed</h2>
      {activity.length ? (
        <ul class="items">
          {activity.map((a) => (
            <li>
              {a.is_new ? <span class="badge">New</span> : null} <span>{names.get(a.user_id) ?? 'Someone'}</span> {activityText(a)}{' '}
              <span class="muted">{String(a.timestamp ?? '').slice(0, 16).replace('T', ' ')}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p>Nothing yet. Follow datasets, organizations, groups or users to see their changes here.</p>
      )}
      <h2>Following</h2>
      {followed.length ? (
        <ul>
          {followed.map((f) => (
            <li>
              <a href={`/${f.type === 'dataset' ? 'dataset' : f.type}/${encodeURIComponent(f.dict?.name ?? '')}`}>{String(f.display_name ?? f.dict?.name ?? '')}</a>{' '}
              <span class="muted">({String(f.type)})</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">You follow nothing yet.</p>
      )}
      <h2>Your datasets</h2>
      {mine.results.length ? <DatasetList items={mine.results} /> : <p class="muted">You have created no datasets.</p>}
    </Layout>
  )
}
