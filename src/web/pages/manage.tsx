/** @jsxImportSource hono/jsx */
// Editing and deleting in the browser, on CKAN's URLs: /dataset/edit/<name>, /dataset/delete/<name>,
// /dataset/<name>/resource/<id>/edit and .../delete, /dataset/groups/<name> and
// /dataset/collaborators/<name>. The forms carry the CSRF token; the actions (package_patch,
// package_delete, resource_patch, resource_delete, member_create/_delete, package_collaborator_*)
// validate and authorize, and a page for someone who may not edit is the 404 page, as for a
// private dataset.
import { NotAuthorized, NotFound, ValidationError } from '../../errors'
import { requireCanEditPackage } from '../../auth/package'
import { readDataDict } from '../../http/params'
import { bodyLimits } from '../../http/body-limits'
import { stageInto } from '../../http/stage-upload'
import { discardUnclaimed, type StagedUpload } from '../../storage/staged-upload'
import { actorNames, datasetHref } from '../components'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import { CSRF_FIELD } from '../session'
import { readForm, type Outcome } from './account'
import { DatasetForm, datasetLabels } from './publish'
import { blockChange, DATASET_OWN, dataFromValues, datasetSchemaOf, flatErrors, hasBlocks, RESOURCE_OWN, ResourceSchemaFields, resourceLabels, sentBlocks, valuesFromForm, valuesFromObject } from '../scheming'
import { ConfirmDelete, FieldError, fieldErrors, formRefused, invalid, PostButton, Summary, UserRoleForm, UserRoleTable, type Errors } from '../forms'
import { collaboratorsEnabled, requireCanManageCollaborators } from '../../auth/collaborator'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')
const titleOf = (d: Dict) => str(d.title) || str(d.name)

/** The dataset, if the caller may edit it (else the 404 page). */
async function editable(page: Page, id: string): Promise<Dict> {
  const d: Dict = await call(page, 'package_show', { id })
  await requireCanEditPackage(page.ctx, { owner_org: d.owner_org ?? null, id: d.id })
  return d
}


/** The form's values for a dataset as it is. */
function datasetValues(d: Dict): Dict {
  return {
    title: str(d.title),
    name: str(d.name),
    notes: str(d.notes),
    tag_string: ((d.tags ?? []) as Dict[])
      .filter((t) => !t.vocabulary_id)
      .map((t) => str(t.name))
      .join(', '),
    owner_org: str(d.owner_org),
    license_id: str(d.license_id),
    private: d.private ? 'True' : 'False',
  }
}

export async function editDatasetView(page: Page, id: string, values?: Dict, errors: Errors = {}) {
  const d = await editable(page, id)
  const schema = datasetSchemaOf(page, str(d.type) || 'dataset')
  const [orgs, licenses] = await Promise.all([
    call<Dict[]>(page, 'organization_list_for_user', { id: page.ctx.user!.id, permission: 'create_dataset' }),
    call<Dict[]>(page, 'license_list'),
  ])
  // the dataset's own organization stays a choice even where the editor may not create in it
  if (d.organization && !orgs.some((o) => o.id === d.organization.id)) orgs.unshift(d.organization)
  const href = datasetHref(d)
  return (
    <Layout page={page} title={page.t('manage.editTitle', { title: titleOf(d) })}>
      <Crumbs page={page} items={[[page.t('nav.datasets'), '/dataset'], [titleOf(d), href], [page.t('common.edit'), `/dataset/edit/${encodeURIComponent(d.name)}`]]} />
      <h1>{page.t('manage.editHeading', { title: titleOf(d) })}</h1>
      <Summary errors={errors} page={page} labels={datasetLabels(page, schema)} />
      <DatasetForm
        page={page}
        action={`/dataset/edit/${encodeURIComponent(d.name)}`}
        submit={page.t('manage.updateDataset')}
        nameLabel={page.t('datasetForm.nameEdit')}
        values={values ?? (schema ? { ...datasetValues(d), ...valuesFromObject(schema.fields, d, DATASET_OWN) } : datasetValues(d))}
        errors={errors}
        orgs={orgs}
        licenses={licenses}
        schema={schema}
      />
      <p>
        <a href={href}>{page.t('common.cancel')}</a> · <a href={`/dataset/delete/${encodeURIComponent(d.name)}`}>{page.t('manage.deleteDataset')}</a>
      </p>
    </Layout>
  )
}

