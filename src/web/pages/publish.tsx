/** @jsxImportSource hono/jsx */
// Publishing in the browser: a new dataset (/dataset/new), a resource by upload or link
// (/dataset/<name>/resource/new), and follow/unfollow buttons. Every form carries the CSRF token;
// the actions do the validation and authorization, and their messages are shown by the fields.
import { ValidationError } from '../../errors'
import { requireCanEditPackage } from '../../auth/package'
import { readDataDict } from '../../http/params'
import { bodyLimits } from '../../http/body-limits'
import { stageInto } from '../../http/stage-upload'
import { discardUnclaimed, type StagedUpload } from '../../storage/staged-upload'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import { CSRF_FIELD } from '../session'
import { readForm, type Outcome } from './account'
import { FieldError, fieldErrors, formRefused, invalid, PostButton, Summary, type Errors } from '../forms'
import type { CompiledField } from '../../scheming/registry'
import { blockChange, DATASET_OWN, dataFromValues, datasetSchemaOf, errorLabels, flatErrors, hasBlocks, RESOURCE_OWN, ResourceSchemaFields, resourceLabels, SchemaField, sentBlocks, valuesFromForm, type AnySchema } from '../scheming'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')

/** A dataset name from its title, as CKAN's form suggests one: lowercase letters, digits, - and _. */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 100)
}

type FormProps = { page: Page; action: string; submit: string; values: Dict; errors: Errors; orgs: Dict[]; licenses: Dict[]; nameLabel?: string; schema?: AnySchema }

/** The dataset form's own controls (title, URL name, notes, tags, organization, license, visibility). */
function coreControls(props: FormProps): Record<string, () => unknown> {
  const { page, values, errors, orgs, licenses } = props
  const t = page.t
  return {
    title: () => (
      <div>
        <label for="title">{t('datasetForm.title')}</label>
        <input id="title" name="title" type="text" required={!props.schema} value={str(values.title)} {...invalid(errors, 'title')} />
        <FieldError errors={errors} name="title" />
      </div>
    ),
    name: () => (
      <div>
        <label for="name">{props.nameLabel ?? t('datasetForm.name')}</label>
        <input id="name" name="name" type="text" value={str(values.name)} pattern="[a-z0-9_\-]*" {...invalid(errors, 'name')} />
        <FieldError errors={errors} name="name" />
      </div>
    ),
    notes: () => (
      <div>
        <label for="notes">{t('common.descriptionMarkdown')}</label>
        <textarea id="notes" name="notes" rows={6} {...invalid(errors, 'notes')}>
          {str(values.notes)}
        </textarea>
        <FieldError errors={errors} name="notes" />
      </div>
    ),
    tag_string: () => (
      <div>
        <label for="tag_string">{t('datasetForm.tags')}</label>
        <input id="tag_string" name="tag_string" type="text" value={str(values.tag_string)} {...invalid(errors, 'tags')} />
        <FieldError errors={errors} name="tags" />
      </div>
    ),
    owner_org: () => (
      <div>
        <label for="owner_org">{t('datasetForm.organization')}</label>
        <select id="owner_org" name="owner_org" {...invalid(errors, 'owner_org')}>
          {orgs.map((o) => (
            <option value={o.id} selected={values.owner_org === o.id}>
              {str(o.display_name) || str(o.title) || str(o.name)}
            </option>
          ))}
        </select>
        <FieldError errors={errors} name="owner_org" />
      </div>
    ),
    license_id: () => (
      <div>
        <label for="license_id">{t('datasetForm.license')}</label>
        <select id="license_id" name="license_id">
          {licenses.map((l) => (
            <option value={l.id} selected={(values.license_id ?? 'cc-by') === l.id}>
              {str(l.title)}
            </option>
          ))}
        </select>
      </div>
    ),
    private: () => (
      <div>
        <label for="private">{t('datasetForm.visibility')}</label>
        <select id="private" name="private">
          <option value="True" selected={values.private !== 'False'}>
            {t('common.private')}
          </option>
          <option value="False" selected={values.private === 'False'}>
            {t('common.public')}
          </option>
        </select>
      </div>
    ),
  }
}

/**
 * The dataset form of /dataset/new and /dataset/edit/<name>. With a schema (ckanext-scheming), its
 * dataset_fields in order, each by its form_snippet; the core fields keep these controls, and the
 * organization and visibility are asked for even where the schema does not list them.
 */
export function DatasetForm(props: FormProps) {
  const { page, action, submit, values, errors, schema } = props
  const core = coreControls(props)
  const order = schema ? schemaOrder(schema) : ['title', 'name', 'notes', 'tag_string', 'owner_org', 'license_id', 'private']
  return (
    <form class="form" method="post" action={action}>
      <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
      {schema && hasBlocks(schema.fields) ? (
        // Enter in a text input submits with the form's first button: the form's own, not "add another"
        <button type="submit" class="visually-hidden" tabindex={-1} aria-hidden="true">
          {submit}
        </button>
      ) : null}
      {order.map((k) => {
        if (typeof k === 'string') return core[k]!()
        return <SchemaField page={page} cf={k} values={values} errors={errors} langs={schema!.env.formLanguages} />
      })}
      <div>
        <button type="submit">{submit}</button>
      </div>
    </form>
  )
}

