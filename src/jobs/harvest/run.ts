// A harvest job's two stages, each a background job: gather (list the remote datasets into harvest
// objects) and import (write each one locally). Both resume after a crash: gather starts over,
// import carries on with the objects not yet settled, each settled in its dataset's own batch.
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { systemContext, type ActionContext, type Deps } from '../../context'
import { ValidationError, type ErrorDict } from '../../errors'
import type { RawStatement } from '../../db/executor'
import {
  currentObjectOfGuid,
  currentObjects,
  findJob,
  gatherErrorStatement,
  HARVEST_EXTRAS,
  HARVEST_TYPE,
  insertObjectsStatements,
  jobStats,
  lastErrorFreeJob,
  logStatement,
  objectErrorStatement,
  pendingObjects,
  settleObjectStatements,
  sourceConfig,
  sourceFromDict,
  type HarvestObjectRow,
  type HarvestSource,
  type LogLevel,
  type NewObject,
  type ReportStatus,
} from '../../model/harvest'
import { findPackage, packageDicts, type PackageDict } from '../../model/package'
import { createPackage, updatePackage } from '../../model/package-write'
import { deletePackage } from '../../model/package-delete'
import { ensureSiteUser } from '../../model/site-user'
import { packageWritePolicy } from '../../auth/package'
import { harvestFetcher } from './fetch'
import { harvesterNamed } from './registry'
import type { GatherContext, Harvester, ImportContext } from './types'

export const HARVEST_GATHER_KIND = 'harvest_gather'
export const HARVEST_IMPORT_KIND = 'harvest_import'

/** How many gathered objects go into one write while a listing is read. */
const GATHER_BATCH = 250
/** How many pending objects an import reads at a time (and looks for an abort between). */
const IMPORT_PAGE = 100

export interface HarvestLimits {
  pageSize: number
  timeoutMs: number
  maxObjects: number
  maxBytes: number
  concurrency: number
}

export function harvestLimits(deps: Pick<Deps, 'config'>): HarvestLimits {
  const c = deps.config
  const pos = (k: string, d: number) => (c.int(k) > 0 ? c.int(k) : d)
  return {
    pageSize: pos('service.harvest.page_size', 1000),
    timeoutMs: pos('service.harvest.timeout_seconds', 30) * 1000,
    maxObjects: pos('service.harvest.max_objects', 100_000),
    maxBytes: pos('service.harvest.max_bytes', 50_000_000),
    concurrency: pos('service.harvest.import_concurrency', 8),
  }
}

const hashOf = (text: string) => bytesToHex(sha256(utf8ToBytes(text)))

/**
 * The local id a remote dataset gets when the harvester has no preference (or its preference is
 * taken): derived from the source and the guid, so a retried import finds what it wrote.
 */
