// `npm run admin -- import-ckan URL [--api-key KEY]`, `export DIR` and `import DIR`: moving a
// catalogue in from a CKAN 2.9–2.11 site through its API, or between two instances of this project
// through a directory (src/transfer/, src/runtime/node-transfer.ts, docs/moving-in.md). Run with
// the environment `npm start` uses (DATABASE_URL, …); the server may keep running.
import { openNodeDeps } from '../src/runtime/node-worker'
import { dirname, join, resolve } from 'node:path'
import { dirSource, exportCatalogue, writeSchemaFiles } from '../src/runtime/node-transfer'
import { CkanSource, httpCall, httpDownload } from '../src/transfer/ckan-source'
import { importCatalogue, reportText, type ImportProgress, type ImportReport } from '../src/transfer/importer'
import type { TransferSource } from '../src/transfer/source'
import { claimTransferJob, TRANSFER_LEASE_MS } from '../src/jobs/transfer'

export const transferUsage = `usage: npm run admin -- import-ckan URL [--api-key KEY] [--no-activity] [--report FILE]
       npm run admin -- export DIR
       npm run admin -- import DIR [--no-activity] [--report FILE]`

export const transferHelp = `   import-ckan  copies a CKAN 2.9–2.11 site through its API (a sysadmin's API key or token reads
                everything: e-mails, private datasets, activity): users (each gets a link to choose a
                password: e-mailed when mail is set up, else printed), organizations, groups and
                their members, vocabularies, datasets with resources, views, files and DataStore
                tables, activity; re-run it to resume (what is here is skipped)
   export       writes this catalogue into DIR (new or empty) in the export format (docs/moving-in.md)
   import       copies an export directory in, as import-ckan does`

/** A progress line on stderr: redrawn in place on a terminal, else a line every few seconds. */
function progressLine(stream: NodeJS.WriteStream = process.stderr) {
  let last = 0
  let lastPhase = ''
  return (p: ImportProgress) => {
    const now = Date.now()
    const tty = stream.isTTY
    if (p.phase === lastPhase && now - last < (tty ? 100 : 5000)) return
    last = now
    lastPhase = p.phase
    let bar = ''
    if (p.total) {
      const width = 24
      const filled = Math.min(width, Math.round((p.done / p.total) * width))
      bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} `
    } else bar = `${p.done} `
    const text = `${p.phase.padEnd(13)} ${bar}${p.current ?? ''}`
    const cols = tty ? (stream.columns ?? 100) - 1 : 200
    stream.write(tty ? `\r${text.slice(0, cols).padEnd(cols)}` : `${text.slice(0, cols)}\n`)
  }
}

function flag(args: string[], name: string): string | true | undefined {
  const i = args.indexOf(`--${name}`)
  if (i < 0) return undefined
  if (name === 'no-activity') return args.splice(i, 1) && true
  const v = args[i + 1]
  args.splice(i, 2)
  return v
}

/** Runs the command; resolves to the process's exit code (1 when anything failed to copy). */
export async function transferCommand(verb: 'import-ckan' | 'export' | 'import', argv: string[], env = process.env): Promise<number> {
  const args = [...argv]
  const apiKey = flag(args, 'api-key')
  const noActivity = flag(args, 'no-activity') === true
  const reportFile = flag(args, 'report')
  const [target, ...rest] = args
  if (!target || rest.length || apiKey === '' || (verb !== 'import-ckan' && apiKey !== undefined) || (verb === 'export' && (noActivity || reportFile))) {
    console.error(transferUsage)
    return 2
  }
  if (verb === 'import-ckan' && !/^https?:\/\//i.test(target)) {
    console.error(`import-ckan needs the site's address (http:// or https://), not ${JSON.stringify(target)}`)
    return 2
  }
  const { deps, close } = await openNodeDeps(env)
  const started = performance.now()
  try {
    if (verb === 'export') {
      const line = progressLine()
      const counts = await exportCatalogue(deps, target, (phase, done, total) => line({ phase: phase as never, done, total }))
      process.stderr.write(process.stderr.isTTY ? '\n' : '')
      console.log(
        `Exported into ${target}: ${counts.users} users, ${counts.organizations} organizations, ${counts.groups} groups, ` +
          `${counts.vocabularies} vocabularies, ${counts.datasets} datasets (${counts.views} views, ${counts.files} files, ` +
          `${counts.tables} tables of ${counts.rows} rows), ${counts.activities} activities, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      )
      return 0
    }
    const key = typeof apiKey === 'string' ? apiKey : undefined
    const source: TransferSource =
      verb === 'import'
        ? dirSource(target)
        : new CkanSource({ label: target.replace(/\/+$/, ''), call: httpCall(target, key), download: httpDownload(target, key) })
    // as a job: status_show and /ckan-admin/jobs show it running, job_show its report
    const job = await claimTransferJob(deps, source.label)
    const line = progressLine()
    let renewed = Date.now()
    let report: ImportReport
    try {
      report = await importCatalogue(deps, source, {
        activity: !noActivity,
        onProgress(p) {
          line(p)
          if (Date.now() - renewed > TRANSFER_LEASE_MS / 5) {
            renewed = Date.now()
            void deps.jobs.renew(job, TRANSFER_LEASE_MS)
          }
        },
      })
    } catch (e) {
      await deps.jobs.fail(job, e)
      throw e
    }
    // the job keeps the figures and the first lines of why (no reset links: they are credentials)
    const { resetLinks: _l, schemas: _s, lines, ...figures } = report
    await deps.jobs.finish(job, { ...figures, lines: lines.slice(0, 100), lines_left_out: Math.max(0, lines.length - 100) })
    process.stderr.write(process.stderr.isTTY ? '\n' : '')
    const text = reportText(report)
    console.log(`${text}\n\nDone in ${((performance.now() - started) / 1000).toFixed(1)} s.`)
    if (report.schemas) {
      // the copy used the source's schemas; the server needs them as files to do the same
      const url = env.DATABASE_URL ?? 'file:./data/catalogue.db'
      const dataDir = url.startsWith('file:') ? dirname(url.slice(5).split('?')[0]!) : './data'
      const dir = resolve(join(dataDir, 'schemas'))
      const options = writeSchemaFiles(dir, report.schemas)
      console.log(
        `\nThis site had no metadata schemas: the source's are now in ${dir}, and the copy used them. ` +
          'Set these options (e.g. in the environment) and restart, so the server validates and shows their fields too:\n' +
          Object.entries(options)
            .map(([k, v]) => `  ${k.toUpperCase().replaceAll('.', '__')}="${v}"`)
            .join('\n'),
      )
    }
    if (typeof reportFile === 'string') {
      const { writeFileSync } = await import('node:fs')
      writeFileSync(reportFile, JSON.stringify(report, null, 2) + '\n')
    }
    const failed = Object.values(report.failed).reduce((a, b) => a + b, 0)
    if (failed) console.log(`${failed} objects failed: fix what the lines above say and run the same command again to retry them.`)
    return failed ? 1 : 0
  } catch (e) {
    process.stderr.write(process.stderr.isTTY ? '\n' : '')
    console.error(`${verb} failed: ${(e as Error).message}\nRun the same command again to resume: what was copied is kept.`)
    return 1
  } finally {
    close()
  }
}