/** The form's controls for a schema: its fields in order (core ones by name), then organization and visibility if it left them out. */
function schemaOrder(schema: AnySchema): (string | CompiledField)[] {
  const out: (string | CompiledField)[] = []
  for (const cf of schema.fields) {
    const name = cf.name === 'tags' ? 'tag_string' : cf.name
    if (DATASET_OWN.has(name)) {
      if (!out.includes(name)) out.push(name)
    } else out.push(cf)
  }
  for (const k of ['owner_org', 'private']) if (!out.includes(k)) out.push(k)
  return out
}

/** The error summary's labels of the dataset form with a schema (undefined without: the keys). */
export const datasetLabels = (page: Page, schema?: AnySchema) =>
  schema
    ? errorLabels(page, schema.fields, {
        title: page.t('datasetForm.title'),
        name: page.t('datasetForm.name'),
        notes: page.t('common.descriptionMarkdown'),
        tags: page.t('datasetForm.tags'),
        owner_org: page.t('datasetForm.organization'),
      })
    : undefined

/** Where a dataset type's pages are: /dataset for CKAN's own type, /<type> for a schema's. */
export const typeBase = (type: string) => (type === 'dataset' ? '/dataset' : `/${type}`)

export async function newDatasetView(page: Page, values: Dict = {}, errors: Errors = {}, type = 'dataset') {
  const schema = datasetSchemaOf(page, type)
  const base = typeBase(type)
  const [orgs, licenses] = await Promise.all([
    call<Dict[]>(page, 'organization_list_for_user', { id: page.ctx.user!.id, permission: 'create_dataset' }),
    call<Dict[]>(page, 'license_list'),
  ])
  return (
    <Layout page={page} title={page.t('publish.createDataset')}>
      <Crumbs page={page} items={[[page.t('nav.datasets'), base], [page.t('publish.createDataset'), `${base}/new`]]} />
      <h1>{page.t('publish.createDataset')}</h1>
      <Summary errors={errors} page={page} labels={datasetLabels(page, schema)} />
      <DatasetForm page={page} action={`${base}/new`} submit={page.t('publish.next')} values={values} errors={errors} orgs={orgs} licenses={licenses} schema={schema} />
    </Layout>
  )
}

export async function createDataset(page: Page, type = 'dataset'): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const schema = datasetSchemaOf(page, type)
  let values: Dict = {}
  for (const k of ['title', 'name', 'notes', 'tag_string', 'owner_org', 'license_id', 'private']) values[k] = str(form[k]).trim()
  if (schema) {
    Object.assign(values, valuesFromForm(schema.fields, form, DATASET_OWN))
    // "add another" / "remove": the same form again, one block more or less, nothing saved
    if (blockChange(form)) return { view: await newDatasetView(page, values, {}, type) }
  }
  const data: Dict = {
    title: values.title,
    name: values.name || slugify(values.title),
    notes: values.notes,
    owner_org: values.owner_org || undefined,
    license_id: values.license_id || undefined,
    private: values.private !== 'False',
    tags: values.tag_string
      .split(',')
      .map((t: string) => t.trim())
      .filter(Boolean)
      .map((name: string) => ({ name })),
  }
  if (schema) {
    Object.assign(data, dataFromValues(schema.fields, values, DATASET_OWN), { type })
    if (!values.name && !values.title) delete data.name // the schema's own message for a missing name
  }
  try {
    const d: Dict = await call(page, 'package_create', data)
    return { redirect: `/dataset/${encodeURIComponent(d.name)}/resource/new` }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    // a schema's errors name the blocks sent (blank ones left out): the form shows those
    if (schema) values = sentBlocks(schema.fields, values)
    return { view: await newDatasetView(page, values, schema ? flatErrors(e) : fieldErrors(e), type), status: 409 }
  }
}