export function harvestPackageId(sourceId: string, guid: string): string {
  const h = hashOf(`harvest:${sourceId}:${guid}`)
  const variant = ((parseInt(h[16]!, 16) & 3) | 8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

/** The source a harvest job belongs to, or undefined when it is gone. */
export async function loadSource(deps: Deps, id: string): Promise<HarvestSource | undefined> {
  const dict = (await packageDicts(systemContext(deps), [id], { cache: false })).get(id)
  if (!dict || dict.type !== HARVEST_TYPE) return undefined
  return sourceFromDict(dict)
}

const logWrite = (deps: Deps, level: LogLevel, message: string) =>
  deps.writer.write([logStatement(deps.now(), level, message)]).catch(() => {})

const finishStatement = (jobId: string, now: string): RawStatement => ({
  sql: `UPDATE harvest_job SET status = 'Finished', finished = ? WHERE id = ? AND status IN ('New', 'Running')`,
  args: [now, jobId],
})

/** The gather stage: lists the source into objects, then queues the import stage. */
export async function runGather(deps: Deps, jobId: string): Promise<Record<string, unknown>> {
  const job = await findJob(deps, jobId)
  if (!job) return { skipped: 'no such harvest job' }
  if (job.status === 'Finished' || job.status === 'Aborted') return { skipped: `job is ${job.status}` }
  if (job.gather_finished) {
    // the gather's last write also queued the import: nothing is left to do here
    return { skipped: 'gathered already' }
  }
  const started = deps.now()
  // (re)start: the listing is read again; what an interrupted gather listed but did not write yet
  // is dropped, what it wrote (imported alongside the listing) stays and is not listed twice
  await deps.writer.write([
    { sql: `DELETE FROM harvest_object WHERE harvest_job_id = ? AND state = 'WAITING'`, args: [jobId] },
    { sql: `DELETE FROM harvest_gather_error WHERE harvest_job_id = ?`, args: [jobId] },
    {
      sql: `UPDATE harvest_job SET status = 'Running', gather_started = ? WHERE id = ? AND status IN ('New', 'Running')`,
      args: [started, jobId],
    },
  ])
  const source = await loadSource(deps, job.source_id)
  const harvester = source ? harvesterNamed(source.type) : undefined
  if (!source || source.state !== 'active' || !harvester) {
    const message = !source
      ? `Harvest source ${job.source_id} does not exist`
      : source.state !== 'active'
        ? `Harvest source ${source.name} is not active`
        : `Unknown harvester type: ${source.type}`
    const now = deps.now()
    await deps.writer.write([
      gatherErrorStatement(deps, jobId, now, message),
      { sql: `UPDATE harvest_job SET gather_finished = ? WHERE id = ?`, args: [now, jobId] },
      finishStatement(jobId, now),
      logStatement(now, 'ERROR', `Harvest job ${jobId}: ${message}`),
    ])
    return { gathered: 0, errors: [message] }
  }

  const limits = harvestLimits(deps)
  const config = sourceConfig(source)
  const previous = config.force_all === true || config.force_all === 'true' ? undefined : await lastErrorFreeJob(deps, source.id)
  const currents = await currentObjects(deps, source.id)
  const errors: string[] = []
  const logs: RawStatement[] = []
  let full = false
  let cursor: string | null = null
  const deleted = new Set<string>()
  const seen = new Set<string>()
  let seq = 0
  for (const r of await deps.read(`SELECT guid, seq FROM harvest_object WHERE harvest_job_id = ?`, [jobId])) {
    seen.add(String(r.guid))
    seq = Math.max(seq, Number(r.seq) + 1)
  }
  let pending: NewObject[] = []
  let toImport = 0

  const flush = async () => {
    if (!pending.length) return
    const batch = pending
    pending = []
    const now = deps.now()
    const stmts = insertObjectsStatements({ id: jobId, source_id: source.id }, now, batch)
    // objects gather finds unchanged are settled at once: nothing to import
    for (const o of batch)
      if (o.report_status === 'not modified')
        stmts.push({
          sql: `UPDATE harvest_object SET state = 'COMPLETE', import_finished = ? WHERE id = ?`,
          args: [now, o.id],
        })
    await deps.writer.write(stmts)
  }

  const ctx: GatherContext = {
    deps,
    source,
    config,
    jobId,
    previous: previous?.gather_started ? { gather_started: previous.gather_started, cursor: previous.cursor } : undefined,
    fetch: harvestFetcher(deps, limits),
    pageSize: limits.pageSize,
    maxObjects: limits.maxObjects,
    log: (level, message) => void logs.push(logStatement(deps.now(), level, message)),
    error: (message) => void errors.push(message),
    fullListing: () => void (full = true),
    knownGuids: () => [...currents.keys()],
    deleted: (guid) => void deleted.add(guid),
    setCursor: (c) => void (cursor = c),
  }

  // objects are written while the listing goes on (the remote answers while this process writes);
  // the import stage queued at the end writes what is left and finishes the job
  let gathering = true
  const importing = importPending(deps, jobId, source, harvester, () => gathering)
  let truncated = false
  try {
    for await (const o of harvester.gather(ctx)) {
      if (!o.guid || seen.has(o.guid)) continue
      if (seen.size >= limits.maxObjects) {
        truncated = true
        errors.push(
          `The source lists more than ${limits.maxObjects} datasets; only the first ${limits.maxObjects} were gathered (service.harvest.max_objects)`,
        )
        break
      }
      seen.add(o.guid)
      const hash = hashOf(`${source.config}\n${o.content}`)
      const cur = currents.get(o.guid)
      const unchanged = !!cur && cur.content_hash === hash
      if (!unchanged) toImport++
      pending.push({
        id: deps.newId(),
        guid: o.guid,
        content: unchanged ? null : o.content,
        content_hash: hash,
        metadata_modified_date: o.modified ?? null,
        extras: o.extras ?? {},
        seq: seq++,
        report_status: unchanged ? 'not modified' : undefined,
        package_id: cur?.package_id ?? null,
      })
      if (pending.length >= GATHER_BATCH) await flush()
    }
  } catch (e) {
    errors.push(messageOf(e))
    full = false // an interrupted listing says nothing about what is gone
  } finally {
    await flush().finally(() => (gathering = false))
    await importing
  }

  // remote datasets that are gone: listed as deleted, or absent from a complete listing
  const gone = new Set<string>()
  for (const g of deleted) if (!seen.has(g)) gone.add(g)
  if (full && !truncated) for (const g of currents.keys()) if (!seen.has(g)) gone.add(g)
  const goneObjects: NewObject[] = []
  for (const g of gone) {
    const cur = currents.get(g)
    if (!cur?.package_id) continue
    goneObjects.push({
      id: deps.newId(),
      guid: g,
      content: null,
      content_hash: null,
      metadata_modified_date: null,
      extras: {},
      seq: seq++,
      report_status: 'deleted',
      package_id: cur.package_id,
    })
  }
  const now = deps.now()
  const queued = deps.jobs.enqueueStatement({
    kind: HARVEST_IMPORT_KIND,
    payload: { harvest_job_id: jobId },
  })
  await deps.writer.write([
    ...insertObjectsStatements({ id: jobId, source_id: source.id }, now, goneObjects),
    ...errors.map((m) => gatherErrorStatement(deps, jobId, now, m)),
    ...logs,
    logStatement(
      now,
      'INFO',
      `Harvest job ${jobId} (${source.name}): gathered ${seen.size} datasets, ${toImport} to import, ${goneObjects.length} to delete`,
    ),
    {
      sql: `UPDATE harvest_job SET gather_finished = ?, cursor = ?, queue_job_id = ? WHERE id = ?`,
      args: [now, cursor, queued.id, jobId],
    },
    queued.statement,
  ])
  return { gathered: seen.size, to_import: toImport, to_delete: goneObjects.length, errors }
}

/**
 * Writes the job's pending objects, page by page, `concurrency` at a time. While `more()` says
 * the gather is still listing, an empty page waits for the next objects instead of ending.
 * Returns false when the job stopped running (aborted) before all were written.
 */
async function importPending(
  deps: Deps,
  jobId: string,
  source: HarvestSource | undefined,
  harvester: Harvester | undefined,
  more: () => boolean = () => false,
): Promise<boolean> {
  const { user } = await ensureSiteUser(deps)
  const base: ActionContext = { ...systemContext(deps), user, ignoreAuth: true }
  const limits = harvestLimits(deps)
  for (;;) {
    const gathering = more()
    const page = await pendingObjects(deps, jobId, IMPORT_PAGE)
    if (!page.length) {
      if (!gathering) return true
      await new Promise((r) => setTimeout(r, 50))
      continue
    }
    const again = await findJob(deps, jobId)
    if (again?.status !== 'Running') return false
    let next = 0
    const worker = async () => {
      while (next < page.length) {
        const obj = page[next++]!
        await importObject({ ...base, memo: new Map() }, source, harvester, obj)
      }
    }
    await Promise.all(Array.from({ length: Math.min(limits.concurrency, page.length) }, worker))
  }
}

/** The import stage: writes every pending object of the job, then finishes it. */
export async function runImport(deps: Deps, jobId: string): Promise<Record<string, unknown>> {
  const job = await findJob(deps, jobId)
  if (!job) return { skipped: 'no such harvest job' }
  if (job.status !== 'Running') return { skipped: `job is ${job.status}` }
  const source = await loadSource(deps, job.source_id)
  const harvester = source ? harvesterNamed(source.type) : undefined
  const done = await importPending(deps, jobId, source, harvester)
  const stats = await jobStats(deps, jobId)
  if (done) {
    const now = deps.now()
    const summary = Object.entries(stats)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')
    await deps.writer.write([
      finishStatement(jobId, now),
      logStatement(now, 'INFO', `Harvest job ${jobId} (${source?.name ?? job.source_id}) finished: ${summary || 'nothing to import'}`),
    ])
  }
  return { ...stats, aborted: !done }
}

function messageOf(e: unknown): string {
  if (e instanceof ValidationError) return validationText(e.errors)
  if (e instanceof Error) return e.message || e.name
  return String(e)
}

/** A Validation Error as one readable line: `field: message; field: message`. */
export function validationText(errors: ErrorDict): string {
  const parts: string[] = []
  const walk = (prefix: string, v: unknown) => {
    if (typeof v === 'string') parts.push(prefix ? `${prefix}: ${v}` : v)
    else if (Array.isArray(v)) v.forEach((x, i) => walk(typeof x === 'string' ? prefix : `${prefix}[${i}]`, x))
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, x)
  }
  walk('', errors)
  return `Validation error: ${parts.join('; ') || 'invalid dataset'}`
}

/** Writes one object (create, update, delete or nothing) and settles it in the same batch. */
async function importObject(
  ctx: ActionContext,
  source: HarvestSource | undefined,
  harvester: Harvester | undefined,
  obj: HarvestObjectRow,
): Promise<ReportStatus> {
  const fail = async (message: string, stage: 'Fetch' | 'Import' | 'Validation' = 'Import') => {
    const now = ctx.now()
    await ctx.writer.write([
      objectErrorStatement(ctx, obj.id, now, message, stage),
      ...settleObjectStatements(obj, now, { state: 'ERROR', report_status: 'errored' }),
    ])
    return 'errored' as const
  }
  if (!source || !harvester) return fail(source ? `Unknown harvester type: ${source.type}` : 'The harvest source is gone')
  try {
    if (obj.report_status === 'deleted') return await deleteObject(ctx, obj)
    if (obj.content === null) return await fail('The harvest object has no content', 'Fetch')
    const ictx: ImportContext = {
      deps: ctx,
      source,
      config: sourceConfig(source),
      jobId: obj.harvest_job_id,
      objectId: obj.id,
      log: (level, message) => void logWrite(ctx, level, message),
    }
    const result = await harvester.toDataset({ guid: obj.guid, content: obj.content, extras: obj.extras }, ictx)
    if ('skip' in result) {
      const now = ctx.now()
      await ctx.writer.write([
        logStatement(now, 'INFO', `Harvest object ${obj.id} (${obj.guid}) skipped: ${result.skip}`),
        ...settleObjectStatements(obj, now, { state: 'COMPLETE', report_status: 'not modified' }),
      ])
      return 'not modified'
    }
    return await writeDataset(ctx, source, obj, result.dataset, result.id)
  } catch (e) {
    return fail(messageOf(e), e instanceof ValidationError ? 'Validation' : 'Import')
  }
}

async function deleteObject(ctx: ActionContext, obj: HarvestObjectRow): Promise<ReportStatus> {
  const now = ctx.now()
  const settle = settleObjectStatements(obj, now, {
    state: 'COMPLETE',
    report_status: 'deleted',
    package_id: obj.package_id,
    current: false,
  })
  const row = obj.package_id ? await findPackage(ctx, obj.package_id) : undefined
  if (row && row.id === obj.package_id && row.state !== 'deleted') await deletePackage(ctx, row, { also: settle })
  else await ctx.writer.write(settle)
  return 'deleted'
}

/** The local dataset a remote one was written to before, if it still exists. */
async function existingTarget(
  ctx: ActionContext,
  source: HarvestSource,
  obj: HarvestObjectRow,
  preferred: string | undefined,
): Promise<{ id: string; dict?: PackageDict }> {
  const cur = obj.package_id ? { package_id: obj.package_id } : await currentObjectOfGuid(ctx, source.id, obj.guid)
  const candidates = [cur?.package_id, preferred, harvestPackageId(source.id, obj.guid)].filter(
    (x): x is string => !!x,
  )
  let free: string | undefined
  for (const id of candidates) {
    const row = await findPackage(ctx, id)
    if (!row || row.id !== id) {
      free ??= id === cur?.package_id ? undefined : id
      continue
    }
    const dict = (await packageDicts(ctx, [id])).get(id)
    if (!dict) continue
    const ours = (dict.extras as { key: string; value: unknown }[] | undefined)?.some(
      (e) => e.key === 'harvest_source_id' && e.value === source.id,
    )
    if (ours) return { id, dict }
  }
  return { id: free ?? harvestPackageId(source.id, obj.guid) }
}

async function writeDataset(
  ctx: ActionContext,
  source: HarvestSource,
  obj: HarvestObjectRow,
  dataset: Record<string, unknown>,
  preferredId: string | undefined,
): Promise<ReportStatus> {
  const target = await existingTarget(ctx, source, obj, preferredId)
  const keep = new Set<string>(HARVEST_EXTRAS)
  const extras = (Array.isArray(dataset.extras) ? (dataset.extras as { key: string; value: unknown }[]) : []).filter(
    (e) => e && !keep.has(e.key),
  )
  extras.push(
    { key: 'harvest_object_id', value: obj.id },
    { key: 'harvest_source_id', value: source.id },
    { key: 'harvest_source_title', value: source.title },
  )
  const dict: Record<string, unknown> = {
    ...dataset,
    id: target.id,
    type: dataset.type ?? 'dataset',
    owner_org: dataset.owner_org ?? source.owner_org ?? undefined,
    state: 'active',
    extras,
  }
  const policy = packageWritePolicy(ctx)
  const settle = (report: ReportStatus) =>
    settleObjectStatements(obj, ctx.now(), { state: 'COMPLETE', report_status: report, package_id: target.id, current: true })
  if (target.dict) {
    const row = (await findPackage(ctx, target.id))!
    await updatePackage(ctx, { ...dict, name: dict.name ?? target.dict.name }, row, target.dict, policy, {
      also: settle('updated'),
    })
    return 'updated'
  }
  // a name another dataset holds gets a suffix, as ckanext-harvest does
  const baseName = typeof dict.name === 'string' ? dict.name : undefined
  for (let attempt = 0; ; attempt++) {
    const name = baseName && attempt ? `${baseName.slice(0, 96)}${attempt < 10 ? `-${attempt}` : `-${hashOf(obj.guid).slice(0, 6)}`}` : baseName
    try {
      await createPackage(ctx, { ...dict, name }, policy, { also: settle('added') })
      return 'added'
    } catch (e) {
      const nameTaken =
        e instanceof ValidationError &&
        Array.isArray(e.errors.name) &&
        e.errors.name.includes('That URL is already in use.') &&
        Object.keys(e.errors).length === 1
      if (!nameTaken || !baseName || attempt >= 10) throw e
    }
  }
}
