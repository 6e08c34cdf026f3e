// The resource view actions, for the registry.
import type { Action } from '../action'
import { packageCreateDefaultResourceViews } from './package_create_default_resource_views'
import { resourceCreateDefaultResourceViews } from './resource_create_default_resource_views'
import { resourceViewClear } from './resource_view_clear'
import { resourceViewCreate } from './resource_view_create'
import { resourceViewDelete } from './resource_view_delete'
import { resourceViewList } from './resource_view_list'
import { resourceViewReorder } from './resource_view_reorder'
import { resourceViewShow } from './resource_view_show'
import { resourceViewUpdate } from './resource_view_update'

export const actions: Action<any, any>[] = [
  resourceViewCreate,
  resourceViewShow,
  resourceViewList,
  resourceViewUpdate,
  resourceViewDelete,
  resourceViewReorder,
  resourceViewClear,
  resourceCreateDefaultResourceViews,
  packageCreateDefaultResourceViews,
]
