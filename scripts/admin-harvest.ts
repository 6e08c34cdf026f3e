// `npm run admin -- harvest …` (like ckanext-harvest's `ckan harvester` commands): list the sources,
// run one in this process (gather, then import, with the app's job kinds) with a progress line and
// its report, clear one, or stop its job. As the site user, so private sources are included.
import { callAction } from '../src/actions/call'
import { systemContext, type ActionContext, type Deps } from '../src/context'
import { findJob, openJob, type HarvestJobRow } from '../src/model/harvest'
import { ensureSiteUser } from '../src/model/site-user'
import { jobKinds } from '../src/jobs/kinds'
import { HARVEST_GATHER_KIND, HARVEST_IMPORT_KIND } from '../src/jobs/harvest/run'
import { openNodeDeps } from '../src/runtime/node-worker'
import { messageOf } from '../src/transfer/importer'

export const harvestUsage = `usage: npm run admin -- harvest sources
       npm run admin -- harvest run SOURCE
       npm run admin -- harvest clear SOURCE
       npm run admin -- harvest job-abort SOURCE`

/** What each harvest command does (`npm run admin -- help`). */
export const harvestHelp = `   sources      the harvest sources: name, type, frequency, last job's status, URL
   run          runs SOURCE's waiting job (or a new one) here: gather, then import, with a progress
                line on stderr and the job's report at the end; exits 1 if the job recorded any
                error (gather or object errors) or was stopped, 0 otherwise
   clear        purges the datasets SOURCE harvested and its job history (the source stays)
   job-abort    stops SOURCE's waiting or running job`

type Dict = Record<string, any>

const STATS = ['added', 'updated', 'not modified', 'deleted', 'errored'] as const

/** Runs the command; resolves to the process's exit code. */
export async function harvestCommand(args: string[]): Promise<number> {
  const [verb, source, ...rest] = args
  const needsSource = verb === 'run' || verb === 'clear' || verb === 'job-abort'
  if (!(verb === 'sources' && !source) && !(needsSource && source && !rest.length)) {
    console.error(harvestUsage)
    return 2
  }
  const { deps, close } = await openNodeDeps(process.env)
  try {
    const { user } = await ensureSiteUser(deps)
    const ctx: ActionContext = { ...systemContext(deps), user, ignoreAuth: true }
    const call = <R = Dict>(name: string, data: Dict) => callAction<R>({ ...ctx, memo: new Map() }, name, data)
    if (verb === 'sources') return await listSources(call)
    const s = await call('harvest_source_show', { id: source })
    if (verb === 'clear') {
      await call('harvest_source_clear', { id: s.id })
      console.log(`Cleared ${s.name}: its harvested datasets and job history are gone.`)
      return 0
    }
    if (verb === 'job-abort') {
      const open = await openJob(deps, s.id)
      if (!open) {
        console.error(`${s.name} has no waiting or running job.`)
        return 1
      }
      await call('harvest_job_abort', { id: open.id })
      console.log(`Stopped job ${open.id} of ${s.name}.`)
      return 0
    }
    return await runSource(deps, call, s)
  } catch (e) {
    console.error(messageOf(e))
    return 1
  } finally {
    close()
  }
}

