// package_collaborator_list: the collaborators of one dataset, for those who manage them.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { requireKeys } from '../../auth/api-token'
import {
  authorizeCollaboratorList,
  checkCollaboratorCapacity,
  loadCollaboratedPackage,
  requireCollaboratorsEnabled,
} from '../../auth/collaborator'
import { collaboratorDict, datasetCollaborators } from '../../model/collaborator'

export const packageCollaboratorList = defineAction({
  name: 'package_collaborator_list',
  readOnly: true,
  help: `Return the collaborators of a dataset.

Admins of the dataset's organization (and sysadmins, and admin collaborators where allowed)
may list them. Needs service.auth.allow_dataset_collaborators.

:param id: the id or name of the dataset
:type id: string
:param capacity: only collaborators with this capacity (optional)
:type capacity: string
:returns: the collaborators, each with package_id, user_id, capacity and modified
:rtype: list of dictionaries`,
  auth: authorizeCollaboratorList,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, input) {
    requireKeys(input, ['id'])
    const pkg = await loadCollaboratedPackage(ctx, input, 'Package not found')
    requireCollaboratorsEnabled(ctx)
    checkCollaboratorCapacity(ctx, input.capacity, 'Capacity')
    const capacity = input.capacity ? asText(input.capacity) : undefined
    return (await datasetCollaborators(ctx, pkg.id, capacity)).map(collaboratorDict)
  },
})
