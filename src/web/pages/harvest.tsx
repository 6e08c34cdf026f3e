/** @jsxImportSource hono/jsx */
// Harvest sources in the browser, on ckanext-harvest's URLs: /harvest (the list), /harvest/new,
// /harvest/edit/<name>, /harvest/<name> (with /harvest/refresh/<name> and /harvest/clear/<name>),
// /harvest/<name>/job, /harvest/<name>/job/<id|last> (the report, /…/abort) and
// /harvest/object/<id> (a harvested record as the remote gave it). Everything goes through the
// harvest actions as the caller, so a source the caller may not see, or jobs of a source they may
// not edit, are the 404 page.
import { NotAuthorized, NotFound, ValidationError } from '../../errors'
import { canEditPackage, requireCanEditPackage } from '../../auth/package'
import { excerpt, Markdown, text } from '../components'
import { Crumbs, Layout } from '../layout'
import { renderMarkdown } from '../markdown'
import { call, type Page } from '../page'
import { CSRF_FIELD } from '../session'
import { readForm, type Outcome } from './account'
import { slugify } from './publish'
import { FieldError, fieldErrors, formRefused, invalid, PostButton, Summary, type Errors } from '../forms'
import type { MessageKey } from '../i18n'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : '')
const enc = encodeURIComponent
const titleOf = (s: Dict) => text(s.title) || text(s.name)
const sourceHref = (s: Dict) => `/harvest/${enc(text(s.name) || text(s.id))}`

/** ckanext-harvest's frequencies, in the form's order. */
const FREQUENCIES = ['MANUAL', 'ALWAYS', 'HOURLY', 'DAILY', 'WEEKLY', 'BIWEEKLY', 'MONTHLY'] as const
const STATS = ['added', 'updated', 'not modified', 'deleted', 'errored'] as const

const statLabel = (page: Page, k: string) => page.t('harvest.stat', { status: k.replace(' ', '_') })
const jobStatus = (page: Page, job: Dict | null | undefined) => (job?.status ? page.t('harvest.jobStatus', { status: text(job.status) }) : page.t('harvest.noJobs'))

/** Whether the caller may edit (and so run, clear, see the jobs of) source `s`. */
const mayEdit = async (page: Page, s: Dict) => !!page.ctx.user && (await canEditPackage(page.ctx, { owner_org: s.owner_org ?? null, id: s.id }))

/** The organizations the caller may create sources in (package_create's rule). */
const creatableOrgs = (page: Page) =>
  page.ctx.user ? call<Dict[]>(page, 'organization_list_for_user', { id: page.ctx.user.id, permission: 'create_dataset' }) : Promise.resolve([])

function Stats({ page, stats }: { page: Page; stats: Dict | undefined }) {
  return (
    <ul class="stats">
      {STATS.map((k) => (
        <li>
          <b>{page.num(stats?.[k] ?? 0)}</b> {statLabel(page, k)}
        </li>
      ))}
    </ul>
  )
}

// --- the list ----------------------------------------------------------------------------------

