/** @jsxImportSource hono/jsx */
// /user/<name>/webhooks (beyond CKAN): a user's webhooks through the webhook_* actions: the list
// with a form for a new one, a test event and deletion each, and a page per webhook with its
// secret and its deliveries. The user themself or a sysadmin (webhook_list with user).
import { ValidationError } from '../../errors'
import { text } from '../components'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import { CSRF_FIELD } from '../session'
import { readForm, type Outcome } from './account'
import { FieldError, fieldErrors, formRefused, invalid, PostButton, Summary, type Errors } from '../forms'
import { ownAccount, SettingsNav, userHref } from './user-settings'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v))

export async function webhooksView(page: Page, id: string, errors: Errors = {}, values: Dict = {}) {
  const u = await ownAccount(page, id)
  const hooks = await call<Dict[]>(page, 'webhook_list', { user: u.name })
  const base = `${userHref(u)}/webhooks`
  const t = page.t
  return (
    <Layout page={page} title={t('webhooks.title', { name: text(u.name) })}>
      <Crumbs page={page} items={[[text(u.display_name) || text(u.name), userHref(u)], [t('webhooks.heading'), base]]} />
      <h1>{t('webhooks.heading')}</h1>
      <SettingsNav u={u} page={page} />
      <p>{t('webhooks.intro')}</p>
      <Summary errors={errors} page={page} />
      <form class="form" method="post" action={base}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <label for="hook-url">{t('webhooks.url')}</label>
          <input id="hook-url" name="url" type="url" required value={str(values.url)} {...invalid(errors, 'url')} />
          <FieldError errors={errors} name="url" />
        </div>
        <div>
          <label for="hook-events">{t('webhooks.events')}</label>
          <input id="hook-events" name="events" type="text" value={str(values.events)} aria-describedby="hook-events-hint" {...invalid(errors, 'events')} />
          <p id="hook-events-hint" class="muted">{t('webhooks.eventsHint')}</p>
          <FieldError errors={errors} name="events" />
        </div>
        <div>
          <button type="submit">{t('webhooks.create')}</button>
        </div>
      </form>
      <h2>{t('webhooks.list')}</h2>
      {hooks.length ? (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('webhooks.url')}</th>
                <th scope="col">{t('webhooks.events')}</th>
                <th scope="col">{t('webhooks.state')}</th>
                <th scope="col">
                  <span class="visually-hidden">{t('webhooks.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {hooks.map((h) => (
                <tr>
                  <td>
                    <a href={`${base}/${encodeURIComponent(h.id)}`}>{text(h.url)}</a>
                  </td>
                  <td>{Array.isArray(h.events) ? h.events.join(', ') : t('webhooks.allEvents')}</td>
                  <td>{!h.active ? t('webhooks.off') : h.failing_since ? t('webhooks.failing', { since: page.date(h.failing_since, true) }) : t('webhooks.on')}</td>
                  <td>
                    <PostButton page={page} action={`${base}/${encodeURIComponent(h.id)}/test`} label={t('webhooks.test')} ariaLabel={t('webhooks.testWho', { url: text(h.url) })} />{' '}
                    <PostButton page={page} action={`${base}/${encodeURIComponent(h.id)}/delete`} label={t('webhooks.delete')} ariaLabel={t('webhooks.deleteWho', { url: text(h.url) })} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">{t('webhooks.none')}</p>
      )}
    </Layout>
  )
}

export async function webhookView(page: Page, id: string, hookId: string) {
  const u = await ownAccount(page, id)
  const hook: Dict = await call(page, 'webhook_show', { id: hookId })
  if (hook.user_id !== u.id) return null
  const deliveries = await call<Dict[]>(page, 'webhook_deliveries_list', { id: hook.id, limit: 50 })
  const base = `${userHref(u)}/webhooks`
  const t = page.t
  return (
    <Layout page={page} title={t('webhooks.one', { url: text(hook.url) })}>
      <Crumbs page={page} items={[[text(u.display_name) || text(u.name), userHref(u)], [t('webhooks.heading'), base], [text(hook.url), `${base}/${encodeURIComponent(hook.id)}`]]} />
      <h1>{t('webhooks.one', { url: text(hook.url) })}</h1>
      <dl>
        <dt>{t('webhooks.events')}</dt>
        <dd>{Array.isArray(hook.events) ? hook.events.join(', ') : t('webhooks.allEvents')}</dd>
        <dt>{t('webhooks.state')}</dt>
        <dd>{hook.active ? t('webhooks.on') : `${t('webhooks.off')}${hook.disabled_reason ? ` (${text(hook.disabled_reason)})` : ''}`}</dd>
        <dt>
          <label for="hook-secret">{t('webhooks.secret')}</label>
        </dt>
        <dd>
          <input id="hook-secret" class="token" type="text" readonly value={str(hook.secret)} />
        </dd>
      </dl>
      <h2>{t('webhooks.deliveries')}</h2>
      {deliveries.length ? (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('webhooks.event')}</th>
                <th scope="col">{t('webhooks.status')}</th>
                <th scope="col">{t('webhooks.attempts')}</th>
                <th scope="col">{t('webhooks.answer')}</th>
                <th scope="col">{t('webhooks.lastAttempt')}</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr>
                  <td>
                    <code>{text(d.event)}</code>
                  </td>
                  <td>{text(d.status)}</td>
                  <td>{page.num(d.attempts)}</td>
                  <td>{d.response_code ? `HTTP ${d.response_code}` : text(d.error ?? '')}</td>
                  <td>{d.last_attempt ? page.date(d.last_attempt, true) : t('tokens.never')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">{t('webhooks.noDeliveries')}</p>
      )}
    </Layout>
  )
}

export async function createWebhook(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const u = await ownAccount(page, id)
  const values = { url: str(form.url).trim(), events: str(form.events).trim() }
  try {
    const hook: Dict = await call(page, 'webhook_create', { url: values.url, ...(values.events && { events: values.events }) })
    return { redirect: `${userHref(u)}/webhooks/${encodeURIComponent(hook.id)}` }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await webhooksView(page, id, fieldErrors(e), values), status: 409 }
  }
}

/** Test or delete one of the user's webhooks from the list. */
export async function webhookAction(page: Page, id: string, hookId: string, what: 'test' | 'delete'): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const u = await ownAccount(page, id)
  const hook: Dict = await call(page, 'webhook_show', { id: hookId })
  if (hook.user_id !== u.id) return { redirect: `${userHref(u)}/webhooks` }
  await call(page, what === 'test' ? 'webhook_test' : 'webhook_delete', { id: hook.id })
  return { redirect: what === 'test' ? `${userHref(u)}/webhooks/${encodeURIComponent(hook.id)}` : `${userHref(u)}/webhooks` }
}
