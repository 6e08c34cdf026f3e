// The dataset (package) actions, for the registry.
import type { Action } from '../action'
import { packageShow } from './package_show'
import { packageSearch } from './package_search'
import { packageDelete } from './package_delete'
import { datasetPurge } from './dataset_purge'
import { packageList } from './package_list'
import { currentPackageListWithResources } from './current_package_list_with_resources'
import { packageOwnerOrgUpdate } from './package_owner_org_update'
import { packageResourceReorder } from './package_resource_reorder'
import { bulkUpdatePrivate } from './bulk_update_private'
import { bulkUpdatePublic } from './bulk_update_public'
import { bulkUpdateDelete } from './bulk_update_delete'

export const actions: Action<any, any>[] = [packageShow, packageSearch]

// Lifecycle and listing actions.
actions.push(
  packageDelete,
  datasetPurge,
  packageList,
  currentPackageListWithResources,
  packageOwnerOrgUpdate,
  packageResourceReorder,
  bulkUpdatePrivate,
  bulkUpdatePublic,
  bulkUpdateDelete,
)

// Dataset writes.
import { packageCreate } from './package_create'
import { packageUpdate } from './package_update'
import { packagePatch } from './package_patch'
import { packageRevise } from './package_revise'
actions.push(packageCreate, packageUpdate, packagePatch, packageRevise)

// Lookups answered from SQL rather than the search index.
import { packageAutocomplete } from './package_autocomplete'
actions.push(packageAutocomplete)

// Dataset collaborators (behind service.auth.allow_dataset_collaborators).
import { packageCollaboratorCreate } from './package_collaborator_create'
import { packageCollaboratorDelete } from './package_collaborator_delete'
import { packageCollaboratorList } from './package_collaborator_list'
import { packageCollaboratorListForUser } from './package_collaborator_list_for_user'
actions.push(
  packageCollaboratorCreate,
  packageCollaboratorDelete,
  packageCollaboratorList,
  packageCollaboratorListForUser,
)