/** /harvest: the sources the caller may see, with their type, last job and dataset count; `q` filters. */
export async function sourcesPage(page: Page) {
  const t = page.t
  const q = (page.url.searchParams.get('q') ?? '').trim()
  const [list, harvesters, orgs] = await Promise.all([call<Dict[]>(page, 'harvest_source_list'), call<Dict[]>(page, 'harvesters_info_show'), creatableOrgs(page)])
  const typeTitle = new Map(harvesters.map((h) => [text(h.name), text(h.title) || text(h.name)]))
  const shown = await Promise.all(list.map((e) => call<Dict>(page, 'harvest_source_show', { id: e.id })))
  const needle = q.toLowerCase()
  const items = needle ? shown.filter((s) => [s.title, s.name, s.url, s.notes].some((v) => text(v).toLowerCase().includes(needle))) : shown
  const title = t('harvest.title')
  return (
    <Layout title={title} page={page} alternate="/api/3/action/harvest_source_list">
      <h1>{title}</h1>
      {page.ctx.user && (page.ctx.user.sysadmin || orgs.length) ? (
        <p>
          <a class="button" href="/harvest/new">
            {t('harvest.add')}
          </a>
        </p>
      ) : null}
      <form class="searchbar" method="get" action="/harvest" role="search">
        <label for="hq">{t('harvest.search')}</label>
        <input id="hq" type="search" name="q" value={q} />
        <button type="submit">{t('search.button')}</button>
      </form>
      <p class="muted">{t('harvest.count', { n: items.length })}</p>
      {items.length ? (
        <ul class="items">
          {items.map((s) => (
            <li>
              <h2>
                <a href={sourceHref(s)}>{titleOf(s)}</a> {s.private ? <span class="badge private">{t('common.private')}</span> : null}
              </h2>
              {s.notes ? <p>{excerpt(s.notes, 160)}</p> : null}
              <dl class="meta">
                <dt>{t('harvest.url')}</dt>
                <dd class="mono">{text(s.url)}</dd>
                <dt>{t('harvest.type')}</dt>
                <dd>{typeTitle.get(text(s.source_type)) ?? text(s.source_type)}</dd>
                <dt>{t('harvest.lastJob')}</dt>
                <dd>{jobStatus(page, s.status?.last_job)}</dd>
                <dt>{t('nav.datasets')}</dt>
                <dd>{page.num(s.status?.total_datasets ?? 0)}</dd>
              </dl>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('harvest.none')}</p>
      )}
    </Layout>
  )
}

// --- the form ----------------------------------------------------------------------------------

const FIELDS = ['url', 'title', 'name', 'notes', 'source_type', 'frequency', 'config', 'owner_org', 'private'] as const

const formValues = (form: Dict): Dict => Object.fromEntries(FIELDS.map((k) => [k, k === 'notes' || k === 'config' ? str(form[k]) : str(form[k]).trim()]))

const LABELS: Record<string, MessageKey> = {
  url: 'harvest.url',
  title: 'harvest.formTitle',
  name: 'harvest.formName',
  notes: 'common.descriptionMarkdown',
  source_type: 'harvest.type',
  frequency: 'harvest.frequency',
  config: 'harvest.config',
  owner_org: 'datasetForm.organization',
  private: 'harvest.visibility',
}

/** The error summary's label of field `k` (undefined: the key itself is shown). */
const fieldLabel = (page: Page, k: string) => (LABELS[k] ? page.t(LABELS[k]) : undefined)

function SourceForm(props: { page: Page; action: string; submit: string; values: Dict; errors: Errors; harvesters: Dict[]; orgs: Dict[] }) {
  const { page, values, errors, harvesters, orgs } = props
  const t = page.t
  const type = str(values.source_type)
  const frequency = str(values.frequency) || 'MANUAL'
  return (
    <form class="form" method="post" action={props.action}>
      <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
      <div>
        <label for="url">{t('harvest.url')}</label>
        <input id="url" name="url" type="url" required value={str(values.url)} {...invalid(errors, 'url')} />
        <FieldError errors={errors} name="url" />
      </div>
      <div>
        <label for="title">{t('harvest.formTitle')}</label>
        <input id="title" name="title" type="text" required value={str(values.title)} {...invalid(errors, 'title')} />
        <FieldError errors={errors} name="title" />
      </div>
      <div>
        <label for="name">{t('harvest.formName')}</label>
        <input id="name" name="name" type="text" value={str(values.name)} pattern="[a-z0-9_\-]*" {...invalid(errors, 'name')} />
        <FieldError errors={errors} name="name" />
      </div>
      <div>
        <label for="notes">{t('common.descriptionMarkdown')}</label>
        <textarea id="notes" name="notes" rows={4}>
          {str(values.notes)}
        </textarea>
      </div>
      <fieldset class="choices" {...(errors.source_type?.length ? { 'aria-invalid': 'true', 'aria-describedby': 'source_type-error' } : {})}>
        <legend>{t('harvest.type')}</legend>
        {harvesters.length ? (
          harvesters.map((h, i) => (
            <label class="choice" for={`source_type-${i}`}>
              <input id={`source_type-${i}`} type="radio" name="source_type" value={text(h.name)} checked={type === text(h.name)} required />{' '}
              <span>
                {text(h.title) || text(h.name)}
                {h.description ? <span class="muted"> – {text(h.description)}</span> : null}
              </span>
            </label>
          ))
        ) : (
          <p class="muted">{t('harvest.noHarvesters')}</p>
        )}
        <FieldError errors={errors} name="source_type" />
      </fieldset>
      <div>
        <label for="frequency">{t('harvest.frequency')}</label>
        <select id="frequency" name="frequency" {...invalid(errors, 'frequency')}>
          {FREQUENCIES.map((f) => (
            <option value={f} selected={frequency === f}>
              {t('harvest.frequencyName', { f })}
            </option>
          ))}
        </select>
        <FieldError errors={errors} name="frequency" />
      </div>
      <div>
        <label for="config">{t('harvest.config')}</label>
        <textarea id="config" name="config" rows={5} class="mono" aria-describedby={errors.config?.length ? 'config-error config-help' : 'config-help'} {...(errors.config?.length ? { 'aria-invalid': 'true' } : {})}>
          {str(values.config)}
        </textarea>
        <p class="muted" id="config-help">
          {t('harvest.configHelp')}
        </p>
        <FieldError errors={errors} name="config" />
      </div>
      <div>
        <label for="owner_org">{t('datasetForm.organization')}</label>
        <select id="owner_org" name="owner_org" {...invalid(errors, 'owner_org')}>
          {orgs.map((o) => (
            <option value={text(o.id)} selected={values.owner_org === o.id}>
              {text(o.display_name) || text(o.title) || text(o.name)}
            </option>
          ))}
        </select>
        <FieldError errors={errors} name="owner_org" />
      </div>
      <div>
        <label for="private">{t('harvest.visibility')}</label>
        <select id="private" name="private">
          <option value="False" selected={values.private !== 'True'}>
            {t('common.public')}
          </option>
          <option value="True" selected={values.private === 'True'}>
            {t('common.private')}
          </option>
        </select>
      </div>
      <div>
        <button type="submit">{props.submit}</button>
      </div>
    </form>
  )
}

/** The organizations a source form offers: the caller's, plus the source's own (an editor of it may not create in it). */
async function formChoices(page: Page, current?: Dict) {
  const [harvesters, orgs] = await Promise.all([call<Dict[]>(page, 'harvesters_info_show'), creatableOrgs(page)])
  const own = current?.organization as Dict | undefined
  if (own?.id && !orgs.some((o) => o.id === own.id)) orgs.unshift(own)
  return { harvesters, orgs }
}

/** The data an action gets from the form's values (empty fields left out, as the API would). */
const dataOf = (values: Dict): Dict => ({
  url: values.url,
  title: values.title,
  name: values.name || slugify(values.title),
  notes: values.notes,
  source_type: values.source_type || undefined,
  frequency: values.frequency || undefined,
  config: values.config.trim() || undefined,
  owner_org: values.owner_org || undefined,
  private: values.private === 'True',
})

export async function newSourceView(page: Page, values: Dict = {}, errors: Errors = {}) {
  const t = page.t
  const { harvesters, orgs } = await formChoices(page)
  return (
    <Layout page={page} title={t('harvest.add')}>
      <Crumbs page={page} items={[[t('harvest.title'), '/harvest'], [t('harvest.add'), '/harvest/new']]} />
      <h1>{t('harvest.add')}</h1>
      <Summary errors={errors} page={page} labels={(k) => fieldLabel(page, k)} />
      <SourceForm page={page} action="/harvest/new" submit={t('harvest.save')} values={values} errors={errors} harvesters={harvesters} orgs={orgs} />
    </Layout>
  )
}

export async function createSource(page: Page): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const values = formValues(form)
  try {
    const s: Dict = await call(page, 'harvest_source_create', dataOf(values))
    return { redirect: sourceHref(s) }
  } catch (e) {
    if (e instanceof NotAuthorized) return { view: await newSourceView(page, values, { _: [page.t('harvest.notAllowed')] }), status: 403 }
    if (!(e instanceof ValidationError)) throw e
    return { view: await newSourceView(page, values, fieldErrors(e)), status: 409 }
  }
}

/** The source `id` if the caller may edit it (package_update's rule, as the actions; else NotAuthorized: the 404 page). */
async function editable(page: Page, id: string): Promise<Dict> {
  const s = await call<Dict>(page, 'harvest_source_show', { id })
  await requireCanEditPackage(page.ctx, { owner_org: s.owner_org ?? null, id: s.id }) // harvest_source_update's rule
  return s
}

export async function editSourceView(page: Page, id: string, values?: Dict, errors: Errors = {}) {
  const s = await editable(page, id)
  const t = page.t
  const { harvesters, orgs } = await formChoices(page, s)
  const stored: Dict = {
    url: str(s.url),
    title: str(s.title),
    name: str(s.name),
    notes: str(s.notes),
    source_type: str(s.source_type),
    frequency: str(s.frequency),
    config: str(s.config),
    owner_org: str(s.owner_org),
    private: s.private ? 'True' : 'False',
  }
  const action = `/harvest/edit/${enc(s.name)}`
  return (
    <Layout page={page} title={t('manage.editTitle', { title: titleOf(s) })}>
      <Crumbs page={page} items={[[t('harvest.title'), '/harvest'], [titleOf(s), sourceHref(s)], [t('common.edit'), action]]} />
      <h1>{t('manage.editHeading', { title: titleOf(s) })}</h1>
      <Summary errors={errors} page={page} labels={(k) => fieldLabel(page, k)} />
      <SourceForm page={page} action={action} submit={t('harvest.update')} values={values ?? stored} errors={errors} harvesters={harvesters} orgs={orgs} />
    </Layout>
  )
}

export async function updateSource(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const s = await editable(page, id)
  const values = formValues(form)
  const data = dataOf(values)
  try {
    // config left empty: the source has none (patch keeps what is not given)
    const updated: Dict = await call(page, 'harvest_source_patch', { ...data, id: s.id, name: values.name || s.name, config: data.config ?? '' })
    return { redirect: sourceHref(updated) }
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await editSourceView(page, id, values, fieldErrors(e)), status: 409 }
  }
}

