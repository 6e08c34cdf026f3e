/** @jsxImportSource hono/jsx */
// A user's own settings, on CKAN's URLs: /user/edit/<name> (profile, e-mail, notifications,
// password: user_update, the current password asked for a new password or e-mail) and
// /user/<name>/api-tokens (api_token_list / _create / _revoke: a new token is shown once). The user
// themself or a sysadmin; for anyone else the pages are the 404 page.
import { ValidationError } from '../../errors'
import { requireSelfOrSysadmin } from '../../auth/user'
import { requireTokenAmong } from '../../auth/api-token'
import { verifyPassword } from '../../lib/password'
import { findUser } from '../../model/user'
import { text } from '../components'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import { CSRF_FIELD } from '../session'
import { readForm, type Outcome } from './account'
import { FieldError, fieldErrors, formRefused, invalid, PasswordFields, PostButton, Summary, type Errors } from '../forms'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')


/** The user `id` (with private fields), if the caller is that user or a sysadmin. */
export async function ownAccount(page: Page, id: string): Promise<Dict> {
  const u: Dict = await call(page, 'user_show', { id })
  requireSelfOrSysadmin(page.ctx, u as { id: string })
  return u
}

export const userHref = (u: Dict) => `/user/${encodeURIComponent(u.name)}`

export function SettingsNav({ u, page }: { u: Dict; page: Page }) {
  return (
    <p>
      <a href={`/user/edit/${encodeURIComponent(u.name)}`}>{page.t('settings.profile')}</a> · <a href={`${userHref(u)}/api-tokens`}>{page.t('user.apiTokens')}</a> ·{' '}
      <a href={`${userHref(u)}/webhooks`}>{page.t('webhooks.heading')}</a>
    </p>
  )
}

export async function editUserView(page: Page, id: string, values?: Dict, errors: Errors = {}, saved = false) {
  const u = await ownAccount(page, id)
  const v = values ?? { fullname: str(u.fullname), email: str(u.email), about: str(u.about), notify: u.activity_streams_email_notifications ? 'on' : '' }
  const self = page.ctx.user!.id === u.id
  return (
    <Layout page={page} title={page.t('manage.editTitle', { title: text(u.name) })}>
      <Crumbs page={page} items={[[text(u.display_name) || text(u.name), userHref(u)], [page.t('common.edit'), `/user/edit/${encodeURIComponent(u.name)}`]]} />
      <h1>{page.t('manage.editHeading', { title: text(u.name) })}</h1>
      <SettingsNav u={u} page={page} />
      {saved ? (
        <p class="notice" role="status">
          {page.t('settings.saved')}
        </p>
      ) : null}
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action={`/user/edit/${encodeURIComponent(u.name)}`}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="fullname">{page.t('common.fullName')}</label>
          <input id="fullname" name="fullname" type="text" autocomplete="name" value={str(v.fullname)} />
        </div>
        <div>
          <label for="email">{page.t('common.email')}</label>
          <input id="email" name="email" type="email" autocomplete="email" required value={str(v.email)} {...invalid(errors, 'email')} />
          <FieldError errors={errors} name="email" />
        </div>
        <div>
          <label for="about">{page.t('settings.about')}</label>
          <textarea id="about" name="about" rows={4} {...invalid(errors, 'about')}>
            {str(v.about)}
          </textarea>
          <FieldError errors={errors} name="about" />
        </div>
        <div>
          <label for="notify">
            <input id="notify" name="activity_streams_email_notifications" type="checkbox" checked={v.notify === 'on'} /> {page.t('settings.notify')}
          </label>
        </div>
        <h2>{page.t('settings.changePassword')}</h2>
        <PasswordFields page={page} errors={errors} label={page.t('settings.newPassword')} required={false} />
        <div>
          <label for="old_password">{self ? page.t('settings.currentPassword') : page.t('settings.sysadminPassword')}</label>
          <input id="old_password" name="old_password" type="password" autocomplete="current-password" {...invalid(errors, 'old_password')} />
          <FieldError errors={errors} name="old_password" />
        </div>
        <div>
          <button type="submit">{page.t('settings.update')}</button> <a href={userHref(u)}>{page.t('common.cancel')}</a>
        </div>
      </form>
    </Layout>
  )
}

