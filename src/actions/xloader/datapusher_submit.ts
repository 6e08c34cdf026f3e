// datapusher_submit: DataPusher's name for xloader_submit, for clients written for it.
import { defineAction } from '../action'
import { invoke } from '../invoke'
import { authorizeLoader } from '../../auth/datastore'
import { submitParams, xloaderSubmit } from './xloader_submit'

export const datapusherSubmit = defineAction({
  name: 'datapusher_submit',
  readOnly: false,
  help: `Load a resource's file into the DataStore (DataPusher's name for xloader_submit).

:param resource_id: the resource to load
:type resource_id: string
:param ignore_hash: load even if the file has not changed (optional, default: False)
:type ignore_hash: bool
:returns: True when a load was queued
:rtype: bool`,
  auth: authorizeLoader,
  params: submitParams,
  async run(ctx, p) {
    return invoke(ctx, xloaderSubmit, p, { skipAuth: true })
  },
})