// --- the source --------------------------------------------------------------------------------

export async function sourcePage(page: Page, id: string, errors: Errors = {}) {
  const s = await call<Dict>(page, 'harvest_source_show', { id })
  const t = page.t
  const editor = await mayEdit(page, s)
  const [harvesters, found] = await Promise.all([
    call<Dict[]>(page, 'harvesters_info_show'),
    call<Dict>(page, 'package_search', { fq: `extras_harvest_source_id:"${s.id}"`, rows: 10, sort: 'metadata_modified desc', include_private: true }),
  ])
  const harvester = harvesters.find((h) => h.name === s.source_type)
  const status = (s.status ?? {}) as Dict
  const last = status.last_job as Dict | null
  const open = last && (last.status === 'New' || last.status === 'Running')
  const n = enc(s.name)
  const org = s.organization as Dict | null
  return (
    <Layout title={titleOf(s)} page={page} alternate={`/api/3/action/harvest_source_show?id=${enc(s.id)}`} description={text(s.notes)}>
      <Crumbs page={page} items={[[t('harvest.title'), '/harvest'], [titleOf(s), sourceHref(s)]]} />
      <h1>
        {titleOf(s)} {s.private ? <span class="badge private">{t('common.private')}</span> : null}
      </h1>
      <Summary errors={errors} page={page} />
      {editor ? (
        <div class="actions">
          <p>
            <a class="button" href={`/harvest/edit/${n}`}>
              {t('common.edit')}
            </a>{' '}
            <a href={`/harvest/${n}/job`}>{t('harvest.jobs')}</a> · <a href={`/harvest/clear/${n}`}>{t('harvest.clear')}</a>
          </p>
          {open ? (
            <PostButton page={page} action={`/harvest/${n}/job/${enc(last!.id)}/abort`} label={t('harvest.abort')} />
          ) : (
            <PostButton page={page} action={`/harvest/refresh/${n}`} label={t('harvest.reharvest')} />
          )}
        </div>
      ) : null}
      {s.notes ? <Markdown html={renderMarkdown(s.notes)} /> : <p class="muted">{t('common.noDescription')}</p>}
      <dl class="meta">
        <dt>{t('harvest.url')}</dt>
        <dd class="mono">{text(s.url)}</dd>
        <dt>{t('harvest.type')}</dt>
        <dd>{harvester ? text(harvester.title) || text(harvester.name) : text(s.source_type)}</dd>
        <dt>{t('harvest.frequency')}</dt>
        <dd>{t('harvest.frequencyName', { f: text(s.frequency) || 'MANUAL' })}</dd>
        {org ? (
          <>
            <dt>{t('dataset.organization')}</dt>
            <dd>
              <a href={`/organization/${enc(org.name)}`}>{text(org.title) || text(org.name)}</a>
            </dd>
          </>
        ) : null}
        <dt>{t('harvest.lastJob')}</dt>
        <dd>
          {jobStatus(page, last)}
          {last?.finished ? (
            <>
              {' · '}
              <time datetime={text(last.finished)}>{page.date(last.finished, true)}</time>
            </>
          ) : last?.created ? (
            <>
              {' · '}
              <time datetime={text(last.created)}>{page.date(last.created, true)}</time>
            </>
          ) : null}
          {editor && last ? (
            <>
              {' · '}
              <a href={`/harvest/${n}/job/${enc(last.id)}`}>{t('harvest.report')}</a>
            </>
          ) : null}
        </dd>
        <dt>{t('harvest.jobCount')}</dt>
        <dd>{page.num(status.job_count ?? 0)}</dd>
        <dt>{t('nav.datasets')}</dt>
        <dd>{page.num(status.total_datasets ?? 0)}</dd>
      </dl>
      {last?.stats ? (
        <>
          <h2>{t('harvest.lastJobStats')}</h2>
          <Stats page={page} stats={last.stats} />
        </>
      ) : null}
      <h2>{t('harvest.datasets')}</h2>
      {(found.results as Dict[]).length ? (
        <ul>
          {(found.results as Dict[]).map((d) => (
            <li>
              <a href={`/dataset/${enc(d.name)}`}>{text(d.title) || text(d.name)}</a>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('harvest.noDatasets')}</p>
      )}
    </Layout>
  )
}

/** POST /harvest/refresh/<name>: a new job (harvest_job_create), then the source page. */
export async function reharvest(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const s = await editable(page, id)
  try {
    await call(page, 'harvest_job_create', { source_id: s.id })
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e
    return { view: await sourcePage(page, id, fieldErrors(e)), status: 409 }
  }
  return { redirect: sourceHref(s) }
}

export async function clearView(page: Page, id: string) {
  const s = await editable(page, id)
  const t = page.t
  const action = `/harvest/clear/${enc(s.name)}`
  return (
    <Layout page={page} title={t('harvest.clearTitle', { title: titleOf(s) })}>
      <Crumbs page={page} items={[[t('harvest.title'), '/harvest'], [titleOf(s), sourceHref(s)], [t('harvest.clear'), action]]} />
      <h1>{t('harvest.clearTitle', { title: titleOf(s) })}</h1>
      <p>{t('harvest.clearQuestion', { n: Number(s.status?.total_datasets ?? 0) })}</p>
      <form class="form" method="post" action={action}>
        <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
        <div>
          <button type="submit">{t('harvest.clear')}</button> <a href={sourceHref(s)}>{t('common.cancel')}</a>
        </div>
      </form>
    </Layout>
  )
}

/** POST /harvest/clear/<name>: harvest_source_clear, then the source page. */
export async function clearSource(page: Page, id: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const s = await editable(page, id)
  await call(page, 'harvest_source_clear', { id: s.id })
  return { redirect: sourceHref(s) }
}

// --- jobs --------------------------------------------------------------------------------------

export async function jobsPage(page: Page, id: string) {
  const s = await call<Dict>(page, 'harvest_source_show', { id })
  const jobs = await call<Dict[]>(page, 'harvest_job_list', { source_id: s.id })
  const t = page.t
  const n = enc(s.name)
  return (
    <Layout title={t('harvest.jobsOf', { title: titleOf(s) })} page={page} alternate={`/api/3/action/harvest_job_list?source_id=${enc(s.id)}`}>
      <Crumbs page={page} items={[[t('harvest.title'), '/harvest'], [titleOf(s), sourceHref(s)], [t('harvest.jobs'), `/harvest/${n}/job`]]} />
      <h1>{t('harvest.jobsOf', { title: titleOf(s) })}</h1>
      {jobs.length ? (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('harvest.created')}</th>
                <th scope="col">{t('harvest.status')}</th>
                <th scope="col">{t('harvest.finished')}</th>
                {STATS.map((k) => (
                  <th scope="col">{statLabel(page, k)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr>
                  <td>
                    <a href={`/harvest/${n}/job/${enc(j.id)}`}>
                      <time datetime={text(j.created)}>{page.date(j.created, true)}</time>
                    </a>
                  </td>
                  <td>{jobStatus(page, j)}</td>
                  <td>{j.finished ? <time datetime={text(j.finished)}>{page.date(j.finished, true)}</time> : ''}</td>
                  {STATS.map((k) => (
                    <td>{page.num(j.stats?.[k] ?? 0)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>{t('harvest.noJobs')}</p>
      )}
    </Layout>
  )
}

/** /harvest/<name>/job/<id> (or `last`): a job's counts, its gather errors and its object errors. */
export async function jobPage(page: Page, id: string, jobId: string) {
  const s = await call<Dict>(page, 'harvest_source_show', { id })
  const t = page.t
  const n = enc(s.name)
  let job: Dict | undefined
  if (jobId === 'last') {
    job = (await call<Dict[]>(page, 'harvest_job_list', { source_id: s.id }))[0]
    if (job) job = await call<Dict>(page, 'harvest_job_show', { id: job.id })
  } else {
    job = await call<Dict>(page, 'harvest_job_show', { id: jobId })
    if (job.source_id !== s.id) throw new NotFound()
  }
  const crumbs: [string, string][] = [[t('harvest.title'), '/harvest'], [titleOf(s), sourceHref(s)], [t('harvest.jobs'), `/harvest/${n}/job`]]
  if (!job)
    return (
      <Layout title={t('harvest.jobsOf', { title: titleOf(s) })} page={page}>
        <Crumbs page={page} items={crumbs} />
        <h1>{t('harvest.jobsOf', { title: titleOf(s) })}</h1>
        <p>{t('harvest.noJobs')}</p>
      </Layout>
    )
  const report = await call<Dict>(page, 'harvest_job_report', { id: job.id })
  const objectErrors = Object.entries((report.object_errors ?? {}) as Record<string, Dict>)
  const gatherErrors = (report.gather_errors ?? []) as Dict[]
  const open = job.status === 'New' || job.status === 'Running'
  const heading = t('harvest.jobTitle', { date: page.date(job.created, true) })
  return (
    <Layout title={`${heading} - ${titleOf(s)}`} page={page} alternate={`/api/3/action/harvest_job_report?id=${enc(job.id)}`} refresh={open ? 10 : undefined}>
      <Crumbs page={page} items={[...crumbs, [heading, `/harvest/${n}/job/${enc(job.id)}`]]} />
      <h1>{heading}</h1>
      <dl class="meta">
        <dt>{t('harvest.status')}</dt>
        <dd>{jobStatus(page, job)}</dd>
        <dt>{t('harvest.created')}</dt>
        <dd>
          <time datetime={text(job.created)}>{page.date(job.created, true)}</time>
        </dd>
        {job.gather_started ? (
          <>
            <dt>{t('harvest.started')}</dt>
            <dd>
              <time datetime={text(job.gather_started)}>{page.date(job.gather_started, true)}</time>
            </dd>
          </>
        ) : null}
        {job.finished ? (
          <>
            <dt>{t('harvest.finished')}</dt>
            <dd>
              <time datetime={text(job.finished)}>{page.date(job.finished, true)}</time>
            </dd>
          </>
        ) : null}
      </dl>
      {open ? <PostButton page={page} action={`/harvest/${n}/job/${enc(job.id)}/abort`} label={t('harvest.abort')} /> : null}
      <h2>{t('harvest.counts')}</h2>
      <Stats page={page} stats={job.stats} />
      <h2>{t('harvest.gatherErrors')}</h2>
      {gatherErrors.length ? (
        <ul class="errors">
          {gatherErrors.map((e) => (
            <li>
              <pre class="mono">{text(e.message)}</pre>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('harvest.noErrors')}</p>
      )}
      <h2>{t('harvest.objectErrors')}</h2>
      {objectErrors.length ? (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('harvest.guid')}</th>
                <th scope="col">{t('harvest.errors')}</th>
                <th scope="col">{t('harvest.object')}</th>
              </tr>
            </thead>
            <tbody>
              {objectErrors.map(([oid, o]) => (
                <tr>
                  <td class="mono">{o.original_url && /^https?:\/\//i.test(o.original_url) ? <a href={text(o.original_url)} rel="nofollow">{text(o.guid)}</a> : text(o.guid)}</td>
                  <td>
                    <ul class="plain">
                      {((o.errors ?? []) as Dict[]).map((e) => (
                        <li>
                          {e.type ? <span class="badge">{text(e.type)}</span> : null} {text(e.message)}
                          {typeof e.line === 'number' ? ` (${t('harvest.line', { n: e.line })})` : ''}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <a href={`/harvest/object/${enc(oid)}`}>{t('harvest.rawRecord')}</a> ·{' '}
                    <a href={`/api/3/action/harvest_object_show?id=${enc(oid)}`}>{t('harvest.objectApi')}</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">{t('harvest.noErrors')}</p>
      )}
    </Layout>
  )
}

/** POST /harvest/<name>/job/<id>/abort: harvest_job_abort, then the job's page. */
export async function abortJob(page: Page, id: string, jobId: string): Promise<Outcome> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const s = await editable(page, id)
  const job = await call<Dict>(page, 'harvest_job_show', { id: jobId })
  if (job.source_id !== s.id) throw new NotFound()
  try {
    await call(page, 'harvest_job_abort', { id: job.id })
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e // a job that ended meanwhile: its page says so
  }
  return { redirect: `/harvest/${enc(s.name)}/job/${enc(job.id)}` }
}

// --- objects -----------------------------------------------------------------------------------

/**
 * /harvest/object/<id> (and /dataset/harvest_object/<dataset>): a harvested record as stored, typed
 * XML or JSON when it parses as one (ckanext-harvest's behaviour), else plain text. Never HTML: the
 * content is the remote's, so the response is sandboxed and not sniffed.
 */
export async function objectContent(page: Page, ref: { id: string } | { dataset_id: string }): Promise<Response | null> {
  const obj = await call<Dict>(page, 'harvest_object_show', ref)
  const extras = obj.extras as unknown
  const original = Array.isArray(extras)
    ? (extras as Dict[]).find((e) => e?.key === 'original_document')?.value
    : extras && typeof extras === 'object'
      ? (extras as Dict).original_document
      : undefined
  const content = text(obj.content) || text(original)
  if (!content) return null
  let type = 'text/plain; charset=utf-8'
  let body = content
  const head = content.trimStart()
  if (head.startsWith('<')) {
    type = 'application/xml; charset=utf-8'
    if (!head.startsWith('<?xml')) body = `<?xml version="1.0" encoding="UTF-8"?>\n${content}`
  } else {
    try {
      JSON.parse(content)
      type = 'application/json; charset=utf-8'
    } catch {
      /* plain text */
    }
  }
  return new Response(body, {
    headers: {
      'content-type': type,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-cache',
    },
  })
}

/** "Harvested from …" of a harvested dataset: a link when the viewer may see the source, else its title alone. */
export async function harvestedFrom(page: Page, d: Dict): Promise<{ title: string; href?: string } | null> {
  const extras = (d.extras ?? []) as Dict[]
  const get = (k: string) => text(extras.find((e) => e?.key === k)?.value)
  const sourceId = get('harvest_source_id')
  if (!sourceId) return null
  try {
    const s = await call<Dict>(page, 'harvest_source_show', { id: sourceId })
    return { title: titleOf(s), href: sourceHref(s) }
  } catch (e) {
    if (!(e instanceof NotFound) && !(e instanceof NotAuthorized)) throw e
    const title = get('harvest_source_title')
    return title ? { title } : null
  }
}
