// The loader's actions (ckanext-xloader's names and DataPusher's), for the registry.
import type { Action } from '../action'
import { datapusherStatus } from './datapusher_status'
import { datapusherSubmit } from './datapusher_submit'
import { xloaderStatus } from './xloader_status'
import { xloaderSubmit } from './xloader_submit'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const actions: Action<any, any>[] = [xloaderSubmit, xloaderStatus, datapusherSubmit, datapusherStatus]
