/** @jsxImportSource hono/jsx */
// Organizations and groups managed in the browser, on CKAN's URLs: /<kind>/new, /<kind>/edit/<name>,
// /<kind>/delete/<name>, /<kind>/members/<name> (with /<kind>/member_new/<name> and
// /<kind>/member_delete/<name>). The actions (<kind>_create, _patch, _delete, _member_create,
// _member_delete) validate and authorize; the pages of a group the caller does not administer are
// the 404 page.
import { NotAuthorized, NotFound, ValidationError } from '../../errors'
import { requireCanEditGroup } from '../../auth/group'
import { findGroup } from '../../model/group'
import { text } from '../components'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import { CSRF_FIELD } from '../session'
import { readForm, type Outcome } from './account'
import { slugify } from './publish'
import { ConfirmDelete, FieldError, fieldErrors, formRefused, invalid, Summary, UserRoleForm, UserRoleTable, type Errors } from '../forms'
import type { Kind } from './orgs'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')
const TITLES: Record<Kind, [string, string]> = { organization: ['Organizations', 'organization'], group: ['Groups', 'group'] }
const titleOf = (g: Dict) => text(g.display_name) || text(g.title) || text(g.name)


/** The group `id` of this kind, if the caller administers it (else the 404 page). */
async function administered(page: Page, kind: Kind, id: string): Promise<Dict> {
  const row = await findGroup(page.ctx, id)
  if (!row || row.state === 'deleted' || row.is_organization !== (kind === 'organization')) throw new NotFound()
  await requireCanEditGroup(page.ctx, row)
  return call<Dict>(page, `${kind}_show`, { id: row.id, include_datasets: false, include_users: true, include_extras: false, include_groups: false, include_tags: false, include_followers: false })
}

function GroupForm(props: { page: Page; kind: Kind; action: string; submit: string; values: Dict; errors: Errors; isNew: boolean }) {
  const { page, action, submit, values, errors } = props
  return (
    <form class="form" method="post" action={action}>
      <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
      <div>
        <label for="title">Name</label>
        <input id="title" name="title" type="text" required value={str(values.title)} {...invalid(errors, 'title')} />
        <FieldError errors={errors} name="title" />
      </div>
      <div>
        <label for="name">URL name{props.isNew ? ' (left empty: made from the name)' : ''}</label>
        <input id="name" name="name" type="text" value={str(values.name)} pattern="[a-z0-9_\-]*" {...invalid(errors, 'name')} />
        <FieldError errors={errors} name="name" />
      </div>
      <div>
        <label for="description">Description (Markdown)</label>
        <textarea id="description" name="description" rows={5}>
          {str(values.description)}
        </textarea>
      </div>
      <div>
        <label for="image_url">Image URL</label>
        <input id="image_url" name="image_url" type="url" value={str(values.image_url)} {...invalid(errors, 'image_url')} />
        <FieldError errors={errors} name="image_url" />
      </div>
      <div>
        <button type="submit">{submit}</button>
      </div>
    </form>
  )
}

const formValues = (form: Dict) => ({
  title: str(form.title).trim(),
  name: str(form.name).trim(),
  description: str(form.description),
  image_url: str(form.image_url).trim(),
})

export function newGroupView(page: Page, kind: Kind, values: Dict = {}, errors: Errors = {}) {
  const [plural, one] = TITLES[kind]
  return (
    <Layout page={page} title={`Create ${one}`}>
      <Crumbs items={[[plural, `/${kind}`], [`Create ${one}`, `/${kind}/new`]]} />
      <h1>Create {one}</h1>
      <Summary errors={errors} page={page} />
      <GroupForm page={page} kind={kind} action={`/${kind}/new`} submit={`Create ${one}`} values={values} errors={errors} isNew />
    </Layout>
  )
}

export async function createGroup(page: Page, kind: Kind): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const values = formValues(form)
  try {
    const g: Dict = await call(page, `${kind}_create`, { ...values, name: values.name || slugify(values.title) })
    return { redirect: `/${kind}/${encodeURIComponent(g.name)}` }
  } catch (e) {
    if (e instanceof NotAuthorized) return { view: newGroupView(page, kind, values, { _: [`You may not create ${TITLES[kind][0].toLowerCase()} on this site.`] }), status: 403 }
    if (!(e instanceof ValidationError)) throw e
    return { view: newGroupView(page, kind, values, fieldErrors(e)), status: 409 }
  }
}

function ManageNav({ kind, g }: { kind: Kind; g: Dict }) {
  const n = encodeURIComponent(g.name)
  return (
    <p>
      <a href={`/${kind}/edit/${n}`}>Edit</a> · <a href={`/${kind}/members/${n}`}>Members</a> · <a href={`/${kind}/delete/${n}`}>Delete</a>
    </p>
  )
}

