/** @jsxImportSource hono/jsx */
// Accounts made and recovered in the browser, on CKAN's URLs: /user/register (user_create, as
// service.auth.create_user_via_web allows), /user/reset (a reset link mailed to the account's
// address) and /user/reset/<id>?key=… (the link's page: a new password; also where user_invite's
// invitation leads). Forms carry the CSRF token; requests that send mail or make accounts are
// limited per client address like sign-ins.
import { userByLogin } from '../../model/user'
import { NotAuthorized, ValidationError } from '../../errors'
import { mailUser, MailerNotConfigured } from '../../notify/mailer'
import { resetLink } from '../../notify/invite'
import { createResetKey, performReset, userForResetKey } from '../../model/password-reset'
import { Layout } from '../layout'
import { call, siteInfo, type Page } from '../page'
import { clientAddress, CSRF_FIELD, loginBlockedFor, recordLoginFailure, sessionCookie } from '../session'
import { readForm, type Outcome } from './account'
import { FieldError, fieldErrors, formRefused, invalid, PasswordFields, Summary, type Errors } from '../forms'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')


/** Minutes this client must wait before asking again (each ask counts, as a failed sign-in does). */
async function throttled(page: Page, what: string): Promise<number> {
  const keys = [`${what}-ip:${clientAddress(page.req)}`]
  const wait = await loginBlockedFor(page.deps, keys)
  if (!wait) await recordLoginFailure(page.deps, keys)
  return wait
}

const tooMany = (page: Page, wait: number) => page.t('register.tooMany', { n: wait })

function Notice({ text, error }: { text?: string; error?: boolean }) {
  if (!text) return null
  return (
    <p class={error ? 'error' : 'notice'} role={error ? 'alert' : 'status'}>
      {text}
    </p>
  )
}

export function registerView(page: Page, values: Dict = {}, errors: Errors = {}) {
  if (!page.deps.config.bool('service.auth.create_user_via_web')) {
    return {
      view: (
        <Layout page={page} title={page.t('nav.register')}>
          <h1>{page.t('nav.register')}</h1>
          <p>{page.t('register.closed')}</p>
        </Layout>
      ),
      status: 403,
    }
  }
  return (
    <Layout page={page} title={page.t('nav.register')}>
      <h1>{page.t('login.register')}</h1>
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action="/user/register">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="name">{page.t('register.username')}</label>
          <input id="name" name="name" type="text" autocomplete="username" required value={str(values.name)} {...invalid(errors, 'name')} />
          <FieldError errors={errors} name="name" />
        </div>
        <div>
          <label for="fullname">{page.t('common.fullName')}</label>
          <input id="fullname" name="fullname" type="text" autocomplete="name" value={str(values.fullname)} />
        </div>
        <div>
          <label for="email">{page.t('common.email')}</label>
          <input id="email" name="email" type="email" autocomplete="email" required value={str(values.email)} {...invalid(errors, 'email')} />
          <FieldError errors={errors} name="email" />
        </div>
        <PasswordFields page={page} errors={errors} />
        <div>
          <button type="submit">{page.t('register.create')}</button>
        </div>
      </form>
    </Layout>
  )
}

export async function register(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const values: Dict = { name: str(form.name).trim(), fullname: str(form.fullname).trim(), email: str(form.email).trim() }
  const password = str(form.password1)
  if (password !== str(form.password2)) return { view: registerView(page, values, { password: [page.t('password.mismatch')] }), status: 409 }
  const wait = await throttled(page, 'register')
  if (wait) return { view: registerView(page, values, { _: [tooMany(page, wait)] }), status: 429 }
  try {
    const user: Dict = await call(page, 'user_create', { ...values, password })
    // signed in as the new account straight away, as CKAN does after registering
    return { redirect: '/dashboard', cookies: [await sessionCookie(page.deps, page.url, { id: user.id })] }
  } catch (e) {
    if (e instanceof NotAuthorized) return registerView(page) as Outcome
    if (!(e instanceof ValidationError)) throw e
    return { view: registerView(page, values, fieldErrors(e)), status: 409 }
  }
}

