// The harvest stages as background job kinds: gather, then import (queued by gather's last write).
import { z } from 'zod'
import type { Deps } from '../../context'
import { defineJobKind } from '../job-kinds'
import { HARVEST_GATHER_KIND, HARVEST_IMPORT_KIND, runGather, runImport } from './run'

const payload = z.looseObject({ harvest_job_id: z.string().min(1) })

export const harvestGatherJob = defineJobKind({
  kind: HARVEST_GATHER_KIND,
  payload,
  title: (p) => `harvest gather: ${p.harvest_job_id}`,
  run: (deps: Deps, p) => runGather(deps, p.harvest_job_id),
})

export const harvestImportJob = defineJobKind({
  kind: HARVEST_IMPORT_KIND,
  payload,
  title: (p) => `harvest import: ${p.harvest_job_id}`,
  run: (deps: Deps, p) => runImport(deps, p.harvest_job_id),
})