export async function updateDataset(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const d = await editable(page, id)
  const schema = datasetSchemaOf(page, str(d.type) || 'dataset')
  let values: Dict = {}
  for (const k of ['title', 'name', 'notes', 'tag_string', 'owner_org', 'license_id', 'private']) values[k] = str(form[k]).trim()
  if (schema) {
    Object.assign(values, valuesFromForm(schema.fields, form, DATASET_OWN))
    if (blockChange(form)) return { view: await editDatasetView(page, id, values) }
  }
  // the form edits free tags; vocabulary tags stay as they are
  const kept = ((d.tags ?? []) as Dict[]).filter((t) => t.vocabulary_id).map((t) => ({ name: t.name, vocabulary_id: t.vocabulary_id }))
  const data: Dict = {
    id: d.id,
    title: values.title,
    name: values.name || d.name,
    notes: values.notes,
    owner_org: values.owner_org || d.owner_org || undefined,
    license_id: values.license_id || undefined,
    private: values.private !== 'False',
    tags: [
      ...values.tag_string
        .split(',')
        .map((t: string) => t.trim())
        .filter(Boolean)
        .map((name: string) => ({ name })),
      ...kept,
    ],
  }
  // every schema field is sent (an emptied one too), so the patch keeps none of the old values
  if (schema) Object.assign(data, dataFromValues(schema.fields, values, DATASET_OWN))
  try {
    const updated: Dict = await call(page, 'package_patch', data)
    return { redirect: datasetHref(updated) }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    if (schema) values = sentBlocks(schema.fields, values)
    return { view: await editDatasetView(page, id, values, schema ? flatErrors(e) : fieldErrors(e)), status: 409 }
  }
}

export async function deleteDatasetView(page: Page, id: string) {
  const d = await editable(page, id)
  const href = datasetHref(d)
  const action = `/dataset/delete/${encodeURIComponent(d.name)}`
  return <ConfirmDelete page={page} what="dataset" title={titleOf(d)} action={action} back={href} crumbs={[[page.t('nav.datasets'), '/dataset'], [titleOf(d), href], [page.t('common.delete'), action]]} />
}

export async function deleteDataset(page: Page, id: string): Promise<Outcome> {
  const refused = formRefused(page, await readForm(page))
  if (refused) return refused
  const d = await editable(page, id)
  await call(page, 'package_delete', { id: d.id })
  return { redirect: '/dataset' }
}

/** The dataset and its resource `rid`, if the caller may edit them. */
async function editableResource(page: Page, id: string, rid: string): Promise<[Dict, Dict]> {
  const d = await editable(page, id)
  const r = ((d.resources ?? []) as Dict[]).find((x) => x.id === rid)
  if (!r) throw new NotFound()
  return [d, r]
}

const resourceHref = (d: Dict, r: Dict) => `${datasetHref(d)}/resource/${encodeURIComponent(r.id)}`

export async function editResourceView(page: Page, id: string, rid: string, values?: Dict, errors: Errors = {}) {
  const [d, r] = await editableResource(page, id, rid)
  const schema = datasetSchemaOf(page, str(d.type) || 'dataset')
  const own = { url: str(r.url), name: str(r.name), description: str(r.description), format: str(r.format) }
  const v = values ?? (schema?.resourceFields.length ? { ...own, ...valuesFromObject(schema.resourceFields, r, RESOURCE_OWN) } : own)
  const base = resourceHref(d, r)
  const t = page.t
  const rtitle = str(r.name) || t('dataset.resource')
  return (
    <Layout page={page} title={t('manage.editTitle', { title: rtitle })}>
      <Crumbs page={page} items={[[t('nav.datasets'), '/dataset'], [titleOf(d), datasetHref(d)], [rtitle, base], [t('common.edit'), `${base}/edit`]]} />
      <h1>{t('manage.editHeading', { title: rtitle })}</h1>
      <Summary errors={errors} page={page} labels={resourceLabels(page, schema)} />
      <form class="form" method="post" action={`${base}/edit`} enctype="multipart/form-data">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        {schema && hasBlocks(schema.resourceFields) ? (
          <button type="submit" class="visually-hidden" tabindex={-1} aria-hidden="true">
            {t('manage.updateResource')}
          </button>
        ) : null}
        <div>
          <label for="upload">{t('manage.replaceFile')}</label>
          <input id="upload" name="upload" type="file" {...invalid(errors, 'upload')} />
          <FieldError errors={errors} name="upload" />
        </div>
        <div>
          <label for="url">URL</label>
          <input id="url" name="url" type="text" value={str(v.url)} {...invalid(errors, 'url')} />
          <FieldError errors={errors} name="url" />
        </div>
        <div>
          <label for="rname">{t('common.name')}</label>
          <input id="rname" name="name" type="text" value={str(v.name)} {...invalid(errors, 'name')} />
          <FieldError errors={errors} name="name" />
        </div>
        <div>
          <label for="description">{t('common.description')}</label>
          <textarea id="description" name="description" rows={3}>
            {str(v.description)}
          </textarea>
        </div>
        <div>
          <label for="format">{t('common.format')}</label>
          <input id="format" name="format" type="text" value={str(v.format)} {...invalid(errors, 'format')} />
          <FieldError errors={errors} name="format" />
        </div>
        <ResourceSchemaFields page={page} schema={schema} values={v} errors={errors} />
        <div>
          <button type="submit">{t('manage.updateResource')}</button> <a href={base}>{t('common.cancel')}</a>
        </div>
      </form>
      <p>
        <a href={`${base}/delete`}>{t('manage.deleteResource')}</a>
      </p>
    </Layout>
  )
}