async function listSources(call: <R = Dict>(name: string, data: Dict) => Promise<R>): Promise<number> {
  const list = await call<Dict[]>('harvest_source_list', { return_last_job_status: true })
  if (!list.length) {
    console.log('No harvest sources.')
    return 0
  }
  const rows = await Promise.all(
    list.map(async (e) => {
      const s = await call('harvest_source_show', { id: e.id })
      const last = e.last_job_status as Dict | undefined
      return [String(s.name), String(s.source_type), String(s.frequency), last?.status ? String(last.status) : '-', String(s.url)]
    }),
  )
  const head = ['NAME', 'TYPE', 'FREQUENCY', 'LAST JOB', 'URL']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  for (const r of [head, ...rows]) console.log(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '))
  return 0
}

/** Objects of the job: listed so far, and settled (imported, unchanged or failed). */
async function progressOf(deps: Deps, jobId: string) {
  const [r] = await deps.read(
    `SELECT count(*) AS total, sum(CASE WHEN state IN ('COMPLETE', 'ERROR') THEN 1 ELSE 0 END) AS done
     FROM harvest_object WHERE harvest_job_id = ?`,
    [jobId],
  )
  return { total: Number(r?.total ?? 0), done: Number(r?.done ?? 0) }
}

async function runSource(deps: Deps, call: <R = Dict>(name: string, data: Dict) => Promise<R>, s: Dict): Promise<number> {
  // the source's waiting job if it has one, else a new one that no runner is asked to take
  let job: HarvestJobRow | undefined = await openJob(deps, s.id)
  if (!job) job = await findJob(deps, (await call('harvest_job_create', { source_id: s.id, run: false })).id)
  const jobId = job!.id
  const started = Date.now()
  const tty = !!process.stderr.isTTY
  let stage = 'Gathering'
  let shown = ''
  let lastPrinted = 0
  let stopped = false
  const draw = async (final = false) => {
    const p = await progressOf(deps, jobId)
    if (stopped && !final) return // a tick that was under way when the stage ended
    const line = stage === 'Gathering' ? `Gathering ${s.name}: ${p.total} listed` : `Importing ${s.name}: ${p.done}/${p.total} objects`
    if (tty) process.stderr.write(`\r${line}\x1b[K${final ? '\n' : ''}`)
    else if (final && line === shown) return
    else if (line !== shown && (final || Date.now() - lastPrinted >= 1000)) {
      process.stderr.write(`${line}\n`)
      lastPrinted = Date.now()
    } else return
    shown = line
  }
  const timer = setInterval(() => void draw().catch(() => {}), 250)
  try {
    for (let turn = 0; turn < 4; turn++) {
      const now = await findJob(deps, jobId)
      if (!now || now.status === 'Finished' || now.status === 'Aborted') break
      // a stage already queued for the runners: taken here, unless a runner holds it
      if (now.queue_job_id) {
        const queued = await deps.jobs.show(now.queue_job_id)
        if (queued?.status === 'running') {
          stopped = true
          clearInterval(timer)
          if (tty) process.stderr.write('\n')
          console.error(`Job ${jobId} of ${s.name} is being run by a job worker; follow it with harvest_job_show.`)
          return 1
        }
        if (queued?.status === 'queued') await deps.jobs.cancel(queued.id)
      }
      const gather = !now.gather_finished
      stage = gather ? 'Gathering' : 'Importing'
      const kind = jobKinds.get(gather ? HARVEST_GATHER_KIND : HARVEST_IMPORT_KIND)
      await kind.run(deps, { harvest_job_id: jobId }, undefined as never)
      await draw(true)
    }
  } finally {
    stopped = true
    clearInterval(timer)
  }
  const done = await call('harvest_job_show', { id: jobId })
  const report = await call('harvest_job_report', { id: jobId })
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  console.log(`Job ${jobId} of ${s.name}: ${done.status} in ${secs} s`)
  console.log(STATS.map((k) => `${done.stats?.[k] ?? 0} ${k}`).join(', '))
  const gatherErrors = (report.gather_errors ?? []) as Dict[]
  if (gatherErrors.length) {
    console.log('Gather errors:')
    for (const e of gatherErrors) console.log(`  ${e.message}`)
  }
  const objectErrors = Object.values((report.object_errors ?? {}) as Record<string, Dict>)
  if (objectErrors.length) {
    console.log('Object errors:')
    for (const o of objectErrors) for (const e of o.errors as Dict[]) console.log(`  ${o.guid}: ${e.message}${e.type ? ` (${e.type})` : ''}`)
  }
  return done.status === 'Finished' && !gatherErrors.length && !objectErrors.length ? 0 : 1
}
