// `npm run admin -- demo`: loads the sample catalogue of scripts/demo/ (catalogue.json and the files
// beside it) through the real actions, as the site user: organizations, groups, datasets, uploaded
// resources, then the DataStore loads the uploads queued, run here before the command ends (so the
// previews are there at the next `npm start`). Demo datasets that exist already are left alone.
import { readFile } from 'node:fs/promises'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { registry } from '../src/actions'
import { invoke } from '../src/actions/invoke'
import type { ActionContext, Deps, UserRow } from '../src/context'
import { NotFound } from '../src/errors'
import { stageInto } from '../src/http/stage-upload'
import { drain, runOptionsFrom } from '../src/jobs/runner'
import { jobKinds } from '../src/jobs/kinds'
import { ensureSiteUser } from '../src/model/site-user'
import { openNodeDeps } from '../src/runtime/node-worker'
import { discardUnclaimed, type StagedUpload } from '../src/storage/staged-upload'

export const demoUsage = 'usage: npm run admin -- demo'

/** Where the sample catalogue lives: catalogue.json and files/. */
export const DEMO_DIR = join(dirname(fileURLToPath(import.meta.url)), 'demo')

interface DemoResource {
  /** A file under files/, uploaded; or */
  file?: string
  /** a link. */
  url?: string
  name: string
  description?: string
  format?: string
}

interface DemoDataset {
  name: string
  title: string
  owner_org: string
  groups?: string[]
  tags?: string[]
  extras?: Record<string, string>
  resources?: DemoResource[]
  [field: string]: unknown
}

interface DemoCatalogue {
  organizations: { name: string; title: string; description?: string }[]
  groups: { name: string; title: string; description?: string }[]
  datasets: DemoDataset[]
}

export interface DemoSummary {
  organizations: { created: string[]; existing: string[] }
  groups: { created: string[]; existing: string[] }
  datasets: { created: string[]; existing: string[] }
  /** Uploaded tabular resources whose DataStore table was filled. */
  tables: string[]
  /** Loads that did not fill their table: resource id and what went wrong. */
  failedLoads: { resource: string; error: string }[]
}

const MEDIA_TYPES: Record<string, string> = {
  '.csv': 'text/csv',
  '.png': 'image/png',
  '.geojson': 'application/geo+json',
}

/**
 * Loads the demo catalogue into the site `deps` serves, as its site user. Organizations and
 * groups that exist are reused, datasets that exist are skipped; a dataset whose uploads fail is
 * purged again (a later run makes it anew) and the error is thrown. The loads the uploads queue
 * are run before it returns (with any other job waiting in the queue).
 */
export async function loadDemo(
  deps: Deps,
  opts: { dir?: string; log?: (line: string) => void } = {},
): Promise<DemoSummary> {
  const dir = opts.dir ?? DEMO_DIR
  const log = opts.log ?? (() => {})
  const catalogue = JSON.parse(await readFile(join(dir, 'catalogue.json'), 'utf8')) as DemoCatalogue
  const { user } = await ensureSiteUser(deps)
  const call = (name: string, input: Record<string, unknown>) => act(deps, user, name, input)
  const exists = async (name: string, id: string) => {
    try {
      await call(name, { id })
      return true
    } catch (e) {
      if (e instanceof NotFound) return false
      throw e
    }
  }
  const summary: DemoSummary = {
    organizations: { created: [], existing: [] },
    groups: { created: [], existing: [] },
    datasets: { created: [], existing: [] },
    tables: [],
    failedLoads: [],
  }

  for (const org of catalogue.organizations) {
    if (await exists('organization_show', org.name)) summary.organizations.existing.push(org.name)
    else {
      await call('organization_create', { ...org })
      summary.organizations.created.push(org.name)
      log(`organization ${org.name}`)
    }
  }
  for (const group of catalogue.groups) {
    if (await exists('group_show', group.name)) summary.groups.existing.push(group.name)
    else {
      await call('group_create', { ...group })
      summary.groups.created.push(group.name)
      log(`group ${group.name}`)
    }
  }

  const uploaded: string[] = []
  for (const d of catalogue.datasets) {
    if (await exists('package_show', d.name)) {
      summary.datasets.existing.push(d.name)
      continue
    }
    const { resources = [], groups = [], tags = [], extras = {}, ...fields } = d
    const pkg = (await call('package_create', {
      ...fields,
      groups: groups.map((name) => ({ name })),
      tags: tags.map((name) => ({ name })),
      extras: Object.entries(extras).map(([key, value]) => ({ key, value })),
      // links go with the dataset, files are uploaded one by one after it (as a publisher does)
      resources: resources
        .filter((r) => !r.file)
        .map(({ url, name, description, format }) => defined({ url, name, description, format })),
    })) as { id: string }
    try {
      for (const r of resources) {
        if (!r.file) continue
        const res = (await uploadResource(deps, user, pkg.id, join(dir, 'files', r.file), r)) as {
          id: string
          format: string
        }
        if (res.format.toUpperCase() === 'CSV') uploaded.push(res.id)
      }
    } catch (e) {
      // no half-made dataset: the next run makes it again
      await call('dataset_purge', { id: pkg.id }).catch(() => {})
      throw new Error(`dataset ${d.name}: ${(e as Error).message}`)
    }
    summary.datasets.created.push(d.name)
    log(`dataset ${d.name} (${resources.length} resource${resources.length === 1 ? '' : 's'})`)
  }

  // the loads the uploads queued (xloader jobs), run here rather than by the server later
  if (uploaded.length) {
    log(`loading ${uploaded.length} CSV file${uploaded.length === 1 ? '' : 's'} into the DataStore`)
    const { last } = await drain(deps.jobs, jobKinds, deps, runOptionsFrom(deps.config))
    if (last.status === 'error') throw new Error(`job queue: ${(last.error as Error)?.message ?? last.error}`)
  }
  for (const id of uploaded) {
    const res = (await call('resource_show', { id })) as { datastore_active?: boolean }
    if (res.datastore_active) {
      summary.tables.push(id)
      continue
    }
    const status = (await call('xloader_status', { resource_id: id }).catch(() => undefined)) as
      | { status?: string; error?: { message?: string } | string | null }
      | undefined
    const error = status?.error
    summary.failedLoads.push({
      resource: id,
      error:
        (typeof error === 'string' ? error : error?.message) ??
        `not loaded (status: ${status?.status ?? 'unknown'})`,
    })
  }
  return summary
}

