// The harvesting actions (ckanext-harvest's API), for the registry.
import type { Action } from '../action'
import { harvestJobAbort } from './harvest_job_abort'
import { harvestJobCreate } from './harvest_job_create'
import { harvestJobList } from './harvest_job_list'
import { harvestJobReport } from './harvest_job_report'
import { harvestJobShow } from './harvest_job_show'
import { harvestLogList } from './harvest_log_list'
import { harvestObjectList } from './harvest_object_list'
import { harvestObjectShow } from './harvest_object_show'
import { harvestSourceClear } from './harvest_source_clear'
import { harvestSourceCreate } from './harvest_source_create'
import { harvestSourceDelete } from './harvest_source_delete'
import { harvestSourceJobHistoryClear } from './harvest_source_job_history_clear'
import { harvestSourceList } from './harvest_source_list'
import { harvestSourceShow } from './harvest_source_show'
import { harvestSourceShowStatus } from './harvest_source_show_status'
import { harvestSourcePatch } from './harvest_source_patch'
import { harvestSourceUpdate } from './harvest_source_update'
import { harvestersInfoShow } from './harvesters_info_show'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const actions: Action<any, any>[] = [
  harvestSourceCreate,
  harvestSourceShow,
  harvestSourceShowStatus,
  harvestSourceUpdate,
  harvestSourcePatch,
  harvestSourceDelete,
  harvestSourceList,
  harvestSourceClear,
  harvestSourceJobHistoryClear,
  harvestJobCreate,
  harvestJobShow,
  harvestJobReport,
  harvestJobList,
  harvestJobAbort,
  harvestObjectShow,
  harvestObjectList,
  harvestLogList,
  harvestersInfoShow,
]