export async function updateResource(page: Page, id: string, rid: string): Promise<Outcome> {
  const staged: StagedUpload[] = []
  try {
    const form = await readDataDict(page.req, false, bodyLimits(page.deps.config), stageInto(page.deps, staged))
    const refused = formRefused(page, form)
    if (refused) return refused
    const [d, r] = await editableResource(page, id, rid)
    const data: Dict = { id: r.id }
    for (const k of ['name', 'description', 'format']) data[k] = str(form[k]).trim()
    // the URL only when it was changed: an uploaded file's download URL is not a link to keep
    const url = str(form.url).trim()
    if (url !== str(r.url)) data.url = url
    if (form.upload !== undefined) data.upload = form.upload
    let values: Dict = { url, name: data.name, description: data.description, format: data.format }
    // the dataset type's resource_fields: every one sent (an emptied one too), as the dataset form does
    const schema = datasetSchemaOf(page, str(d.type) || 'dataset')
    const fields = schema?.resourceFields.length ? schema.resourceFields : undefined
    if (fields) {
      Object.assign(values, valuesFromForm(fields, form, RESOURCE_OWN))
      if (blockChange(form)) return { view: await editResourceView(page, id, rid, values) }
      Object.assign(data, dataFromValues(fields, values, RESOURCE_OWN))
    }
    try {
      await call(page, 'resource_patch', data)
      return { redirect: resourceHref(d, r) }
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e
      if (fields) values = sentBlocks(fields, values)
      return { view: await editResourceView(page, id, rid, values, fields ? flatErrors(e) : fieldErrors(e)), status: 409 }
    }
  } finally {
    // an upload no resource claimed (refused, invalid) leaves nothing stored
    if (staged.length) await discardUnclaimed(page.deps.blobs, staged)
  }
}

export async function deleteResourceView(page: Page, id: string, rid: string) {
  const [d, r] = await editableResource(page, id, rid)
  const base = resourceHref(d, r)
  return (
    <ConfirmDelete
      page={page}
      what="resource"
      title={str(r.name) || page.t('dataset.unnamedResource')}
      action={`${base}/delete`}
      back={base}
      crumbs={[[page.t('nav.datasets'), '/dataset'], [titleOf(d), datasetHref(d)], [str(r.name) || page.t('dataset.resource'), base], [page.t('common.delete'), `${base}/delete`]]}
    />
  )
}

export async function deleteResource(page: Page, id: string, rid: string): Promise<Outcome> {
  const refused = formRefused(page, await readForm(page))
  if (refused) return refused
  const [d, r] = await editableResource(page, id, rid)
  await call(page, 'resource_delete', { id: r.id })
  return { redirect: datasetHref(d) }
}

/** The dataset, if collaborators are on and the caller may manage its collaborators (else the 404 page). */
async function collaboratedDataset(page: Page, id: string): Promise<Dict> {
  if (!collaboratorsEnabled(page.ctx)) throw new NotFound()
  const d: Dict = await call(page, 'package_show', { id })
  await requireCanManageCollaborators(page.ctx, { id: d.id, owner_org: d.owner_org ?? null, creator_user_id: d.creator_user_id ?? null }, 'manage collaborators of this dataset')
  return d
}

/** /dataset/collaborators/<name> (ckan 2.9, with service.auth.allow_dataset_collaborators): who else may edit or read it. */
export async function collaboratorsView(page: Page, id: string, errors: Errors = {}, values: Dict = {}) {
  const d = await collaboratedDataset(page, id)
  const list = await call<Dict[]>(page, 'package_collaborator_list', { id: d.id })
  const names = await actorNames(page, list)
  const href = datasetHref(d)
  const base = `/dataset/collaborators/${encodeURIComponent(d.name)}`
  const capacities = page.deps.config.bool('service.auth.allow_admin_collaborators') ? ['admin', 'editor', 'member'] : ['editor', 'member']
  return (
    <Layout page={page} title={page.t('collaborators.title', { title: titleOf(d) })}>
      <Crumbs page={page} items={[[page.t('nav.datasets'), '/dataset'], [titleOf(d), href], [page.t('dataset.collaborators'), base]]} />
      <h1>{page.t('collaborators.heading', { title: titleOf(d) })}</h1>
      <Summary errors={errors} page={page} />
      <UserRoleForm page={page} action={`${base}/new`} roles={capacities} roleField="capacity" roleLabel={page.t('collaborators.capacity')} errorField="user_id" errors={errors} values={values} />
      <h2>{page.t('dataset.collaborators')}</h2>
      {list.length ? (
        <UserRoleTable
          page={page}
          roleLabel={page.t('collaborators.capacity')}
          removeAction={`${base}/delete`}
          users={list.map((c) => ({ href: `/user/${encodeURIComponent(c.user_id)}`, label: names.get(c.user_id) ?? c.user_id, role: str(c.capacity), fields: { user_id: c.user_id } }))}
        />
      ) : (
        <p class="muted">{page.t('collaborators.none')}</p>
      )}
    </Layout>
  )
}