export async function updateUser(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const u = await ownAccount(page, id)
  const values: Dict = {
    fullname: str(form.fullname).trim(),
    email: str(form.email).trim(),
    about: str(form.about),
    notify: form.activity_streams_email_notifications ? 'on' : '',
  }
  const password = str(form.password1)
  const errors: Errors = {}
  if (password && password !== str(form.password2)) errors.password = [page.t('password.mismatch')]
  // ckan: a new password or e-mail needs the password of whoever is signed in
  if (password || values.email !== str(u.email)) {
    const me = await findUser(page.ctx, page.ctx.user!.id)
    const ok = !!me?.password_hash && (await verifyPassword(str(form.old_password), me.password_hash))
    if (!ok) errors.old_password = [page.t('settings.oldPasswordWrong')]
  }
  if (Object.keys(errors).length) return { view: await editUserView(page, id, values, errors), status: 409 }
  try {
    await call(page, 'user_update', {
      id: u.id,
      fullname: values.fullname,
      email: values.email,
      about: values.about,
      activity_streams_email_notifications: values.notify === 'on',
      ...(password ? { password } : {}),
    })
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await editUserView(page, id, values, fieldErrors(e)), status: 409 }
  }
  return { view: await editUserView(page, id, undefined, {}, true) }
}

export async function apiTokensView(page: Page, id: string, created?: { name: string; token: string }, errors: Errors = {}) {
  const u = await ownAccount(page, id)
  const tokens = await call<Dict[]>(page, 'api_token_list', { user: u.name })
  const base = `${userHref(u)}/api-tokens`
  return (
    <Layout page={page} title={page.t('tokens.title', { name: text(u.name) })}>
      <Crumbs page={page} items={[[text(u.display_name) || text(u.name), userHref(u)], [page.t('user.apiTokens'), base]]} />
      <h1>{page.t('user.apiTokens')}</h1>
      <SettingsNav u={u} page={page} />
      {created ? (
        <section class="notice" role="status">
          <p>
            {page.t('tokens.created', { name: created.name })} {page.t('tokens.header')} <code>Authorization</code>
          </p>
          <p>
            <label for="new-token">{page.t('tokens.yours')}</label>
            <input id="new-token" class="token" type="text" readonly value={created.token} />
          </p>
        </section>
      ) : null}
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action={base}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="token-name">{page.t('tokens.newName')}</label>
          <input id="token-name" name="name" type="text" required {...invalid(errors, 'name')} />
          <FieldError errors={errors} name="name" />
        </div>
        <div>
          <label for="token-scopes">{page.t('tokens.scopes')}</label>
          <input id="token-scopes" name="scopes" type="text" aria-describedby="token-scopes-hint" {...invalid(errors, 'scopes')} />
          <p id="token-scopes-hint" class="muted">{page.t('tokens.scopesHint')}</p>
          <FieldError errors={errors} name="scopes" />
        </div>
        <div>
          <button type="submit">{page.t('tokens.create')}</button>
        </div>
      </form>
      <h2>{page.t('tokens.list')}</h2>
      {tokens.length ? (
        <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">{page.t('common.name')}</th>
              <th scope="col">{page.t('dataset.created')}</th>
              <th scope="col">{page.t('tokens.lastUsed')}</th>
              <th scope="col">{page.t('tokens.scopesColumn')}</th>
              <th scope="col">
                <span class="visually-hidden">{page.t('tokens.revoke')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((tk) => (
              <tr>
                <td>{text(tk.name)}</td>
                <td>{page.date(tk.created_at, true)}</td>
                <td>{tk.last_access ? page.date(tk.last_access, true) : page.t('tokens.never')}</td>
                <td>{Array.isArray(tk.scopes) ? tk.scopes.map((sc: string) => <code class="scope">{sc}</code>) : <span class="muted">{page.t('tokens.allRights')}</span>}</td>
                <td>
                  <PostButton page={page} action={`${base}/${encodeURIComponent(tk.id)}/revoke`} label={page.t('tokens.revoke')} ariaLabel={page.t('tokens.revokeWho', { name: text(tk.name) })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      ) : (
        <p class="muted">{page.t('tokens.none')}</p>
      )}
    </Layout>
  )
}

export async function createApiToken(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const u = await ownAccount(page, id)
  const name = str(form.name).trim()
  const scopes = str(form.scopes).trim()
  try {
    const r: Dict = await call(page, 'api_token_create', { user: u.name, name, ...(scopes && { scopes }) })
    return { view: await apiTokensView(page, id, { name, token: str(r.token) }) }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await apiTokensView(page, id, undefined, fieldErrors(e)), status: 409 }
  }
}

export async function revokeApiToken(page: Page, id: string, jti: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const u = await ownAccount(page, id)
  // only a token of this user (api_token_revoke lets a sysadmin revoke anyone's)
  const tokens = await call<Dict[]>(page, 'api_token_list', { user: u.name })
  requireTokenAmong(tokens, jti)
  await call(page, 'api_token_revoke', { jti })
  return { redirect: `${userHref(u)}/api-tokens` }
}
