// The loader's job kind: fills a resource's DataStore table from its uploaded or linked file.
import { z } from 'zod'
import type { Deps } from '../context'
import { defineJobKind } from './job-kinds'
import { runLoad } from './loader/run'

export const XLOADER_KIND = 'xloader'

export const xloaderJob = defineJobKind({
  kind: XLOADER_KIND,
  payload: z.looseObject({ resource_id: z.string().min(1), ignore_hash: z.boolean().optional() }),
  title: (p) => `xloader: ${p.resource_id}`,
  async run(deps: Deps, { resource_id: id, ignore_hash }, job) {
    return runLoad(deps, id, { jobId: job.id, ignoreHash: ignore_hash })
  },
})