export async function addCollaborator(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const d = await collaboratedDataset(page, id)
  const values = { username: str(form.username).trim(), capacity: str(form.capacity) }
  try {
    await call(page, 'package_collaborator_create', { id: d.id, user_id: values.username, capacity: values.capacity })
  } catch (e) {
    if (!(e instanceof ValidationError) && !(e instanceof NotFound)) throw e
    const errors = e instanceof ValidationError ? fieldErrors(e) : { user_id: [e.message] }
    return { view: await collaboratorsView(page, id, errors, values), status: 409 }
  }
  return { redirect: `/dataset/collaborators/${encodeURIComponent(d.name)}` }
}

export async function removeCollaborator(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const d = await collaboratedDataset(page, id)
  try {
    await call(page, 'package_collaborator_delete', { id: d.id, user_id: str(form.user_id) })
  } catch (e) {
    if (!(e instanceof ValidationError) && !(e instanceof NotFound)) throw e
    return { view: await collaboratorsView(page, id, { _: [e.message] }), status: 409 }
  }
  return { redirect: `/dataset/collaborators/${encodeURIComponent(d.name)}` }
}

/** /dataset/groups/<name> (ckan 2.9): the dataset's groups; members of a group add it there or take it out. */
export async function datasetGroupsView(page: Page, id: string, errors: Errors = {}) {
  const d = await editable(page, id)
  const mine = await call<Dict[]>(page, 'group_list_authz', {})
  const inGroups = (d.groups ?? []) as Dict[]
  const addable = mine.filter((g) => !inGroups.some((x) => x.id === g.id))
  const manageable = new Set(mine.map((g) => g.id))
  const href = datasetHref(d)
  const base = `/dataset/groups/${encodeURIComponent(d.name)}`
  return (
    <Layout page={page} title={page.t('datasetGroups.title', { title: titleOf(d) })}>
      <Crumbs page={page} items={[[page.t('nav.datasets'), '/dataset'], [titleOf(d), href], [page.t('dataset.groups'), base]]} />
      <h1>{page.t('datasetGroups.heading', { title: titleOf(d) })}</h1>
      <Summary errors={errors} page={page} />
      {addable.length ? (
        <form class="form" method="post" action={`${base}/add`}>
          <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
          <div>
            <label for="group">{page.t('datasetGroups.add')}</label>
            <select id="group" name="group">
              {addable.map((g) => (
                <option value={g.id}>{str(g.display_name) || str(g.title) || str(g.name)}</option>
              ))}
            </select>
          </div>
          <div>
            <button type="submit">{page.t('datasetGroups.add')}</button>
          </div>
        </form>
      ) : (
        <p class="muted">{page.t('datasetGroups.noneToAdd')}</p>
      )}
      <h2>{page.t('datasetGroups.inGroups')}</h2>
      {inGroups.length ? (
        <ul class="items">
          {inGroups.map((g) => (
            <li>
              <a href={`/group/${encodeURIComponent(g.name)}`}>{str(g.display_name) || str(g.title) || str(g.name)}</a>{' '}
              {manageable.has(g.id) ? <PostButton page={page} action={`${base}/remove`} label={page.t('common.remove')} ariaLabel={page.t('datasetGroups.removeFrom', { name: str(g.name) })} fields={{ group: g.id }} /> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{page.t('datasetGroups.none')}</p>
      )}
    </Layout>
  )
}

export async function changeDatasetGroup(page: Page, id: string, add: boolean): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const d = await editable(page, id)
  try {
    await call(page, add ? 'member_create' : 'member_delete', { id: str(form.group), object: d.id, object_type: 'package', capacity: 'public' })
  } catch (e) {
    if (!(e instanceof ValidationError) && !(e instanceof NotFound) && !(e instanceof NotAuthorized)) throw e
    return { view: await datasetGroupsView(page, id, { _: [e.message] }), status: 409 }
  }
  return { redirect: `/dataset/groups/${encodeURIComponent(d.name)}` }
}