export function resetRequestView(page: Page, opts: { notice?: string; error?: string; login?: string } = {}) {
  return (
    <Layout page={page} title={page.t('reset.title')}>
      <h1>{page.t('reset.title')}</h1>
      <Notice text={opts.notice} />
      <Notice text={opts.error} error />
      <p>{page.t('reset.intro')}</p>
      <form class="form" method="post" action="/user/reset">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="user">{page.t('common.usernameOrEmail')}</label>
          <input id="user" name="user" type="text" autocomplete="username" required value={opts.login ?? ''} />
        </div>
        <div>
          <button type="submit">{page.t('reset.request')}</button>
        </div>
      </form>
    </Layout>
  )
}

export async function requestReset(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const login = str(form.user).trim()
  const wait = await throttled(page, 'reset')
  if (wait) return { view: resetRequestView(page, { error: tooMany(page, wait), login }), status: 429 }
  const user = await userByLogin(page.deps, login)
  if (user && user.email && (user.state === 'active' || user.state === 'pending')) {
    const key = await createResetKey(page.ctx, user)
    const site = siteInfo(page).title
    const link = resetLink(page.deps.config.str('service.site_url'), user.id, key)
    const body = [
      `Hello ${user.fullname || user.name},`,
      '',
      `Someone (probably you) asked to reset the password of your account "${user.name}" on ${site}.`,
      'Choose a new password on this page:',
      '',
      `   ${link}`,
      '',
      'If you did not ask for this, ignore this e-mail: your password stays as it is.',
      '',
      '--',
      `${site} (${page.deps.config.str('service.site_url')})`,
      '',
    ].join('\n')
    try {
      await mailUser(page.deps.mailer, user, { subject: `Reset your password - ${site}`, body })
    } catch (e) {
      if (e instanceof MailerNotConfigured) return { view: resetRequestView(page, { error: page.t('reset.noMail'), login }), status: 503 }
      throw e
    }
  }
  // the same answer whether or not there is such an account
  return { view: resetRequestView(page, { notice: page.t('reset.sent') }) }
}

function invalidLinkView(page: Page) {
  return {
    view: (
      <Layout page={page} title={page.t('reset.invalidTitle')}>
        <h1>{page.t('reset.invalidHeading')}</h1>
        <p>
          {page.t('reset.invalidText')} <a href="/user/reset">{page.t('reset.askNew')}</a>
        </p>
      </Layout>
    ),
    status: 404,
  }
}

function resetFormView(page: Page, id: string, key: string, user: Dict, errors: Errors = {}) {
  const pending = user.state === 'pending'
  return (
    <Layout page={page} title={pending ? page.t('reset.choose') : page.t('reset.chooseNew')}>
      <h1>{pending ? page.t('reset.choose') : page.t('reset.chooseNew')}</h1>
      <p>{page.t('reset.forAccount', { name: str(user.name) })}</p>
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action={`/user/reset/${encodeURIComponent(id)}`}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <input type="hidden" name="key" value={key} />
        <PasswordFields page={page} errors={errors} />
        <div>
          <button type="submit">{page.t('reset.update')}</button>
        </div>
      </form>
    </Layout>
  )
}

export async function resetView(page: Page, id: string): Promise<Outcome> {
  const key = page.url.searchParams.get('key') ?? ''
  const user = await userForResetKey(page.ctx, id, key)
  if (!user) return invalidLinkView(page)
  return { view: resetFormView(page, id, key, user) }
}

export async function resetPassword(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const key = str(form.key)
  const user = await userForResetKey(page.ctx, id, key)
  if (!user) return invalidLinkView(page)
  try {
    await performReset(page.ctx, user, str(form.password1), str(form.password2))
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: resetFormView(page, id, key, user, fieldErrors(e)), status: 409 }
  }
  return { redirect: '/dashboard', cookies: [await sessionCookie(page.deps, page.url, user)] }
}
