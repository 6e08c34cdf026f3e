// One load of a resource's table with its task_status report: what the xloader job runs, and what
// `npm run admin -- datastore load` runs in its own process.
import { systemContext, type Deps } from '../../context'
import { findResource, setDatastoreActive } from '../../datastore/access'
import { findTable } from '../../datastore/registry'
import { LoadError } from './errors'
import { loadableKind } from './formats'
import { hashing, newHasher } from './hash'
import { loadTable } from './load'
import type { FileKind } from './rows'
import { openSource, uploadKey } from './source'
import { findLoadValue, saveLoadStatus, type LoadStatus } from './status'
import { requestProfile } from '../datastore-profile'

/** How often progress reaches task_status while rows are loading. */
const PROGRESS_MS = 2000

export interface RunLoadOptions {
  /** The job running the load, recorded in task_status; null when there is none (the CLI). */
  jobId: string | null
  /** Load even when the file's hash equals the last successful load's. */
  ignoreHash?: boolean
  /** A file to load instead of the resource's own (the CLI's local file): no hash is kept. */
  file?: { open: () => Promise<ReadableStream<Uint8Array>>; kind: FileKind }
  /** Called after each batch with the rows loaded so far. */
  onProgress?: (rows: number) => void
  /** The upload the load was queued for: waited for at the resource's key (see waitForUpload). */
  upload?: { sha256: string; size: number }
}

export interface LoadOutcome {
  resource_id: string
  rows_loaded: number
  /** True when the file was unchanged and the table was left as it was. */
  unchanged?: boolean
}

/** The swap is not made: the file read is the one the table already holds. */
class Unchanged extends Error {}

/**
 * Loads the resource's file (or `opts.file`) into its table, reporting in task_status as
 * ckanext-xloader does. Unless ignoreHash, a file whose SHA-256 equals the last successful load's
 * is not loaded again while the table exists: an upload's hash comes from the BlobStore before
 * anything is read, a linked file's is computed while it loads and checked before the swap.
 * @throws LoadError (recorded in task_status first) or any other failure of the load
 */
export async function runLoad(deps: Deps, id: string, opts: RunLoadOptions): Promise<LoadOutcome> {
  const ctx = systemContext(deps)
  if (opts.upload && !opts.file) await waitForUpload(deps, id, opts.upload)
  const last = await findLoadValue(ctx, id)
  const status: LoadStatus = {
    job_id: opts.jobId,
    state: 'running',
    rows_loaded: 0,
    error: null,
    last_updated: deps.now(),
    file_hash: last.file_hash,
    file_rows: last.file_rows,
  }
  const save = (patch: Partial<LoadStatus>) =>
    saveLoadStatus(ctx, id, Object.assign(status, patch, { last_updated: deps.now() }))
  await save({})
  try {
    const res = await findResource(ctx, id)
    if (!res) throw new LoadError(`Resource ${id} was not found`)
    const kind = opts.file?.kind ?? loadableKind(res)
    if (!kind)
      throw new LoadError(`Format "${res.format ?? ''}" is not one the loader reads (CSV, TSV, XLSX)`)
    const checkHash =
      !opts.ignoreHash &&
      !opts.file &&
      last.file_hash !== null &&
      !!deps.datastore &&
      !!(await findTable(deps.datastore, id))
    const unchanged = async () => {
      await save({ state: 'complete', rows_loaded: last.file_rows, unchanged: true })
      return { resource_id: id, rows_loaded: last.file_rows, unchanged: true }
    }
    let known: string | undefined
    if (!opts.file && res.url_type === 'upload' && res.url)
      known = (await deps.blobs.head(uploadKey(id, res.url)).catch(() => undefined))?.sha256
    if (checkHash && known === last.file_hash) return await unchanged()
    // the hash of the last pass over the bytes (a load that restarts reads them again)
    let hashed: (() => Promise<string | undefined>) | undefined
    const open = async () => {
      const body = opts.file ? await opts.file.open() : await openSource(deps, id, res)
      const hasher = known || opts.file ? undefined : newHasher(deps)
      if (!hasher) return body
      const h = hashing(body, hasher)
      hashed = h.done
      return h.stream
    }
    let reported = Date.now()
    let rows: number
    try {
      rows = await loadTable(deps, id, {
        kind,
        open,
        progress: async (n) => {
          status.rows_loaded = n
          opts.onProgress?.(n)
          if (Date.now() - reported < PROGRESS_MS) return
          reported = Date.now()
          await save({})
        },
        beforeCommit: async () => {
          known ??= await hashed?.()
          if (checkHash && known === last.file_hash) throw new Unchanged()
        },
      })
    } catch (e) {
      if (e instanceof Unchanged) return await unchanged()
      throw e
    }
    await setDatastoreActive(ctx, id, true)
    const fileHash = opts.file ? null : (known ?? null)
    await save({ state: 'complete', rows_loaded: rows, file_hash: fileHash, file_rows: rows })
    await requestProfile(deps, id)
    return { resource_id: id, rows_loaded: rows }
  } catch (e) {
    const message = e instanceof LoadError ? e.message : `${(e as Error)?.message ?? String(e)}`
    await save({ state: 'error', error: message }).catch(() => {})
    throw e
  }
}

/** How long a load waits for the upload it was queued for to reach the resource's key. */
export const UPLOAD_WAIT_MS = 30_000

/**
 * Waits until the resource's key holds the upload the load was queued for. The write that queued
 * the load moves its file into place only after its batch commits, so a runner that claims the
 * job at once could otherwise read the file being replaced (and, its hash unchanged, keep the old
 * rows). Gives up after UPLOAD_WAIT_MS (a later upload replaced it, or the move failed and was
 * logged): the load then reads whatever the key holds. True when the file arrived.
 */
export async function waitForUpload(
  deps: Deps,
  id: string,
  want: { sha256: string; size: number },
): Promise<boolean> {
  const res = await findResource(systemContext(deps), id)
  if (!res || res.url_type !== 'upload' || !res.url) return false
  const key = uploadKey(id, String(res.url))
  const until = Date.now() + UPLOAD_WAIT_MS
  for (let pause = 10; ; pause = Math.min(pause * 2, 500)) {
    const info = await deps.blobs.head(key).catch(() => undefined)
    if (info && (info.sha256 ? info.sha256 === want.sha256 : info.size === want.size)) return true
    if (Date.now() >= until) return false
    await new Promise((resolve) => setTimeout(resolve, pause))
  }
}
