// Copies a catalogue from a TransferSource into this one: users (no passwords: each gets a reset
// link), organizations and groups with their members and roles, vocabularies, datasets with their
// resources, views, uploaded files and DataStore tables, and activity. Writes go through the
// actions as the site user (so validation, the search index and the change feed see every
// object), with the source's ids, names and timestamps kept; this instance records no activity
// of its own for them (the source's is copied instead) and starts no loads (the tables come with
// their rows).
//
// Resumable: what is already here is skipped. A dataset is marked in system_info
// (`transfer:incomplete:<id>`) until its files, tables, views and activity are all in, so one
// still marked when the copy is re-run was cut short or lost a part: it is purged and copied
// again. It is created as a draft and made what it is at the source as its last step.
import { eq, inArray, or } from 'drizzle-orm'
import { callAction } from '../actions/call'
import type { ActionContext, Deps, UserRow } from '../context'
import { activities, changeLog, groups, packages, systemInfo, users, vocabularies } from '../db/schema'
import { ActionError } from '../errors'
import { UnknownJobKind } from '../jobs/job-kinds'
import type { JobQueue } from '../jobs/job-queue'
import { changeRow } from '../model/changes'
import { createResetKey } from '../model/password-reset'
import { resourceFileKey } from '../model/resource-file'
import { ensureSiteUser } from '../model/site-user'
import { forgetUsers } from '../model/user'
import { resetLink } from '../notify/invite'
import { mailUser } from '../notify/mailer'
import { registryFrom } from '../scheming/load'
import { standaloneSchema, uploadFileName, type Dict, type SourceSchemas, type TransferSource } from './source'

export type Kind = 'users' | 'organizations' | 'groups' | 'vocabularies' | 'datasets' | 'files' | 'tables' | 'views' | 'activities'

export const KINDS: Kind[] = ['users', 'organizations', 'groups', 'vocabularies', 'datasets', 'files', 'tables', 'views', 'activities']

export interface ReportLine {
  kind: Kind
  /** The object's name or id at the source. */
  name: string
  reason: string
}

export interface ImportReport {
  source: string
  ckanVersion?: string
  copied: Record<Kind, number>
  skipped: Record<Kind, number>
  failed: Record<Kind, number>
  /** DataStore rows copied. */
  rows: number
  /** Why each object was skipped (other than "already here") or failed. */
  lines: ReportLine[]
  /**
   * The source's metadata schemas, when it has some and this site had none: the copy validated
   * datasets, organizations and groups with them; the server needs them as files
   * (scheming.*_schemas) to do the same.
   */
  schemas?: SourceSchemas
  /** Reset links of the users copied (printed when they could not be e-mailed). */
  resetLinks: { name: string; link: string; mailed: boolean }[]
}

export interface ImportProgress {
  phase: Kind
  done: number
  total?: number
  /** What it is working on. */
  current?: string
}

export interface ImportOptions {
  onProgress?(p: ImportProgress): void
  /** Copy activity streams (default true). */
  activity?: boolean
  /** E-mail each new user their reset link when mail is configured (default true). */
  mailUsers?: boolean
}

/** The system_info key marking a dataset whose copy is not complete (its id follows). */
const INCOMPLETE = 'transfer:incomplete:'

const zero = (): Record<Kind, number> => Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>

/** The action's message for a report line: a Validation Error's fields, else the message. */
export function messageOf(e: unknown): string {
  if (e instanceof ActionError) {
    const body = e.body() as Dict
    const parts = Object.entries(body)
      .filter(([k]) => k !== '__type')
      .map(([k, v]) => (k === 'message' ? String(v) : `${k}: ${Array.isArray(v) ? v.map(text).join(' ') : text(v)}`))
    return parts.length ? parts.join('; ') : e.message
  }
  return e instanceof Error ? e.message : String(e)
}
const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

/** Jobs as the queue has them, but no loads: a copied table comes with its rows. */
function withoutLoads(queue: JobQueue): JobQueue {
  return Object.create(queue, {
    enqueueStatement: {
      value: (job: { kind: string }) => {
        if (job.kind === 'xloader') throw new UnknownJobKind(job.kind)
        return queue.enqueueStatement(job as Parameters<JobQueue['enqueueStatement']>[0])
      },
    },
  })
}

