// `npm run admin -- datastore load …`: loads a resource's file, or a local file, into its DataStore
// table in this process (no job queue, like `ckan xloader submit --sync`), with a progress line.
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { extname } from 'node:path'
import { Readable } from 'node:stream'
import { systemContext } from '../src/context'
import { findResource } from '../src/datastore/access'
import { loadableKind } from '../src/jobs/loader/formats'
import { runLoad } from '../src/jobs/loader/run'
import { openNodeDeps } from '../src/runtime/node-worker'

export const datastoreUsage = `usage: npm run admin -- datastore load RESOURCE_ID
       npm run admin -- datastore load FILE.csv|.tsv|.xlsx --resource RESOURCE_ID`

/** Runs the command; resolves to the process's exit code. */
export async function datastoreCommand(args: string[]): Promise<number> {
  const at = args.indexOf('--resource')
  const resource = at >= 0 ? args.splice(at, 2)[1] : undefined
  const [verb, target, ...rest] = args
  if (verb !== 'load' || !target || rest.length || (at >= 0 && !resource)) {
    console.error(datastoreUsage)
    return 2
  }
  let file: Parameters<typeof runLoad>[2]['file']
  if (resource) {
    const kind = loadableKind({ format: extname(target).slice(1) })
    if (!kind) {
      console.error(`${target}: not a CSV, TSV or XLSX file (by its extension)`)
      return 1
    }
    try {
      if (!(await stat(target)).isFile()) throw new Error('not a file')
    } catch (e) {
      console.error(`${target}: ${(e as Error).message}`)
      return 1
    }
    file = {
      kind,
      open: async () => Readable.toWeb(createReadStream(target)) as ReadableStream<Uint8Array>,
    }
  }
  const id = resource ?? target
  const { deps, close } = await openNodeDeps(process.env)
  const started = Date.now()
  const line = (rows: number) => {
    const s = (Date.now() - started) / 1000
    const rate = s > 0 ? Math.round(rows / s) : 0
    return `Loading ${id}: ${rows.toLocaleString('en')} rows (${rate.toLocaleString('en')} rows/s)`
  }
  const tty = process.stderr.isTTY
  const draw = (rows: number) => process.stderr.write(tty ? `\r${line(rows)}\x1b[K` : `${line(rows)}\n`)
  try {
    if (!(await findResource(systemContext(deps), id))) {
      console.error(`No resource ${id}`)
      return 1
    }
    const out = await runLoad(deps, id, { jobId: null, ignoreHash: true, file, onProgress: draw })
    if (tty) process.stderr.write('\n')
    const s = ((Date.now() - started) / 1000).toFixed(1)
    console.log(`Loaded ${out.rows_loaded} rows into ${id} in ${s} s`)
    return 0
  } catch (e) {
    if (tty) process.stderr.write('\n')
    console.error(`Load failed: ${(e as Error).message}`)
    return 1
  } finally {
    close()
  }
}
