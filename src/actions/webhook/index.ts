// The webhook actions (beyond CKAN), for the registry.
import type { Action } from '../action'
import { webhookCreate } from './webhook_create'
import { webhookDeliveriesList } from './webhook_deliveries_list'
import { webhookDelete } from './webhook_delete'
import { webhookList } from './webhook_list'
import { webhookShow } from './webhook_show'
import { webhookTest } from './webhook_test'
import { webhookUpdate } from './webhook_update'

export const actions: Action<any, any>[] = [
  webhookList,
  webhookShow,
  webhookCreate,
  webhookUpdate,
  webhookDelete,
  webhookDeliveriesList,
  webhookTest,
]
