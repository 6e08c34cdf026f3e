// Harvesting's records (ckanext-harvest's model): sources as datasets of type `harvest`, their jobs,
// the objects each job gathered, and the errors and log lines; reads, statements and CKAN's dicts.
import type { InValue } from '@libsql/client'
import type { ActionContext, Deps } from '../context'
import type { RawStatement } from '../db/executor'
import { loadPackage, packageDict, type PackageDict, type PackageRow } from './package'
import { NotFound, ValidationError } from '../errors'
import { isMissing, MISSING } from '../validation/fields'
import { unpackText } from '../lib/packed-text'
import { addMs } from '../lib/time'

/** ckanext-harvest: the dataset type of harvest sources. */
export const HARVEST_TYPE = 'harvest'

/** ckanext-harvest's frequencies (and HOURLY): how often a source runs by itself. */
export const FREQUENCIES = ['MANUAL', 'ALWAYS', 'HOURLY', 'DAILY', 'WEEKLY', 'BIWEEKLY', 'MONTHLY'] as const
export type Frequency = (typeof FREQUENCIES)[number]

/** The gap a frequency asks between two runs (ms); MANUAL never runs by itself. */
export function frequencyMs(f: string): number | undefined {
  const h = 3_600_000
  switch (f) {
    case 'ALWAYS':
      return 0
    case 'HOURLY':
      return h
    case 'DAILY':
      return 24 * h
    case 'WEEKLY':
      return 7 * 24 * h
    case 'BIWEEKLY':
      return 14 * 24 * h
    case 'MONTHLY':
      return 30 * 24 * h
    default:
      return undefined
  }
}

/** The extras a source keeps its harvest settings in (shown top-level, as ckanext-harvest does). */
export const SOURCE_KEYS = ['source_type', 'frequency', 'config'] as const

/** The extras a harvested dataset carries back to its source (ckanext-harvest's names). */
export const HARVEST_EXTRAS = ['harvest_object_id', 'harvest_source_id', 'harvest_source_title'] as const

export type JobStatus = 'New' | 'Running' | 'Finished' | 'Aborted'
export type ObjectState = 'WAITING' | 'FETCH' | 'IMPORT' | 'COMPLETE' | 'ERROR'
export type ReportStatus = 'added' | 'updated' | 'not modified' | 'errored' | 'deleted'

/** A source as runs and lists use it. */
export interface HarvestSource {
  id: string
  name: string
  title: string
  notes: string | null
  url: string
  type: string
  frequency: string
  /** The config JSON text ('' when none). */
  config: string
  owner_org: string | null
  private: boolean
  state: string
  created: string
  creator_user_id: string | null
}

type Extra = { key: string; value: unknown }

const extrasOf = (d: Record<string, unknown>): Extra[] =>
  Array.isArray(d.extras) ? (d.extras as Extra[]) : []

const extraValue = (d: Record<string, unknown>, key: string): string | undefined => {
  const e = extrasOf(d).find((x) => x.key === key)
  return e && e.value !== null && e.value !== undefined ? String(e.value) : undefined
}

/** The source a `harvest` dataset's dict describes. */
export function sourceFromDict(d: PackageDict): HarvestSource {
  return {
    id: String(d.id),
    name: String(d.name),
    title: String(d.title ?? d.name),
    notes: (d.notes as string | null) ?? null,
    url: String(d.url ?? ''),
    type: extraValue(d, 'source_type') ?? '',
    frequency: extraValue(d, 'frequency') ?? 'MANUAL',
    config: extraValue(d, 'config') ?? '',
    owner_org: (d.owner_org as string | null) ?? null,
    private: !!d.private,
    state: String(d.state ?? 'active'),
    created: String(d.metadata_created ?? ''),
    creator_user_id: (d.creator_user_id as string | null) ?? null,
  }
}

