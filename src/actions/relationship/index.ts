// The dataset relationship actions, for the registry.
import type { Action } from '../action'
import { packageRelationshipCreate } from './package_relationship_create'
import { packageRelationshipDelete } from './package_relationship_delete'
import { packageRelationshipUpdate } from './package_relationship_update'
import { packageRelationshipsList } from './package_relationships_list'

export const actions: Action<any, any>[] = [
  packageRelationshipCreate,
  packageRelationshipUpdate,
  packageRelationshipDelete,
  packageRelationshipsList,
]
