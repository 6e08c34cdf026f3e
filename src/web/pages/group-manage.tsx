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
import { blockChange, dataFromValues, errorLabels, flatErrors, GROUP_OWN, groupSchemaOf, SchemaField, valuesFromForm, valuesFromObject, type AnySchema } from '../scheming'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')
const titleOf = (g: Dict) => text(g.display_name) || text(g.title) || text(g.name)


/** The group `id` of this kind, if the caller administers it (else the 404 page). */
async function administered(page: Page, kind: Kind, id: string): Promise<Dict> {
  const row = await findGroup(page.ctx, id)
  if (!row || row.state === 'deleted' || row.is_organization !== (kind === 'organization')) throw new NotFound()
  await requireCanEditGroup(page.ctx, row)
  return call<Dict>(page, `${kind}_show`, { id: row.id, include_datasets: false, include_users: true, include_extras: !!page.deps.schemas, include_groups: false, include_tags: false, include_followers: false })
}

function GroupForm(props: { page: Page; kind: Kind; action: string; submit: string; values: Dict; errors: Errors; isNew: boolean; schema?: AnySchema }) {
  const { page, action, submit, values, errors } = props
  const t = page.t
  return (
    <form class="form" method="post" action={action}>
      <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
      <div>
        <label for="title">{t('common.name')}</label>
        <input id="title" name="title" type="text" required value={str(values.title)} {...invalid(errors, 'title')} />
        <FieldError errors={errors} name="title" />
      </div>
      <div>
        <label for="name">{props.isNew ? t('groupForm.nameNew') : t('datasetForm.nameEdit')}</label>
        <input id="name" name="name" type="text" value={str(values.name)} pattern="[a-z0-9_\-]*" {...invalid(errors, 'name')} />
        <FieldError errors={errors} name="name" />
      </div>
      <div>
        <label for="description">{t('common.descriptionMarkdown')}</label>
        <textarea id="description" name="description" rows={5}>
          {str(values.description)}
        </textarea>
      </div>
      <div>
        <label for="image_url">{t('groupForm.image')}</label>
        <input id="image_url" name="image_url" type="url" value={str(values.image_url)} {...invalid(errors, 'image_url')} />
        <FieldError errors={errors} name="image_url" />
      </div>
      {props.schema
        ? props.schema.fields.filter((cf) => !GROUP_OWN.has(cf.name)).map((cf) => <SchemaField page={page} cf={cf} values={values} errors={errors} langs={props.schema!.env.formLanguages} />)
        : null}
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

/** The error summary's labels of a group form with a schema (undefined without: the keys). */
const groupLabels = (page: Page, schema?: AnySchema) =>
  schema ? errorLabels(page, schema.fields, { title: page.t('common.name'), name: page.t('datasetForm.nameEdit'), description: page.t('common.descriptionMarkdown'), image_url: page.t('groupForm.image') }) : undefined

/** /<kind>/new, and /<type>/new for an organization or group type a schema declares (created with that type, as CKAN does). */
export function newGroupView(page: Page, kind: Kind, values: Dict = {}, errors: Errors = {}, type: string = kind) {
  const t = page.t
  const schema = groupSchemaOf(page, kind, type)
  const create = type === kind ? t('groupForm.create', { kind }) : t('groupForm.createType', { type })
  return (
    <Layout page={page} title={create}>
      <Crumbs page={page} items={[[t('orgs.title', { kind }), `/${kind}`], [create, `/${type}/new`]]} />
      <h1>{create}</h1>
      <Summary errors={errors} page={page} labels={groupLabels(page, schema)} />
      <GroupForm page={page} kind={kind} action={`/${type}/new`} submit={create} values={values} errors={errors} isNew schema={schema} />
    </Layout>
  )
}

export async function createGroup(page: Page, kind: Kind, type: string = kind): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  // a schema's own fields (the organization or group type's), as the dataset form does
  const schema = groupSchemaOf(page, kind, type)
  const values: Dict = formValues(form)
  if (schema) {
    Object.assign(values, valuesFromForm(schema.fields, form, GROUP_OWN))
    if (blockChange(form)) return { view: newGroupView(page, kind, values, {}, type) }
  }
  const extra = schema ? dataFromValues(schema.fields, values, GROUP_OWN) : {}
  try {
    const g: Dict = await call(page, `${kind}_create`, { ...values, ...extra, name: values.name || slugify(values.title), ...(type === kind ? {} : { type }) })
    return { redirect: `/${type}/${encodeURIComponent(g.name)}` }
  } catch (e) {
    if (e instanceof NotAuthorized) return { view: newGroupView(page, kind, values, { _: [page.t('groupForm.notAllowed', { kind })] }, type), status: 403 }
    if (!(e instanceof ValidationError)) throw e
    return { view: newGroupView(page, kind, values, schema ? flatErrors(e) : fieldErrors(e), type), status: 409 }
  }
}

function ManageNav({ kind, g, page }: { kind: Kind; g: Dict; page: Page }) {
  const n = encodeURIComponent(g.name)
  const t = page.t
  return (
    <p>
      <a href={`/${kind}/edit/${n}`}>{t('common.edit')}</a> · <a href={`/${kind}/members/${n}`}>{t('common.members')}</a> · <a href={`/${kind}/delete/${n}`}>{t('common.delete')}</a>
    </p>
  )
}

export async function editGroupView(page: Page, kind: Kind, id: string, values?: Dict, errors: Errors = {}) {
  const g = await administered(page, kind, id)
  const href = `/${kind}/${encodeURIComponent(g.name)}`
  const schema = groupSchemaOf(page, kind, str(g.type) || kind)
  const stored = { title: str(g.title), name: str(g.name), description: str(g.description), image_url: str(g.image_url) }
  return (
    <Layout page={page} title={page.t('manage.editTitle', { title: titleOf(g) })}>
      <Crumbs page={page} items={[[page.t('orgs.title', { kind }), `/${kind}`], [titleOf(g), href], [page.t('common.edit'), `/${kind}/edit/${encodeURIComponent(g.name)}`]]} />
      <h1>{page.t('manage.editHeading', { title: titleOf(g) })}</h1>
      <ManageNav kind={kind} g={g} page={page} />
      <Summary errors={errors} page={page} labels={groupLabels(page, schema)} />
      <GroupForm
        page={page}
        kind={kind}
        action={`/${kind}/edit/${encodeURIComponent(g.name)}`}
        submit={page.t('groupForm.update', { kind })}
        values={values ?? (schema ? { ...stored, ...valuesFromObject(schema.fields, g, GROUP_OWN) } : stored)}
        errors={errors}
        isNew={false}
        schema={schema}
      />
    </Layout>
  )
}

export async function updateGroup(page: Page, kind: Kind, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const g = await administered(page, kind, id)
  const schema = groupSchemaOf(page, kind, str(g.type) || kind)
  const values: Dict = formValues(form)
  if (schema) {
    Object.assign(values, valuesFromForm(schema.fields, form, GROUP_OWN))
    if (blockChange(form)) return { view: await editGroupView(page, kind, id, values) }
  }
  const extra = schema ? dataFromValues(schema.fields, values, GROUP_OWN) : {}
  try {
    const updated: Dict = await call(page, `${kind}_patch`, { id: g.id, ...values, ...extra, name: values.name || g.name })
    return { redirect: `/${kind}/${encodeURIComponent(updated.name)}` }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await editGroupView(page, kind, id, values, schema ? flatErrors(e) : fieldErrors(e)), status: 409 }
  }
}

