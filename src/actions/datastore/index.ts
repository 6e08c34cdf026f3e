// The DataStore actions, for the registry.
import type { Action } from '../action'
import { datastoreCreate } from './datastore_create'
import { datastoreDelete } from './datastore_delete'
import { datastoreRecordsDelete } from './datastore_records_delete'
import { datastoreInfo } from './datastore_info'
import { datastoreSearch } from './datastore_search'
import { datastoreUpsert } from './datastore_upsert'
import { datastoreSearchSql } from './datastore_search_sql'
import { datastoreFunctionCreate } from './datastore_function_create'
import { datastoreFunctionDelete } from './datastore_function_delete'
import { datastoreRunTriggers } from './datastore_run_triggers'
import { datastoreVersionsList } from './datastore_versions_list'
import { datastoreDiff } from './datastore_diff'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const actions: Action<any, any>[] = [
  datastoreCreate,
  datastoreUpsert,
  datastoreDelete,
  datastoreRecordsDelete,
  datastoreInfo,
  datastoreSearch,
  datastoreSearchSql,
  datastoreFunctionCreate,
  datastoreFunctionDelete,
  datastoreRunTriggers,
  datastoreVersionsList,
  datastoreDiff,
]