export async function editGroupView(page: Page, kind: Kind, id: string, values?: Dict, errors: Errors = {}) {
  const g = await administered(page, kind, id)
  const href = `/${kind}/${encodeURIComponent(g.name)}`
  return (
    <Layout page={page} title={`Edit - ${titleOf(g)}`}>
      <Crumbs items={[[TITLES[kind][0], `/${kind}`], [titleOf(g), href], ['Edit', `/${kind}/edit/${encodeURIComponent(g.name)}`]]} />
      <h1>Edit {titleOf(g)}</h1>
      <ManageNav kind={kind} g={g} />
      <Summary errors={errors} page={page} />
      <GroupForm
        page={page}
        kind={kind}
        action={`/${kind}/edit/${encodeURIComponent(g.name)}`}
        submit={`Update ${TITLES[kind][1]}`}
        values={values ?? { title: str(g.title), name: str(g.name), description: str(g.description), image_url: str(g.image_url) }}
        errors={errors}
        isNew={false}
      />
    </Layout>
  )
}

export async function updateGroup(page: Page, kind: Kind, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const g = await administered(page, kind, id)
  const values = formValues(form)
  try {
    const updated: Dict = await call(page, `${kind}_patch`, { id: g.id, ...values, name: values.name || g.name })
    return { redirect: `/${kind}/${encodeURIComponent(updated.name)}` }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await editGroupView(page, kind, id, values, fieldErrors(e)), status: 409 }
  }
}

export async function deleteGroupView(page: Page, kind: Kind, id: string) {
  const g = await administered(page, kind, id)
  const href = `/${kind}/${encodeURIComponent(g.name)}`
  const action = `/${kind}/delete/${encodeURIComponent(g.name)}`
  return <ConfirmDelete page={page} what={TITLES[kind][1]} title={titleOf(g)} action={action} back={href} crumbs={[[TITLES[kind][0], `/${kind}`], [titleOf(g), href], ['Delete', action]]} />
}

export async function deleteGroup(page: Page, kind: Kind, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const g = await administered(page, kind, id)
  try {
    await call(page, `${kind}_delete`, { id: g.id })
  } catch (e) {
    // e.g. an organization that still has datasets, or deleting switched off for non-sysadmins
    if (!(e instanceof ValidationError) && !(e instanceof NotAuthorized)) throw e
    return { view: await editGroupView(page, kind, id, undefined, { _: [e.message || 'It could not be deleted.'] }), status: 409 }
  }
  return { redirect: `/${kind}` }
}

const ROLES = ['admin', 'editor', 'member'] as const

export async function membersView(page: Page, kind: Kind, id: string, errors: Errors = {}, values: Dict = {}) {
  const g = await administered(page, kind, id)
  const href = `/${kind}/${encodeURIComponent(g.name)}`
  const n = encodeURIComponent(g.name)
  const users = ((g.users ?? []) as Dict[]).slice().sort((a, b) => str(a.name).localeCompare(str(b.name)))
  return (
    <Layout page={page} title={`Members - ${titleOf(g)}`}>
      <Crumbs items={[[TITLES[kind][0], `/${kind}`], [titleOf(g), href], ['Members', `/${kind}/members/${n}`]]} />
      <h1>Members of {titleOf(g)}</h1>
      <ManageNav kind={kind} g={g} />
      <Summary errors={errors} page={page} />
      <h2>Add a member, or change a role</h2>
      <UserRoleForm page={page} action={`/${kind}/member_new/${n}`} roles={ROLES} roleField="role" roleLabel="Role" errorField="username" errors={errors} values={values} />
      <h2>Members</h2>
      <UserRoleTable
        page={page}
        roleLabel="Role"
        removeAction={`/${kind}/member_delete/${n}`}
        users={users.map((u) => ({ href: `/user/${encodeURIComponent(u.name)}`, label: text(u.display_name) || text(u.name), role: text(u.capacity), fields: { user: text(u.name) } }))}
      />
    </Layout>
  )
}

export async function addMember(page: Page, kind: Kind, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const g = await administered(page, kind, id)
  const values = { username: str(form.username).trim(), role: str(form.role) }
  try {
    await call(page, `${kind}_member_create`, { id: g.id, username: values.username, role: values.role })
  } catch (e) {
    if (!(e instanceof ValidationError) && !(e instanceof NotAuthorized)) throw e
    const errors = e instanceof ValidationError ? fieldErrors(e) : { _: [e.message] }
    return { view: await membersView(page, kind, id, errors, values), status: 409 }
  }
  return { redirect: `/${kind}/members/${encodeURIComponent(g.name)}` }
}

export async function removeMember(page: Page, kind: Kind, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const g = await administered(page, kind, id)
  try {
    await call(page, `${kind}_member_delete`, { id: g.id, username: str(form.user) })
  } catch (e) {
    if (!(e instanceof ValidationError) && !(e instanceof NotAuthorized)) throw e
    const errors = e instanceof ValidationError ? fieldErrors(e) : { _: [e.message] }
    return { view: await membersView(page, kind, id, errors), status: 409 }
  }
  return { redirect: `/${kind}/members/${encodeURIComponent(g.name)}` }
}