export async function deleteGroupView(page: Page, kind: Kind, id: string) {
  const g = await administered(page, kind, id)
  const href = `/${kind}/${encodeURIComponent(g.name)}`
  const action = `/${kind}/delete/${encodeURIComponent(g.name)}`
  return <ConfirmDelete page={page} what={kind} title={titleOf(g)} action={action} back={href} crumbs={[[page.t('orgs.title', { kind }), `/${kind}`], [titleOf(g), href], [page.t('common.delete'), action]]} />
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
    return { view: await editGroupView(page, kind, id, undefined, { _: [e.message || page.t('manage.notDeleted')] }), status: 409 }
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
    <Layout page={page} title={page.t('members.title', { title: titleOf(g) })}>
      <Crumbs page={page} items={[[page.t('orgs.title', { kind }), `/${kind}`], [titleOf(g), href], [page.t('common.members'), `/${kind}/members/${n}`]]} />
      <h1>{page.t('members.heading', { title: titleOf(g) })}</h1>
      <ManageNav kind={kind} g={g} page={page} />
      <Summary errors={errors} page={page} />
      <h2>{page.t('members.add')}</h2>
      <UserRoleForm page={page} action={`/${kind}/member_new/${n}`} roles={ROLES} roleField="role" roleLabel={page.t('members.role')} errorField="username" errors={errors} values={values} />
      <h2>{page.t('common.members')}</h2>
      <UserRoleTable
        page={page}
        roleLabel={page.t('members.role')}
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
