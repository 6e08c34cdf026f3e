// package_collaborator_delete: ends a user's collaboration on a dataset.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import { requireKeys } from '../../auth/api-token'
import {
  authorizeCollaboratorDelete,
  loadCollaboratedPackage,
  requireCollaboratorsEnabled,
} from '../../auth/collaborator'
import { findCollaborator, removeCollaborator } from '../../model/collaborator'
import { loadUser } from '../../model/user'

export const packageCollaboratorDelete = defineAction({
  name: 'package_collaborator_delete',
  readOnly: false,
  help: `Remove a collaborator from a dataset.

The user loses the rights the collaboration gave at once. Admins of the dataset's organization
(and sysadmins, and admin collaborators where allowed) manage collaborators. Needs
service.auth.allow_dataset_collaborators.

:param id: the id or name of the dataset
:type id: string
:param user_id: the id or name of the user to remove
:type user_id: string`,
  allowAnonymous: true,
  auth: authorizeCollaboratorDelete,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, input) {
    requireKeys(input, ['id', 'user_id'])
    // ckan: the feature is checked before the dataset and the user are looked up
    requireCollaboratorsEnabled(ctx)
    const pkg = await loadCollaboratedPackage(ctx, input, 'Package not found')
    const user = await loadUser(ctx, input.user_id, { notFound: 'User not found' })
    if (!(await findCollaborator(ctx, pkg.id, user.id)))
      throw new NotFound(`User ${asText(input.user_id)} is not a collaborator on this package`)
    await removeCollaborator(ctx, pkg.id, user.id)
    return null // ckan: returns nothing
  },
})