// Keys package_show computes or the source's own bookkeeping: not inputs of package_create.
const COMPUTED_DATASET_KEYS = [
  'organization',
  'num_resources',
  'num_tags',
  'metadata_created',
  'metadata_modified',
  'creator_user_id',
  'revision_id',
  'tracking_summary',
  'relationships_as_subject',
  'relationships_as_object',
  'isopen',
  'license_title',
  'license_url',
]
const COMPUTED_GROUP_KEYS = [
  'display_name',
  'image_display_url',
  'package_count',
  'num_followers',
  'is_organization',
  'created',
  'revision_id',
  'groups',
  'tags',
  'packages',
  'users',
  'extras',
]
const COMPUTED_RESOURCE_KEYS = ['datastore_active', 'package_id', 'position', 'tracking_summary', 'revision_id']

export async function importCatalogue(deps: Deps, source: TransferSource, opts: ImportOptions = {}): Promise<ImportReport> {
  const report: ImportReport = {
    source: source.label,
    copied: zero(),
    skipped: zero(),
    failed: zero(),
    rows: 0,
    lines: [],
    resetLinks: [],
  }
  report.ckanVersion = (await source.describe()).ckanVersion
  const { user: site } = await ensureSiteUser(deps)
  const config = deps.config.with({ 'service.activity_streams_enabled': 'false', 'service.views.default_views': '' })
  // The source's schemas, where this site has none, so that custom fields are validated and kept
  // as there; where this site has its own, they apply (a field it lacks is reported by validation).
  const sourceSchemas = await source.schemas()
  let schemas = deps.schemas
  if (sourceSchemas && !schemas) {
    const texts = (kind: keyof SourceSchemas) =>
      sourceSchemas[kind].map((s, i) => ({ name: `${source.label} ${kind} schema ${i + 1}`, text: JSON.stringify(standaloneSchema(s)) }))
    schemas = registryFrom(
      {
        datasetSchemas: texts('dataset'),
        organizationSchemas: texts('organization'),
        groupSchemas: texts('group'),
        presets: [],
        datasetFallback: false,
        choicesHelpers: null,
      },
      config.str('service.locale_default'),
    )
    report.schemas = sourceSchemas
  }
  const base: ActionContext = { ...deps, config, schemas, jobs: withoutLoads(deps.jobs), user: site, ignoreAuth: true, memo: new Map() }
  /** Calls an action here; `at` is the time the write is recorded at (the source's). */
  const call = <R = Dict>(name: string, data: Dict, at?: string, as?: UserRow) =>
    callAction<R>({ ...base, memo: new Map(), seenSeq: deps.changes.lastSeq, ...(at ? { now: () => at } : {}), ...(as ? { user: as } : {}) }, name, data)
  const progress = (phase: Kind, done: number, total?: number, current?: string) =>
    opts.onProgress?.({ phase, done, total, current })
  const fail = (kind: Kind, name: string, e: unknown) => {
    report.failed[kind]++
    report.lines.push({ kind, name, reason: messageOf(e) })
  }
  const skip = (kind: Kind, name: string, reason?: string) => {
    report.skipped[kind]++
    if (reason) report.lines.push({ kind, name, reason })
  }
  const copyActivities = async (kind: 'package' | 'organization' | 'group', id: string) => {
    if (opts.activity === false) return
    const list = await source.activities(kind, id)
    const rows = list
      .filter((a) => typeof a.id === 'string' && typeof a.activity_type === 'string' && typeof a.timestamp === 'string')
      .map((a) => ({
        id: a.id as string,
        timestamp: a.timestamp as string,
        user_id: typeof a.user_id === 'string' ? a.user_id : null,
        object_id: typeof a.object_id === 'string' ? a.object_id : id,
        activity_type: a.activity_type as string,
        data: JSON.stringify(a.data ?? {}),
      }))
    for (let i = 0; i < rows.length; i += 100) {
      await deps.writer.write([deps.db.insert(activities).values(rows.slice(i, i + 100)).onConflictDoNothing()])
    }
    report.copied.activities += rows.length
  }

  // Users: a row each (the source's id, name, e-mail, dates, sysadmin flag), no password.
  let done = 0
  for await (const u of source.users()) {
    progress('users', ++done, undefined, u.name)
    if (typeof u.id !== 'string' || typeof u.name !== 'string') {
      skip('users', String(u.name ?? u.id), 'no id or name')
      continue
    }
    if (u.name === site.name) {
      skip('users', u.name, "the site user's name (this site has its own)")
      continue
    }
    if (u.state && u.state !== 'active') {
      skip('users', u.name, `state ${u.state}`)
      continue
    }
    const [here] = await deps.db
      .select({ id: users.id })
      .from(users)
      .where(or(eq(users.id, u.id), eq(users.name, u.name)))
      .limit(1)
    if (here) {
      if (here.id !== u.id) skip('users', u.name, 'another user here has this name')
      else skip('users', u.name)
      continue
    }
    try {
      await deps.writer.write([
        deps.db.insert(users).values({
          id: u.id,
          name: u.name,
          fullname: u.fullname || null,
          email: typeof u.email === 'string' && u.email ? u.email : null,
          password_hash: null,
          apikey: null,
          sysadmin: u.sysadmin === true,
          state: 'active',
          about: u.about || null,
          image_url: u.image_url || null,
          created: typeof u.created === 'string' ? u.created : deps.now(),
        }),
        deps.db.insert(changeLog).values(changeRow('user', u.id)),
      ])
      forgetUsers(base)
      report.copied.users++
      const key = await createResetKey(base, { id: u.id })
      // the site's own settings (a copy of the config keeps none set at run time)
      const link = resetLink(deps.config.str('service.site_url'), u.id, key)
      let mailed = false
      if (opts.mailUsers !== false && u.email) {
        try {
          await mailUser(deps.mailer, { name: u.name, fullname: u.fullname, email: u.email }, {
            subject: `Your account on ${deps.config.str('service.site_title')}`,
            body: [
              `Hello ${u.fullname || u.name},`,
              '',
              `Your account ${u.name} has moved to ${deps.config.str('service.site_title')} (${deps.config.str('service.site_url')}).`,
              'Passwords do not move with it: choose yours on this page:',
              '',
              `   ${link}`,
              '',
            ].join('\n'),
          })
          mailed = true
        } catch {
          mailed = false
        }
      }
      report.resetLinks.push({ name: u.name, link, mailed })
    } catch (e) {
      fail('users', u.name, e)
    }
  }

  const knownUsers = async (names: string[]) => {
    if (!names.length) return new Set<string>()
    const rows = await deps.db.select({ name: users.name }).from(users).where(inArray(users.name, names))
    return new Set(rows.map((r) => r.name))
  }

  // Organizations and groups, with their members and roles in the same write.
  for (const kind of ['organizations', 'groups'] as const) {
    const action = kind === 'organizations' ? 'organization' : 'group'
    done = 0
    for await (const g of kind === 'organizations' ? source.organizations() : source.groups()) {
      progress(kind, ++done, undefined, g.name)
      const [here] = await deps.db
        .select({ id: groups.id })
        .from(groups)
        .where(or(eq(groups.id, g.id), eq(groups.name, g.name)))
        .limit(1)
      if (here) {
        skip(kind, g.name, here.id !== g.id ? `another ${action} here has this name` : undefined)
        continue
      }
      const members: Dict[] = Array.isArray(g.users) ? g.users : []
      const present = await knownUsers(members.map((m) => m.name).filter((n) => typeof n === 'string'))
      for (const m of members)
        if (!present.has(m.name) && m.name !== site.name)
          report.lines.push({ kind, name: g.name, reason: `member ${m.name} is not a user here` })
      // made by one of its admins (CKAN makes the maker an admin), so no one else becomes a member
      const admins = members.filter((m) => m.capacity === 'admin' && present.has(m.name)).map((m) => m.name as string)
      const [maker] = admins.length ? await deps.db.select().from(users).where(eq(users.name, admins[0]!)).limit(1) : []
      try {
        await call(
          `${action}_create`,
          {
            // every field the source shows (a schema's own included) but what show computes
            ...Object.fromEntries(Object.entries(g).filter(([k]) => !COMPUTED_GROUP_KEYS.includes(k))),
            title: g.title ?? '',
            description: g.description ?? '',
            image_url: g.image_url ?? '',
            extras: Array.isArray(g.extras) ? g.extras.map((e: Dict) => ({ key: e.key, value: e.value })) : [],
            users: members.filter((m) => present.has(m.name)).map((m) => ({ name: m.name, capacity: m.capacity ?? 'member' })),
          },
          typeof g.created === 'string' ? g.created : undefined,
          maker,
        )
        if (!maker) await call('member_delete', { id: g.id, object: site.id, object_type: 'user' })
        report.copied[kind]++
        await copyActivities(action, g.id)
      } catch (e) {
        fail(kind, g.name, e)
      }
    }
  }

  // Vocabularies by name (vocabulary_create takes no id): the source's ids are mapped to ours.
  const vocabIds = new Map<string, string>()
  done = 0
  for await (const v of source.vocabularies()) {
    progress('vocabularies', ++done, undefined, v.name)
    const [here] = await deps.db.select({ id: vocabularies.id }).from(vocabularies).where(eq(vocabularies.name, v.name)).limit(1)
    if (here) {
      vocabIds.set(v.id, here.id)
      skip('vocabularies', v.name)
      continue
    }
    try {
      const made = await call('vocabulary_create', { name: v.name, tags: (v.tags ?? []).map((t: Dict) => ({ name: t.name })) })
      vocabIds.set(v.id, made.id)
      report.copied.vocabularies++
    } catch (e) {
      fail('vocabularies', v.name, e)
    }
  }

  // Datasets, one at a time, each with its files, tables, views and activity.
  const total = await source.datasetCount()
  done = 0
  for await (const d of source.datasets()) {
    progress('datasets', ++done, total, d.name)
    try {
      await copyDataset(d)
    } catch (e) {
      fail('datasets', d.name ?? d.id, e)
    }
  }
  return report

  async function copyDataset(d: Dict) {
    const [here] = await deps.db
      .select({ id: packages.id, name: packages.name, state: packages.state })
      .from(packages)
      .where(or(eq(packages.id, d.id), eq(packages.name, d.name)))
      .limit(2)
    if (here && here.id !== d.id) return skip('datasets', d.name, 'another dataset here has this name')
    const mark = INCOMPLETE + d.id
    if (here) {
      const [incomplete] = await deps.db.select().from(systemInfo).where(eq(systemInfo.key, mark)).limit(1)
      if (!incomplete) return skip('datasets', d.name)
      // cut short by an earlier run, or a part of it failed: copied again from the start (its
      // tables first: a purge leaves DataStore tables, as CKAN's does)
      const partial = await call('package_show', { id: d.id })
      for (const r of (partial.resources ?? []) as Dict[])
        if (r.datastore_active) await call('datastore_delete', { resource_id: r.id, force: true })
      await call('dataset_purge', { id: d.id })
    }
    await deps.writer.write([deps.db.insert(systemInfo).values({ key: mark, value: deps.now() }).onConflictDoNothing()])
    const failedBefore = KINDS.reduce((n, k) => n + report.failed[k], 0)

    const input: Dict = { ...d }
    for (const k of COMPUTED_DATASET_KEYS) delete input[k]
    input.state = 'draft'
    if (Array.isArray(d.groups)) input.groups = d.groups.map((g: Dict) => ({ id: g.id }))
    if (Array.isArray(d.tags))
      input.tags = d.tags.map((t: Dict) => ({
        name: t.name,
        ...(t.vocabulary_id ? { vocabulary_id: vocabIds.get(t.vocabulary_id) ?? t.vocabulary_id } : {}),
      }))
    const sourceResources: Dict[] = Array.isArray(d.resources) ? d.resources : []
    input.resources = sourceResources.map((r) => {
      const out: Dict = { ...r }
      for (const k of COMPUTED_RESOURCE_KEYS) delete out[k]
      if (r.url_type === 'upload') out.url = uploadFileName(r)
      // a table's dump link points at the source; here it is this site's own
      if (r.url_type === 'datastore') out.url = ''
      return out
    })
    // made by its creator where that user is here (creator_user_id kept), else by the site user
    const [creator] =
      typeof d.creator_user_id === 'string'
        ? await deps.db.select().from(users).where(eq(users.id, d.creator_user_id)).limit(1)
        : []
    await call('package_create', input, typeof d.metadata_created === 'string' ? d.metadata_created : undefined, creator)

    for (const r of sourceResources) {
      const label = `${d.name}/${r.name || r.id}`
      if (r.url_type === 'upload') {
        const file = await source.file(r)
        if ('missing' in file) {
          report.failed.files++
          report.lines.push({ kind: 'files', name: label, reason: file.missing })
        } else {
          try {
            await deps.blobs.put(resourceFileKey(r.id, uploadFileName(r)), file.body, file.contentType ? { contentType: file.contentType } : {})
            report.copied.files++
          } catch (e) {
            fail('files', label, e)
          }
        }
      }
      if (r.datastore_active) {
        try {
          const table = await source.table(r)
          if (!table) {
            report.lines.push({ kind: 'tables', name: label, reason: 'marked datastore_active but the source has no table' })
            report.skipped.tables++
          } else {
            // recorded at the resource's own time (a new table marks the resource modified)
            const at = typeof r.metadata_modified === 'string' ? r.metadata_modified : undefined
            await call(
              'datastore_create',
              {
                resource_id: r.id,
                force: true,
                fields: table.fields,
                ...(table.primaryKey?.length ? { primary_key: table.primaryKey } : {}),
                ...(table.indexes?.length ? { indexes: table.indexes } : {}),
              },
              at,
            )
            for await (const records of table.pages()) {
              progress('datasets', done, total, `${label}: ${report.rows} rows`)
              await call('datastore_upsert', { resource_id: r.id, force: true, method: 'insert', records }, at)
              report.rows += records.length
            }
            report.copied.tables++
          }
        } catch (e) {
          fail('tables', label, e)
        }
      }
      for (const v of await source.views(r)) {
        try {
          // resource_view_create takes no id (CKAN 2.9): the view gets a new one
          const { id: _i, package_id: _p, resource_id: _r, ...view } = v
          await call('resource_view_create', { ...view, resource_id: r.id })
          report.copied.views++
        } catch (e) {
          fail('views', `${label}/${v.title ?? v.view_type}`, e)
        }
      }
    }
    await copyActivities('package', d.id)
    // done: the dataset becomes what it is at the source, modified when it was there
    await call(
      'package_patch',
      { id: d.id, state: d.state ?? 'active' },
      typeof d.metadata_modified === 'string' ? d.metadata_modified : undefined,
    )
    report.copied.datasets++
    // a part that failed leaves the mark: the next run copies the dataset again
    if (KINDS.reduce((n, k) => n + report.failed[k], 0) === failedBefore)
      await deps.writer.write([deps.db.delete(systemInfo).where(eq(systemInfo.key, mark))])
  }
}

