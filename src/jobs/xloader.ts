// The loader's job kind: fills a resource's DataStore table from its uploaded or linked file.
import { z } from 'zod'
import { systemContext, type Deps } from '../context'
import { findResource, setDatastoreActive } from '../datastore/access'
import { defineJobKind } from './job-kinds'
import { LoadError } from './loader/errors'
import { loadableKind } from './loader/formats'
import { loadTable } from './loader/load'
import { openSource } from './loader/source'
import { saveLoadStatus, type LoadStatus } from './loader/status'

export const XLOADER_KIND = 'xloader'

/** How often progress reaches task_status while rows are loading. */
const PROGRESS_MS = 2000

export const xloaderJob = defineJobKind({
  kind: XLOADER_KIND,
  payload: z.looseObject({ resource_id: z.string().min(1), ignore_hash: z.boolean().optional() }),
  title: (p) => `xloader: ${p.resource_id}`,
  async run(deps: Deps, { resource_id: id }, job) {
    const ctx = systemContext(deps)
    const status: LoadStatus = {
      job_id: job.id,
      state: 'running',
      rows_loaded: 0,
      error: null,
      last_updated: deps.now(),
    }
    const save = (patch: Partial<LoadStatus>) =>
      saveLoadStatus(ctx, id, Object.assign(status, patch, { last_updated: deps.now() }))
    await save({})
    try {
      const res = await findResource(ctx, id)
      if (!res) throw new LoadError(`Resource ${id} was not found`)
      const kind = loadableKind(res)
      if (!kind)
        throw new LoadError(`Format "${res.format ?? ''}" is not one the loader reads (CSV, TSV, XLSX)`)
      let reported = Date.now()
      const rows = await loadTable(deps, id, {
        kind,
        open: () => openSource(deps, id, res),
        progress: async (n) => {
          status.rows_loaded = n
          if (Date.now() - reported < PROGRESS_MS) return
          reported = Date.now()
          await save({})
        },
      })
      await setDatastoreActive(ctx, id, true)
      await save({ state: 'complete', rows_loaded: rows })
      return { resource_id: id, rows_loaded: rows }
    } catch (e) {
      const message = e instanceof LoadError ? e.message : `${(e as Error)?.message ?? String(e)}`
      await save({ state: 'error', error: message }).catch(() => {})
      throw e
    }
  },
})
