// The background job actions (sysadmins only), for the registry.
import type { Action } from '../action'
import { jobCancel } from './job_cancel'
import { jobClear } from './job_clear'
import { jobList } from './job_list'
import { jobShow } from './job_show'

export const actions: Action<any, any>[] = [jobList, jobShow, jobClear, jobCancel]