/** The parsed config of a source ({} when none or unreadable). */
export function sourceConfig(source: Pick<HarvestSource, 'config'>): Record<string, unknown> {
  if (!source.config) return {}
  try {
    const v = JSON.parse(source.config)
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/**
 * ckanext-harvest's harvest_source_show dict: the dataset with source_type, frequency and config
 * top-level (and the config's keys beside them), out of the extras.
 */
export function sourceShowDict(d: PackageDict): Record<string, unknown> {
  const s = sourceFromDict(d)
  const keys = new Set<string>(SOURCE_KEYS)
  const out: Record<string, unknown> = { ...d, extras: extrasOf(d).filter((e) => !keys.has(e.key)) }
  for (const [k, v] of Object.entries(sourceConfig(s))) if (!(k in out)) out[k] = v
  out.source_type = s.type
  out.frequency = s.frequency
  out.config = s.config || null
  return out
}

// --- reads ---------------------------------------------------------------------------------

/** Ids of the active harvest sources, newest first (optionally of one organization). */
export async function sourceIds(
  deps: Pick<Deps, 'read'>,
  opts: { orgId?: string; includeDeleted?: boolean } = {},
): Promise<string[]> {
  const where = ['type = ?']
  const args: InValue[] = [HARVEST_TYPE]
  if (!opts.includeDeleted) where.push("state = 'active'")
  if (opts.orgId) {
    where.push('owner_org = ?')
    args.push(opts.orgId)
  }
  const rows = await deps.read(
    `SELECT id FROM package WHERE ${where.join(' AND ')} ORDER BY metadata_created DESC, id`,
    args,
  )
  return rows.map((r) => String(r.id))
}

export interface HarvestJobRow {
  id: string
  source_id: string
  created: string
  gather_started: string | null
  gather_finished: string | null
  finished: string | null
  status: JobStatus
  queue_job_id: string | null
  cursor: string | null
}

const JOB_COLUMNS =
  'id, source_id, created, gather_started, gather_finished, finished, status, queue_job_id, cursor'

const toJob = (r: Record<string, unknown>): HarvestJobRow => ({
  id: String(r.id),
  source_id: String(r.source_id),
  created: String(r.created),
  gather_started: (r.gather_started as string | null) ?? null,
  gather_finished: (r.gather_finished as string | null) ?? null,
  finished: (r.finished as string | null) ?? null,
  status: String(r.status) as JobStatus,
  queue_job_id: (r.queue_job_id as string | null) ?? null,
  cursor: (r.cursor as string | null) ?? null,
})

export async function findJob(deps: Pick<Deps, 'read'>, id: string): Promise<HarvestJobRow | undefined> {
  const [r] = await deps.read(`SELECT ${JOB_COLUMNS} FROM harvest_job WHERE id = ?`, [id])
  return r ? toJob(r) : undefined
}

/** Jobs newest first, by source and status when given. */
export async function listJobs(
  deps: Pick<Deps, 'read'>,
  opts: { sourceId?: string; status?: string; limit?: number } = {},
): Promise<HarvestJobRow[]> {
  const where: string[] = []
  const args: InValue[] = []
  if (opts.sourceId) {
    where.push('source_id = ?')
    args.push(opts.sourceId)
  }
  if (opts.status) {
    where.push('status = ?')
    args.push(opts.status)
  }
  const rows = await deps.read(
    `SELECT ${JOB_COLUMNS} FROM harvest_job ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created DESC, rowid DESC ${opts.limit ? `LIMIT ${Math.floor(opts.limit)}` : ''}`,
    args,
  )
  return rows.map(toJob)
}

/** The source's job that is waiting or running, if any (there is at most one). */
export async function openJob(deps: Pick<Deps, 'read'>, sourceId: string) {
  const [r] = await deps.read(
    `SELECT ${JOB_COLUMNS} FROM harvest_job WHERE source_id = ? AND status IN ('New', 'Running')`,
    [sourceId],
  )
  return r ? toJob(r) : undefined
}

/** The source's last job that finished (not aborted): where an incremental run starts. */
export async function lastFinishedJob(deps: Pick<Deps, 'read'>, sourceId: string) {
  const [r] = await deps.read(
    `SELECT ${JOB_COLUMNS} FROM harvest_job WHERE source_id = ? AND status = 'Finished'
     ORDER BY created DESC, rowid DESC LIMIT 1`,
    [sourceId],
  )
  return r ? toJob(r) : undefined
}

/**
 * The source's last finished job without errors (no gather error, no object that failed to import):
 * where an incremental run starts, as ckanext-harvest's last_error_free_job (a run that failed part
 * of its listing or imports must not move the `since` point past what it missed).
 */
export async function lastErrorFreeJob(deps: Pick<Deps, 'read'>, sourceId: string) {
  const [r] = await deps.read(
    `SELECT ${JOB_COLUMNS} FROM harvest_job j WHERE source_id = ? AND status = 'Finished' AND gather_started IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM harvest_gather_error g WHERE g.harvest_job_id = j.id)
       AND NOT EXISTS (SELECT 1 FROM harvest_object o WHERE o.harvest_job_id = j.id AND o.state = 'ERROR')
     ORDER BY gather_started DESC, rowid DESC LIMIT 1`,
    [sourceId],
  )
  return r ? toJob(r) : undefined
}

export interface HarvestObjectRow {
  id: string
  guid: string
  current: boolean
  gathered: string
  fetch_started: string | null
  content: string | null
  fetch_finished: string | null
  import_started: string | null
  import_finished: string | null
  state: ObjectState
  metadata_modified_date: string | null
  retry_times: number
  harvest_job_id: string
  harvest_source_id: string
  package_id: string | null
  report_status: ReportStatus | null
  content_hash: string | null
  extras: Record<string, string>
  seq: number
}

const OBJECT_COLUMNS =
  'id, guid, current, gathered, fetch_started, content, fetch_finished, import_started, ' +
  'import_finished, state, metadata_modified_date, retry_times, harvest_job_id, harvest_source_id, ' +
  'package_id, report_status, content_hash, extras, seq'

function toObject(r: Record<string, unknown>, unpack: (v: unknown) => string | null): HarvestObjectRow {
  let extras: Record<string, string> = {}
  try {
    extras = JSON.parse(String(r.extras ?? '{}'))
  } catch {
    extras = {}
  }
  return {
    id: String(r.id),
    guid: String(r.guid ?? ''),
    current: Number(r.current) === 1,
    gathered: String(r.gathered),
    fetch_started: (r.fetch_started as string | null) ?? null,
    content: unpack(r.content),
    fetch_finished: (r.fetch_finished as string | null) ?? null,
    import_started: (r.import_started as string | null) ?? null,
    import_finished: (r.import_finished as string | null) ?? null,
    state: String(r.state) as ObjectState,
    metadata_modified_date: (r.metadata_modified_date as string | null) ?? null,
    retry_times: Number(r.retry_times ?? 0),
    harvest_job_id: String(r.harvest_job_id),
    harvest_source_id: String(r.harvest_source_id),
    package_id: (r.package_id as string | null) ?? null,
    report_status: (r.report_status as ReportStatus | null) ?? null,
    content_hash: (r.content_hash as string | null) ?? null,
    extras,
    seq: Number(r.seq ?? 0),
  }
}

const unpack = (v: unknown) => unpackText(v as string | Uint8Array | null) ?? null

export async function findObject(deps: Pick<Deps, 'read'>, id: string) {
  const [r] = await deps.read(`SELECT ${OBJECT_COLUMNS} FROM harvest_object WHERE id = ?`, [id])
  return r ? toObject(r, unpack) : undefined
}

/** The current object of a local dataset (the one it was last written from). */
export async function currentObjectOfPackage(deps: Pick<Deps, 'read'>, packageId: string) {
  const [r] = await deps.read(
    `SELECT ${OBJECT_COLUMNS} FROM harvest_object WHERE package_id = ? AND current = 1
     ORDER BY import_finished DESC LIMIT 1`,
    [packageId],
  )
  return r ? toObject(r, unpack) : undefined
}

/** Object ids of a source (only the current ones by default), or of every source. */
export async function objectIds(
  deps: Pick<Deps, 'read'>,
  opts: { sourceId?: string; onlyCurrent?: boolean },
): Promise<string[]> {
  const where: string[] = []
  const args: InValue[] = []
  if (opts.sourceId) {
    where.push('harvest_source_id = ?')
    args.push(opts.sourceId)
  }
  if (opts.onlyCurrent !== false) where.push('current = 1')
  const rows = await deps.read(
    `SELECT id FROM harvest_object ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY gathered, seq`,
    args,
  )
  return rows.map((r) => String(r.id))
}

/** The next objects of a job still to import, in gather order. */
export async function pendingObjects(deps: Pick<Deps, 'read'>, jobId: string, limit: number) {
  const rows = await deps.read(
    `SELECT ${OBJECT_COLUMNS} FROM harvest_object
     WHERE harvest_job_id = ? AND state IN ('WAITING', 'FETCH', 'IMPORT') ORDER BY seq LIMIT ?`,
    [jobId, limit],
  )
  return rows.map((r) => toObject(r, unpack))
}

/** The source's current objects by guid: what each remote dataset was last written from. */
export async function currentObjects(
  deps: Pick<Deps, 'read'>,
  sourceId: string,
): Promise<Map<string, { id: string; package_id: string | null; content_hash: string | null; metadata_modified_date: string | null }>> {
  const rows = await deps.read(
    `SELECT id, guid, package_id, content_hash, metadata_modified_date FROM harvest_object
     WHERE harvest_source_id = ? AND current = 1`,
    [sourceId],
  )
  const out = new Map()
  for (const r of rows)
    out.set(String(r.guid), {
      id: String(r.id),
      package_id: (r.package_id as string | null) ?? null,
      content_hash: (r.content_hash as string | null) ?? null,
      metadata_modified_date: (r.metadata_modified_date as string | null) ?? null,
    })
  return out
}

/** The current object of one guid of a source: its id and the local dataset it was written to. */
export async function currentObjectOfGuid(
  deps: Pick<Deps, 'read'>,
  sourceId: string,
  guid: string,
): Promise<{ id: string; package_id: string | null } | undefined> {
  const [r] = await deps.read(
    `SELECT id, package_id FROM harvest_object WHERE harvest_source_id = ? AND guid = ? AND current = 1 LIMIT 1`,
    [sourceId, guid],
  )
  return r ? { id: String(r.id), package_id: (r.package_id as string | null) ?? null } : undefined
}

// --- statements ----------------------------------------------------------------------------

export function insertJobStatement(job: { id: string; source_id: string; created: string; queue_job_id: string }): RawStatement {
  return {
    sql: `INSERT INTO harvest_job (id, source_id, created, status, queue_job_id) VALUES (?, ?, ?, 'New', ?)`,
    args: [job.id, job.source_id, job.created, job.queue_job_id],
  }
}

export interface NewObject {
  id: string
  guid: string
  content: string | null
  content_hash: string | null
  metadata_modified_date: string | null
  extras: Record<string, string>
  seq: number
  /** 'deleted': the remote dataset is gone; the import deletes its local copy. */
  report_status?: ReportStatus
  package_id?: string | null
}

/** Inserts gathered objects of a job (WAITING). */
export function insertObjectsStatements(
  job: { id: string; source_id: string },
  now: string,
  objects: NewObject[],
): RawStatement[] {
  return objects.map((o) => ({
    sql: `INSERT INTO harvest_object (id, guid, current, gathered, content, state, metadata_modified_date,
            harvest_job_id, harvest_source_id, package_id, report_status, content_hash, extras, seq)
          VALUES (?, ?, 0, ?, ?, 'WAITING', ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [
      o.id,
      o.guid,
      now,
      // as it came: deflating every record of a run cost an eighth of a harvest's CPU (reads
      // still take the deflated rows written before)
      o.content,
      o.metadata_modified_date,
      job.id,
      job.source_id,
      o.package_id ?? null,
      o.report_status ?? null,
      o.content_hash,
      JSON.stringify(o.extras),
      o.seq,
    ],
  }))
}

/**
 * An object's outcome: COMPLETE (or ERROR) with its report status; a written dataset makes it
 * the current object of its guid (the previous current one stops being so).
 */
export function settleObjectStatements(
  obj: Pick<HarvestObjectRow, 'id' | 'guid' | 'harvest_source_id'>,
  now: string,
  outcome: { state: 'COMPLETE' | 'ERROR'; report_status: ReportStatus; package_id?: string | null; current?: boolean },
): RawStatement[] {
  const out: RawStatement[] = []
  if (outcome.current !== undefined)
    out.push({
      sql: `UPDATE harvest_object SET current = 0 WHERE harvest_source_id = ? AND guid = ? AND current = 1 AND id <> ?`,
      args: [obj.harvest_source_id, obj.guid, obj.id],
    })
  // an object another runner settled meanwhile (a lease that ran out under a live runner) stays
  out.push({
    sql: `UPDATE harvest_object SET state = ?, report_status = ?, import_finished = ?,
            fetch_finished = COALESCE(fetch_finished, ?), package_id = COALESCE(?, package_id),
            current = ?
          WHERE id = ? AND state NOT IN ('COMPLETE', 'ERROR')`,
    args: [
      outcome.state,
      outcome.report_status,
      now,
      now,
      outcome.package_id ?? null,
      outcome.current ? 1 : 0,
      obj.id,
    ],
  })
  return out
}

export function objectErrorStatement(
  deps: Pick<Deps, 'newId'>,
  objectId: string,
  now: string,
  message: string,
  stage: 'Fetch' | 'Import' | 'Validation',
  line: number | null = null,
): RawStatement {
  return {
    sql: `INSERT INTO harvest_object_error (id, harvest_object_id, message, stage, line, created)
          SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (
            SELECT 1 FROM harvest_object WHERE id = ? AND state NOT IN ('COMPLETE', 'ERROR'))`,
    args: [deps.newId(), objectId, message, stage, line, now, objectId],
  }
}

export function gatherErrorStatement(deps: Pick<Deps, 'newId'>, jobId: string, now: string, message: string): RawStatement {
  return {
    sql: `INSERT INTO harvest_gather_error (id, harvest_job_id, message, created) VALUES (?, ?, ?, ?)`,
    args: [deps.newId(), jobId, message, now],
  }
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL'

export function logStatement(now: string, level: LogLevel, content: string): RawStatement {
  return { sql: `INSERT INTO harvest_log (content, level, created) VALUES (?, ?, ?)`, args: [content, level, now] }
}

// --- dicts ---------------------------------------------------------------------------------

export type JobStats = Record<ReportStatus, number>

/** A job's counts by report status; errored counts objects with errors and gather errors. */
export async function jobStats(deps: Pick<Deps, 'read'>, jobId: string): Promise<JobStats> {
  const stats: JobStats = { added: 0, updated: 0, 'not modified': 0, errored: 0, deleted: 0 }
  const rows = await deps.read(
    `SELECT report_status, count(*) AS n FROM harvest_object WHERE harvest_job_id = ? AND report_status IS NOT NULL GROUP BY report_status`,
    [jobId],
  )
  for (const r of rows) stats[String(r.report_status) as ReportStatus] = Number(r.n)
  const [withErrors] = await deps.read(
    `SELECT count(DISTINCT e.harvest_object_id) AS n FROM harvest_object_error e
     JOIN harvest_object o ON o.id = e.harvest_object_id WHERE o.harvest_job_id = ?`,
    [jobId],
  )
  if (Number(withErrors?.n) > 0) stats.errored = Number(withErrors!.n)
  const [gather] = await deps.read(`SELECT count(*) AS n FROM harvest_gather_error WHERE harvest_job_id = ?`, [jobId])
  if (Number(gather?.n) > 0) stats.errored += Number(gather!.n)
  return stats
}

/** ckanext-harvest's harvest_job_dictize: the job's columns, its stats and error summaries. */
export async function jobDict(
  deps: Pick<Deps, 'read'>,
  job: HarvestJobRow,
  opts: { stats?: boolean; errorSummary?: boolean } = {},
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    id: job.id,
    created: job.created,
    gather_started: job.gather_started,
    gather_finished: job.gather_finished,
    finished: job.finished,
    source_id: job.source_id,
    status: job.status,
  }
  if (opts.stats !== false) out.stats = await jobStats(deps, job.id)
  if (opts.errorSummary !== false) {
    out.object_error_summary = (
      await deps.read(
        `SELECT e.message, count(*) AS error_count FROM harvest_object_error e
         JOIN harvest_object o ON o.id = e.harvest_object_id WHERE o.harvest_job_id = ?
         GROUP BY e.message ORDER BY error_count DESC LIMIT 20`,
        [job.id],
      )
    ).map((r) => ({ message: String(r.message), error_count: Number(r.error_count) }))
    out.gather_error_summary = (
      await deps.read(
        `SELECT message, count(*) AS error_count FROM harvest_gather_error WHERE harvest_job_id = ?
         GROUP BY message ORDER BY error_count DESC LIMIT 20`,
        [job.id],
      )
    ).map((r) => ({ message: String(r.message), error_count: Number(r.error_count) }))
  }
  return out
}

/** ckanext-harvest's harvest_job_report: gather errors, and object errors by object with the guid. */
export async function jobReport(deps: Pick<Deps, 'read'>, job: HarvestJobRow, originalUrl?: (guid: string) => string | undefined) {
  const gather = await deps.read(
    `SELECT message FROM harvest_gather_error WHERE harvest_job_id = ? ORDER BY created DESC`,
    [job.id],
  )
  const errors = await deps.read(
    `SELECT e.harvest_object_id, e.message, e.line, e.stage, o.guid FROM harvest_object_error e
     JOIN harvest_object o ON o.id = e.harvest_object_id WHERE o.harvest_job_id = ?
     ORDER BY e.harvest_object_id, e.created`,
    [job.id],
  )
  const objectErrors: Record<string, { guid: string; original_url?: string; errors: { message: string; line: number | null; type: string }[] }> = {}
  for (const r of errors) {
    const id = String(r.harvest_object_id)
    let entry = objectErrors[id]
    if (!entry) {
      entry = objectErrors[id] = { guid: String(r.guid), errors: [] }
      const url = originalUrl?.(String(r.guid))
      if (url) entry.original_url = url
    }
    entry.errors.push({ message: String(r.message), line: (r.line as number | null) ?? null, type: String(r.stage) })
  }
  return { gather_errors: gather.map((r) => ({ message: String(r.message) })), object_errors: objectErrors }
}

/** ckanext-harvest's harvest_object_dictize (content as stored; errors and extras). */
export async function objectDict(deps: Pick<Deps, 'read'>, obj: HarvestObjectRow): Promise<Record<string, unknown>> {
  const errors = await deps.read(
    `SELECT id, harvest_object_id, message, stage, line, created FROM harvest_object_error WHERE harvest_object_id = ? ORDER BY created`,
    [obj.id],
  )
  const out: Record<string, unknown> = {
    id: obj.id,
    guid: obj.guid,
    current: obj.current,
    gathered: obj.gathered,
    fetch_started: obj.fetch_started,
    content: obj.content,
    fetch_finished: obj.fetch_finished,
    import_started: obj.import_started,
    import_finished: obj.import_finished,
    state: obj.state,
    metadata_modified_date: obj.metadata_modified_date,
    retry_times: obj.retry_times,
    harvest_job_id: obj.harvest_job_id,
    harvest_source_id: obj.harvest_source_id,
    package_id: obj.package_id,
    report_status: obj.report_status,
    source: obj.harvest_source_id,
    job: obj.harvest_job_id,
    errors: errors.map((e) => ({
      id: String(e.id),
      harvest_object_id: String(e.harvest_object_id),
      message: String(e.message),
      stage: String(e.stage),
      line: (e.line as number | null) ?? null,
      created: String(e.created),
    })),
    extras: obj.extras,
  }
  if (obj.package_id) out.package = obj.package_id
  return out
}

/** ckanext-harvest's harvest_source_show_status: job count, the last job, datasets kept current. */
export async function sourceStatus(deps: Pick<Deps, 'read'>, sourceId: string) {
  const [count] = await deps.read(`SELECT count(*) AS n FROM harvest_job WHERE source_id = ?`, [sourceId])
  const out: Record<string, unknown> = { job_count: 0, last_job: null, total_datasets: 0 }
  const n = Number(count?.n ?? 0)
  if (!n) return out
  out.job_count = n
  const [last] = await listJobs(deps, { sourceId, limit: 1 })
  if (last) out.last_job = await jobDict(deps, last)
  const [total] = await deps.read(
    `SELECT count(DISTINCT p.id) AS n FROM harvest_object o JOIN package p ON p.id = o.package_id
     WHERE o.harvest_source_id = ? AND o.current = 1 AND p.state = 'active' AND p.private = 0`,
    [sourceId],
  )
  out.total_datasets = Number(total?.n ?? 0)
  return out
}

/** ckanext-harvest's older source status (harvest_source_show's `status` in list entries). */
export async function sourceListStatus(deps: Pick<Deps, 'read'>, sourceId: string) {
  const [count] = await deps.read(`SELECT count(*) AS n FROM harvest_job WHERE source_id = ?`, [sourceId])
  const n = Number(count?.n ?? 0)
  const out: Record<string, unknown> = { job_count: 0, next_harvest: '', last_harvest_request: '' }
  if (!n) return { ...out, msg: 'No jobs yet' }
  out.job_count = n
  const open = await openJob(deps, sourceId)
  out.next_harvest = open?.status === 'New' ? 'Scheduled' : 'Not yet scheduled'
  const last = await lastFinishedJob(deps, sourceId)
  out.last_harvest_request = last ? String(last.gather_finished ?? last.finished) : 'Not yet harvested'
  return out
}

/** The entry harvest_source_list gives for a source (ckanext-harvest's harvest_source_dictize). */
export async function sourceListEntry(
  ctx: Pick<ActionContext, 'read'>,
  s: HarvestSource,
  publisherTitle: string,
  nextRun: string | null,
): Promise<Record<string, unknown>> {
  return {
    id: s.id,
    url: s.url,
    title: s.title,
    description: s.notes ?? '',
    config: s.config,
    created: s.created,
    type: s.type,
    active: s.state === 'active',
    user_id: s.creator_user_id ?? '',
    publisher_id: s.owner_org ?? '',
    frequency: s.frequency,
    next_run: nextRun,
    publisher_title: publisherTitle,
    status: await sourceListStatus(ctx, s.id),
  }
}

/** When a source runs next by itself (null: MANUAL, or a job is already waiting). */
export async function nextRun(deps: Pick<Deps, 'read'>, s: Pick<HarvestSource, 'id' | 'frequency' | 'created'>): Promise<string | null> {
  const gap = frequencyMs(s.frequency)
  if (gap === undefined) return null
  const [last] = await listJobs(deps, { sourceId: s.id, limit: 1 })
  return last ? addMs(last.created, gap) : s.created || null
}

/**
 * The harvest source named by a raw id or name (its dataset row); NotFound ('Harvest source not
 * found') when there is none, or the dataset is not a source.
 */
export async function loadSourceRow(ctx: ActionContext, idOrName: unknown, field = 'id'): Promise<PackageRow> {
  const row = await loadPackage(ctx, idOrName, { field, notFound: 'Harvest source not found' })
  if (row.type !== HARVEST_TYPE) throw new NotFound('Harvest source not found')
  return row
}

/** The harvest job a raw id names; NotFound when there is none. */
export async function loadJob(ctx: ActionContext, id: unknown): Promise<HarvestJobRow> {
  if (isMissing(id) || typeof id === 'object') throw new ValidationError({ id: [MISSING] })
  const job = await findJob(ctx, String(id))
  if (!job) throw new NotFound('Harvest job not found')
  return job
}

/** harvest_source_show's answer: the source dataset's dict, its settings top-level, its status. */
export async function sourceShow(ctx: ActionContext, row: PackageRow): Promise<Record<string, unknown>> {
  const dict = await packageDict(ctx, row.id)
  return { ...sourceShowDict(dict), status: await sourceStatus(ctx, row.id) }
}

/**
 * Deletes a source's job history: its jobs, objects and their errors. `keepCurrent`: the objects
 * local datasets were last written from stay, with their jobs (ckanext-harvest's keep_current).
 */
export function clearHistoryStatements(sourceId: string, keepCurrent: boolean): RawStatement[] {
  const objects = keepCurrent
    ? `SELECT id FROM harvest_object WHERE harvest_source_id = ? AND current = 0`
    : `SELECT id FROM harvest_object WHERE harvest_source_id = ?`
  const jobs = keepCurrent
    ? `SELECT id FROM harvest_job WHERE source_id = ? AND status NOT IN ('New', 'Running')
         AND id NOT IN (SELECT harvest_job_id FROM harvest_object WHERE harvest_source_id = ? AND current = 1)`
    : `SELECT id FROM harvest_job WHERE source_id = ?`
  const jobArgs = keepCurrent ? [sourceId, sourceId] : [sourceId]
  return [
    { sql: `DELETE FROM harvest_object_error WHERE harvest_object_id IN (${objects})`, args: [sourceId] },
    { sql: `DELETE FROM harvest_object WHERE id IN (${objects})`, args: [sourceId] },
    { sql: `DELETE FROM harvest_gather_error WHERE harvest_job_id IN (${jobs})`, args: jobArgs },
    { sql: `DELETE FROM harvest_job WHERE id IN (${jobs})`, args: jobArgs },
  ]
}

/** Ids of the local datasets a source's objects point at (what clearing the source purges). */
export async function harvestedPackageIds(deps: Pick<Deps, 'read'>, sourceId: string): Promise<string[]> {
  const rows = await deps.read(
    `SELECT DISTINCT package_id FROM harvest_object WHERE harvest_source_id = ? AND package_id IS NOT NULL`,
    [sourceId],
  )
  return rows.map((r) => String(r.package_id))
}

/**
 * Stops a job that is waiting or running: status Aborted, its unsettled objects ERROR. The import
 * stage looks at the status between pages and stops.
 */
export function abortStatements(jobId: string, now: string): RawStatement[] {
  return [
    {
      sql: `UPDATE harvest_job SET status = 'Aborted', finished = ? WHERE id = ? AND status IN ('New', 'Running')`,
      args: [now, jobId],
    },
    {
      sql: `UPDATE harvest_object SET state = 'ERROR' WHERE harvest_job_id = ? AND state NOT IN ('COMPLETE', 'ERROR')`,
      args: [jobId],
    },
    logStatement(now, 'INFO', `Harvest job ${jobId} aborted`),
  ]
}