/** The report as text: a line per kind, then what was skipped or failed and why, then reset links. */
export function reportText(r: ImportReport): string {
  const out = [`Copied from ${r.source}${r.ckanVersion ? ` (CKAN ${r.ckanVersion})` : ''}:`]
  for (const k of KINDS) {
    if (!r.copied[k] && !r.skipped[k] && !r.failed[k]) continue
    out.push(
      `  ${k.padEnd(13)} ${String(r.copied[k]).padStart(7)} copied ${String(r.skipped[k]).padStart(7)} skipped ${String(r.failed[k]).padStart(5)} failed${k === 'tables' ? ` (${r.rows} rows)` : ''}`,
    )
  }
  if (r.lines.length) {
    out.push('', 'Skipped or failed, and why:')
    for (const l of r.lines) out.push(`  ${l.kind} ${l.name}: ${l.reason}`)
  }
  const printed = r.resetLinks.filter((l) => !l.mailed)
  if (r.resetLinks.length)
    out.push('', `${r.resetLinks.length - printed.length} users were e-mailed a link to choose their password.`)
  if (printed.length) {
    out.push('Send each of these users their link to choose a password (no mail was sent):')
    for (const l of printed) out.push(`  ${l.name} ${l.link}`)
  }
  return out.join('\n')
}
