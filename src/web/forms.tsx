/** @jsxImportSource hono/jsx */
// What the pages' forms share: the action's Validation Error shown by its fields, the CSRF check of
// a posted form, a one-button POST form, a confirmation page for deletions, and password fields.
import type { ValidationError } from '../errors'
import { Crumbs, Layout } from './layout'
import type { Page } from './page'
import { CSRF_FIELD, csrfOk } from './session'
import { formExpiredView, type Outcome } from './pages/account'

export type Errors = Record<string, string[]>

/** A ValidationError's per-field messages (its `message`, if any, under "_"). */
export function fieldErrors(e: ValidationError): Errors {
  const body = e.body() as Record<string, unknown>
  const out: Errors = {}
  for (const [k, v] of Object.entries(body)) {
    if (k === '__type') continue
    out[k] = Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [typeof v === 'string' ? v : JSON.stringify(v)]
  }
  return out
}

export function FieldError({ errors, name }: { errors: Errors; name: string }) {
  const list = errors[name]
  if (!list?.length) return null
  return (
    <p class="field-error" id={`${name}-error`}>
      {list.join(' ')}
    </p>
  )
}

/** The errors at the top of a form; `labels` names a field by its key (else the key itself is shown). */
export function Summary({ errors, page, labels }: { errors: Errors; page: Page; labels?: (key: string) => string | undefined }) {
  const keys = Object.keys(errors)
  if (!keys.length) return null
  return (
    <div class="error" role="alert">
      <p>{page.t('form.invalid')}</p>
      <ul>
        {keys.map((k) => (
          <li>
            {k === 'message' || k === '_' ? '' : `${labels?.(k) ?? k}: `}
            {errors[k]!.join(' ')}
          </li>
        ))}
      </ul>
    </div>
  )
}

export const invalid = (errors: Errors, name: string) => (errors[name]?.length ? { 'aria-invalid': 'true', 'aria-describedby': `${name}-error` } : {})


/** Whether a posted form may act: its caller came by API key or token, or it carries this site's CSRF token. */
export const formTrusted = (page: Page, form: Record<string, unknown>): boolean =>
  page.byHeader || csrfOk(page.req, form[CSRF_FIELD], page.deps.config.str('service.site_url'))

/** The 403 page for a posted form whose CSRF token (or Origin) is not this site's; null when it is. */
export const formRefused = (page: Page, form: Record<string, unknown>): Outcome | null =>
  formTrusted(page, form) ? null : { view: formExpiredView(page), status: 403 }

/** A form of one button that POSTs `fields` (and the CSRF token) to `action`. */
export function PostButton(props: { page: Page; action: string; label: string; ariaLabel?: string; fields?: Record<string, string>; className?: string }) {
  return (
    <form method="post" action={props.action} class={props.className}>
      <input type="hidden" name={CSRF_FIELD} value={props.page.csrf()} />
      {Object.entries(props.fields ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button type="submit" aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </form>
  )
}

/** A page asking whether to delete `title`; its form POSTs the deletion to `action`. */
export function ConfirmDelete(props: { page: Page; what: 'dataset' | 'resource' | 'organization' | 'group'; title: string; action: string; back: string; crumbs: [string, string][] }) {
  const t = props.page.t
  return (
    <Layout page={props.page} title={t('confirm.title', { title: props.title })}>
      <Crumbs page={props.page} items={props.crumbs} />
      <h1>{t('confirm.heading', { what: props.what })}</h1>
      <p>
        {t('confirm.question', { what: props.what })} <strong>{props.title}</strong>
      </p>
      <form class="form" method="post" action={props.action}>
        <input type="hidden" name={CSRF_FIELD} value={props.page.csrf()} />
        <div>
          <button type="submit">{t('common.delete')}</button> <a href={props.back}>{t('common.cancel')}</a>
        </div>
      </form>
    </Layout>
  )
}

/** A new password and its confirmation (`password1`, `password2`); errors under `password`. */
export function PasswordFields({ page, errors, label, required = true }: { page: Page; errors: Errors; label?: string; required?: boolean }) {
  return (
    <>
      <div>
        <label for="password1">{label ?? page.t('common.password')}</label>
        <input id="password1" name="password1" type="password" autocomplete="new-password" required={required} {...invalid(errors, 'password')} />
        <FieldError errors={errors} name="password" />
      </div>
      <div>
        <label for="password2">{label ? page.t('password.confirmNew') : page.t('password.confirm')}</label>
        <input id="password2" name="password2" type="password" autocomplete="new-password" required={required} />
      </div>
    </>
  )
}

/**
 * The form that gives a user a role (an organization's or group's members, a dataset's
 * collaborators): a user name and one of `roles`, posted to `action`.
 */
export function UserRoleForm(props: { page: Page; action: string; roles: readonly string[]; roleField: string; roleLabel: string; errorField: string; errors: Errors; values: Record<string, unknown> }) {
  const { page, roles, roleField, errors, values } = props
  const text = (v: unknown) => (typeof v === 'string' ? v : '')
  return (
    <form class="form" method="post" action={props.action}>
      <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
      <div>
        <label for="username">{page.t('common.username')}</label>
        <input id="username" name="username" type="text" required value={text(values.username)} {...invalid(errors, props.errorField)} />
        <FieldError errors={errors} name={props.errorField} />
      </div>
      <div>
        <label for={roleField}>{props.roleLabel}</label>
        <select id={roleField} name={roleField}>
          {roles.map((r) => (
            <option value={r} selected={(text(values[roleField]) || 'member') === r}>
              {page.t('role.name', { role: r })}
            </option>
          ))}
        </select>
      </div>
      <div>
        <button type="submit">{page.t('common.save')}</button>
      </div>
    </form>
  )
}

/** Users with their role, each with a Remove button that posts `fields(user)` to `removeAction`. */
export function UserRoleTable(props: {
  page: Page
  roleLabel: string
  users: { href: string; label: string; role: string; fields: Record<string, string> }[]
  removeAction: string
}) {
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">{props.page.t('common.user')}</th>
            <th scope="col">{props.roleLabel}</th>
            <th scope="col">
              <span class="visually-hidden">{props.page.t('common.remove')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.users.map((u) => (
            <tr>
              <td>
                <a href={u.href}>{u.label}</a>
              </td>
              <td>{props.page.t('role.name', { role: u.role })}</td>
              <td>
                <PostButton page={props.page} action={props.removeAction} label={props.page.t('common.remove')} ariaLabel={props.page.t('common.removeWho', { name: u.label })} fields={u.fields} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
