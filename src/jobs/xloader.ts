// The loader's job kind: fills a resource's DataStore table from its uploaded or linked file.
import { z } from 'zod'
import type { Deps } from '../context'
import { defineJobKind } from './job-kinds'
import { runLoad } from './loader/run'

export const XLOADER_KIND = 'xloader'

export const xloaderJob = defineJobKind({
  kind: XLOADER_KIND,
  payload: z.looseObject({
    resource_id: z.string().min(1),
    ignore_hash: z.boolean().optional(),
    // the upload that queued the load (see loadOnResourceWrite)
    file: z.object({ sha256: z.string(), size: z.number() }).optional(),
  }),
  title: (p) => `xloader: ${p.resource_id}`,
  async run(deps: Deps, { resource_id: id, ignore_hash, file }, job) {
    // A later load of the same resource is queued (the resource changed again, or was submitted
    // again): that one reads the resource as it will be, so this one has nothing to do. A queue
    // of repeated updates drains at once instead of loading each version in turn.
    const later = await laterLoad(deps, id, job.id)
    if (later) return { resource_id: id, superseded_by: later }
    return runLoad(deps, id, { jobId: job.id, ignoreHash: ignore_hash, upload: file })
  },
})

/** The id of a load of `resourceId` queued after job `jobId`, if any. */
async function laterLoad(deps: Deps, resourceId: string, jobId: string): Promise<string | undefined> {
  const [row] = await deps.read(
    `SELECT id FROM job
      WHERE status = 'queued' AND kind = ? AND json_extract(payload, '$.resource_id') = ?
        AND rowid > (SELECT rowid FROM job WHERE id = ?)
      LIMIT 1`,
    [XLOADER_KIND, resourceId, jobId],
  )
  return row ? String(row.id) : undefined
}