/** The fields that are set (a data dict from JSON has no undefined values). */
const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

/** An action call as the action route makes it: caught up with the log, a fresh context. */
async function act(deps: Deps, user: UserRow, name: string, input: Record<string, unknown>) {
  const action = registry.get(name)
  if (!action) throw new Error(`no action ${name}`)
  await deps.changes.catchUp({ shareTurn: true })
  const ctx: ActionContext = { ...deps, user, memo: new Map() }
  try {
    return await invoke(ctx, action, input)
  } finally {
    if (!action.readOnly) deps.changes.touched()
  }
}

/** resource_create with the file in its `upload` field, staged as a multipart request's would be. */
async function uploadResource(
  deps: Deps,
  user: UserRow,
  packageId: string,
  path: string,
  r: DemoResource,
) {
  const bytes = new Uint8Array(await readFile(path))
  const staged: StagedUpload[] = []
  const fileName = path.split('/').pop()!
  const stage = stageInto(deps, staged)
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes)
      c.close()
    },
  })
  try {
    const upload = await stage(
      { name: 'upload', filename: fileName, contentType: MEDIA_TYPES[extname(path)] },
      body,
    )
    return await act(deps, user, 'resource_create', {
      ...defined({ name: r.name, description: r.description, format: r.format }),
      package_id: packageId,
      upload,
    })
  } finally {
    await discardUnclaimed(deps.blobs, staged)
  }
}

/** `npm run admin -- demo`: resolves to the process's exit code. */
export async function demoCommand(args: string[]): Promise<number> {
  if (args.length) {
    console.error(demoUsage)
    return 2
  }
  const { deps, close } = await openNodeDeps(process.env, jobKinds)
  const started = Date.now()
  try {
    const s = await loadDemo(deps, { log: (line) => console.log(`  + ${line}`) })
    const siteUrl = deps.config.str('service.site_url')
    if (!s.datasets.created.length && !s.organizations.created.length && !s.groups.created.length) {
      console.log(
        `The demo catalogue is already loaded (${s.datasets.existing.length} datasets): nothing to do.`,
      )
      return 0
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1)
    console.log(
      `Demo catalogue loaded in ${secs} s: ${s.organizations.created.length} organizations, ` +
        `${s.groups.created.length} groups, ${s.datasets.created.length} datasets, ` +
        `${s.tables.length} DataStore tables` +
        (s.datasets.existing.length ? ` (${s.datasets.existing.length} datasets were there already)` : '') +
        '.',
    )
    for (const f of s.failedLoads) console.error(`DataStore load of resource ${f.resource} failed: ${f.error}`)
    if (s.failedLoads.length) return 1
    console.log(`Start the site with \`npm start\` and open ${siteUrl}/dataset`)
    console.log('To sign in and edit, make yourself a sysadmin: npm run admin -- sysadmin add <name>')
    return 0
  } catch (e) {
    console.error(`Demo load failed: ${(e as Error).message}`)
    return 1
  } finally {
    // the search index is saved now, as the server does at shutdown, so the next start loads it
    await Promise.race([
      deps.search.flush().catch((e) => console.error('search snapshot failed', e)),
      new Promise((r) => setTimeout(r, 10_000).unref()),
    ])
    deps.search.stop()
    close()
  }
}
