// package_collaborator_list_for_user: the datasets a user collaborates on, for that user.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { requireKeys } from '../../auth/api-token'
import {
  authorizeCollaborationList,
  checkCollaboratorCapacity,
  requireCollaboratorsEnabled,
  requireKnownCollaborationUser,
} from '../../auth/collaborator'
import { collaborationsOf } from '../../model/collaborator'
import { findUser } from '../../model/user'

export const packageCollaboratorListForUser = defineAction({
  name: 'package_collaborator_list_for_user',
  readOnly: true,
  help: `Return the datasets a user is a collaborator on.

Users may list their own collaborations (sysadmins anyone's). Needs
service.auth.allow_dataset_collaborators.

:param id: the id or name of the user
:type id: string
:param capacity: only datasets where the user has this capacity (optional)
:type capacity: string
:returns: the collaborations, each with package_id, capacity and modified
:rtype: list of dictionaries`,
  auth: authorizeCollaborationList,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, input) {
    requireKeys(input, ['id'])
    requireCollaboratorsEnabled(ctx)
    const ref = input.id
    const user = requireKnownCollaborationUser(
      typeof ref === 'object' ? undefined : await findUser(ctx, String(ref)),
    )
    checkCollaboratorCapacity(ctx, input.capacity, 'Capacity')
    const capacity = input.capacity ? asText(input.capacity) : undefined
    return (await collaborationsOf(ctx, user.id, capacity)).map((r) => ({
      package_id: r.package_id,
      capacity: r.capacity,
      modified: r.modified,
    }))
  },
})