export async function newResourceView(page: Page, id: string, values: Dict = {}, errors: Errors = {}) {
  const d: Dict = await call(page, 'package_show', { id })
  await requireCanEditPackage(page.ctx, { owner_org: d.owner_org ?? null, id: d.id })
  const href = `/dataset/${encodeURIComponent(d.name)}`
  const t = page.t
  const title = str(d.title) || str(d.name)
  const schema = datasetSchemaOf(page, str(d.type) || 'dataset')
  return (
    <Layout page={page} title={t('publish.addDataTitle', { title })}>
      <Crumbs page={page} items={[[t('nav.datasets'), '/dataset'], [title, href], [t('dataset.addData'), `${href}/resource/new`]]} />
      <h1>{t('publish.addDataHeading', { title })}</h1>
      <Summary errors={errors} page={page} labels={resourceLabels(page, schema)} />
      <form class="form" method="post" action={`${href}/resource/new`} enctype="multipart/form-data">
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        {schema && hasBlocks(schema.resourceFields) ? (
          <button type="submit" class="visually-hidden" tabindex={-1} aria-hidden="true">
            {t('publish.add')}
          </button>
        ) : null}
        <div>
          <label for="upload">{t('publish.upload')}</label>
          <input id="upload" name="upload" type="file" {...invalid(errors, 'upload')} />
          <FieldError errors={errors} name="upload" />
        </div>
        <div>
          <label for="url">{t('publish.link')}</label>
          <input id="url" name="url" type="url" value={str(values.url)} {...invalid(errors, 'url')} />
          <FieldError errors={errors} name="url" />
        </div>
        <div>
          <label for="rname">{t('common.name')}</label>
          <input id="rname" name="name" type="text" value={str(values.name)} {...invalid(errors, 'name')} />
          <FieldError errors={errors} name="name" />
        </div>
        <div>
          <label for="description">{t('common.description')}</label>
          <textarea id="description" name="description" rows={3} {...invalid(errors, 'description')}>
            {str(values.description)}
          </textarea>
          <FieldError errors={errors} name="description" />
        </div>
        <div>
          <label for="format">{t('publish.formatHint')}</label>
          <input id="format" name="format" type="text" value={str(values.format)} {...invalid(errors, 'format')} />
          <FieldError errors={errors} name="format" />
        </div>
        <ResourceSchemaFields page={page} schema={schema} values={values} errors={errors} />
        <div>
          <button type="submit">{t('publish.add')}</button> <a href={href}>{t('publish.finish')}</a>
        </div>
      </form>
    </Layout>
  )
}

export async function createResource(page: Page, id: string): Promise<Outcome> {
  const staged: StagedUpload[] = []
  try {
    const form = await readDataDict(page.req, false, bodyLimits(page.deps.config), stageInto(page.deps, staged))
    const refused = formRefused(page, form)
  if (refused) return refused
    const d: Dict = await call(page, 'package_show', { id })
    const data: Dict = { package_id: d.id }
    for (const k of ['url', 'name', 'description', 'format']) if (str(form[k]).trim()) data[k] = str(form[k]).trim()
    // the dataset type's resource_fields (ckanext-scheming), read as the dataset form reads its fields
    const schema = datasetSchemaOf(page, str(d.type) || 'dataset')
    const fields = schema?.resourceFields.length ? schema.resourceFields : undefined
    let values: Dict = { ...data }
    if (fields) {
      Object.assign(values, valuesFromForm(fields, form, RESOURCE_OWN))
      if (blockChange(form)) return { view: await newResourceView(page, id, values) }
      Object.assign(data, dataFromValues(fields, values, RESOURCE_OWN))
    }
    if (form.upload !== undefined) data.upload = form.upload
    if (!data.upload && !data.url) {
      return { view: await newResourceView(page, id, values, { url: [page.t('publish.uploadOrUrl')] }), status: 409 }
    }
    try {
      const r: Dict = await call(page, 'resource_create', data)
      return { redirect: `/dataset/${encodeURIComponent(d.name)}/resource/${encodeURIComponent(r.id)}` }
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e
      if (fields) values = sentBlocks(fields, values)
      return { view: await newResourceView(page, id, values, fields ? flatErrors(e) : fieldErrors(e)), status: 409 }
    }
  } finally {
    // an upload no resource claimed (refused, invalid) leaves nothing stored
    if (staged.length) await discardUnclaimed(page.deps.blobs, staged)
  }
}

const FOLLOW: Record<string, [string, string, string]> = {
  dataset: ['follow_dataset', 'unfollow_dataset', 'am_following_dataset'],
  organization: ['follow_group', 'unfollow_group', 'am_following_group'],
  group: ['follow_group', 'unfollow_group', 'am_following_group'],
  user: ['follow_user', 'unfollow_user', 'am_following_user'],
}

/** POST /<kind>/follow/<id> and /<kind>/unfollow/<id>: then back to the object's page. */
export async function follow(page: Page, kind: string, id: string, on: boolean): Promise<Outcome | null> {
  const names = FOLLOW[kind]
  if (!names) return null
  if (!page.ctx.user) return { redirect: `/user/login?came_from=${encodeURIComponent(`/${kind}/${id}`)}` }
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  try {
    await call(page, on ? names[0] : names[1], { id })
  } catch (e) {
    // following twice, or unfollowing what one does not follow: the page shows the real state
    if (!(e instanceof ValidationError)) throw e
  }
  return { redirect: `/${kind}/${encodeURIComponent(id)}` }
}

/** The follow/unfollow button of an object's page (null for a visitor). */
export async function FollowButton({ page, kind, id }: { page: Page; kind: keyof typeof FOLLOW; id: string }) {
  if (!page.ctx.user) return null
  const following = await call<boolean>(page, FOLLOW[kind]![2], { id }).catch(() => false)
  return <PostButton page={page} action={`/${kind}/${following ? 'unfollow' : 'follow'}/${encodeURIComponent(id)}`} className="follow" label={following ? page.t('common.unfollow') : page.t('common.follow')} />
}
