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
async function ownAccount(page: Page, id: string): Promise<Dict> {
  const u: Dict = await call(page, 'user_show', { id })
  requireSelfOrSysadmin(page.ctx, u as { id: string })
  return u
}

const userHref = (u: Dict) => `/user/${encodeURIComponent(u.name)}`

function SettingsNav({ u }: { u: Dict }) {
  return (
    <p>
      <a href={`/user/edit/${encodeURIComponent(u.name)}`}>Profile</a> · <a href={`${userHref(u)}/api-tokens`}>API tokens</a>
    </p>
  )
}

export async function editUserView(page: Page, id: string, values?: Dict, errors: Errors = {}, saved = false) {
  const u = await ownAccount(page, id)
  const v = values ?? { fullname: str(u.fullname), email: str(u.email), about: str(u.about), notify: u.activity_streams_email_notifications ? 'on' : '' }
  const self = page.ctx.user!.id === u.id
  return (
    <Layout page={page} title={`Edit - ${text(u.name)}`}>
      <Crumbs items={[[text(u.display_name) || text(u.name), userHref(u)], ['Edit', `/user/edit/${encodeURIComponent(u.name)}`]]} />
      <h1>Edit {text(u.name)}</h1>
      <SettingsNav u={u} />
      {saved ? (
        <p class="notice" role="status">
          Profile updated.
        </p>
      ) : null}
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action={`/user/edit/${encodeURIComponent(u.name)}`}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="fullname">Full name</label>
          <input id="fullname" name="fullname" type="text" autocomplete="name" value={str(v.fullname)} />
        </div>
        <div>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="email" required value={str(v.email)} {...invalid(errors, 'email')} />
          <FieldError errors={errors} name="email" />
        </div>
        <div>
          <label for="about">About (Markdown, no links)</label>
          <textarea id="about" name="about" rows={4} {...invalid(errors, 'about')}>
            {str(v.about)}
          </textarea>
          <FieldError errors={errors} name="about" />
        </div>
        <div>
          <label for="notify">
            <input id="notify" name="activity_streams_email_notifications" type="checkbox" checked={v.notify === 'on'} /> E-mail me a digest of what
            changes on my dashboard
          </label>
        </div>
        <h2>Change password</h2>
        <PasswordFields errors={errors} label="New password (left empty: unchanged)" required={false} />
        <div>
          <label for="old_password">{self ? 'Your current password' : 'Your (sysadmin) password'} (needed to change the password or e-mail)</label>
          <input id="old_password" name="old_password" type="password" autocomplete="current-password" {...invalid(errors, 'old_password')} />
          <FieldError errors={errors} name="old_password" />
        </div>
        <div>
          <button type="submit">Update profile</button> <a href={userHref(u)}>Cancel</a>
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
  if (password && password !== str(form.password2)) errors.password = ['The passwords you entered do not match']
  // ckan: a new password or e-mail needs the password of whoever is signed in
  if (password || values.email !== str(u.email)) {
    const me = await findUser(page.ctx, page.ctx.user!.id)
    const ok = !!me?.password_hash && (await verifyPassword(str(form.old_password), me.password_hash))
    if (!ok) errors.old_password = ['Old password incorrect']
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
    <Layout page={page} title={`API tokens - ${text(u.name)}`}>
      <Crumbs items={[[text(u.display_name) || text(u.name), userHref(u)], ['API tokens', base]]} />
      <h1>API tokens</h1>
      <SettingsNav u={u} />
      {created ? (
        <section class="notice" role="status">
          <p>
            Token <strong>{created.name}</strong> created. Copy it now: it is not shown again. Send it in the <code>Authorization</code> header of API
            requests.
          </p>
          <p>
            <label for="new-token">Your new token</label>
            <input id="new-token" class="token" type="text" readonly value={created.token} />
          </p>
        </section>
      ) : null}
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action={base}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="token-name">Name of a new token</label>
          <input id="token-name" name="name" type="text" required {...invalid(errors, 'name')} />
          <FieldError errors={errors} name="name" />
        </div>
        <div>
          <button type="submit">Create API token</button>
        </div>
      </form>
      <h2>Tokens</h2>
      {tokens.length ? (
        <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((tk) => (
              <tr>
                <td>{text(tk.name)}</td>
                <td>{text(tk.created_at).slice(0, 16).replace('T', ' ')}</td>
                <td>{tk.last_access ? text(tk.last_access).slice(0, 16).replace('T', ' ') : 'never'}</td>
                <td>
                  <PostButton page={page} action={`${base}/${encodeURIComponent(tk.id)}/revoke`} label="Revoke" ariaLabel={`Revoke ${text(tk.name)}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      ) : (
        <p class="muted">No tokens yet.</p>
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
  try {
    const r: Dict = await call(page, 'api_token_create', { user: u.name, name })
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
