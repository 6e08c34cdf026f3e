// package_collaborator_create: gives a user a capacity on one dataset, or changes it.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { requireKeys } from '../../auth/api-token'
import {
  authorizeCollaboratorCreate,
  checkCollaboratorCapacity,
  loadCollaboratedPackage,
  requireCollaboratorsEnabled,
} from '../../auth/collaborator'
import { collaboratorDict, setCollaborator } from '../../model/collaborator'
import { loadUser } from '../../model/user'

export const packageCollaboratorCreate = defineAction({
  name: 'package_collaborator_create',
  readOnly: false,
  help: `Make a user a collaborator on a dataset, or change the capacity of one who is.

A collaborator with capacity "member" may read the dataset even when it is private or a
draft; an "editor" may also update it and its resources; an "admin" (only where
service.auth.allow_admin_collaborators is on) may also manage its collaborators. Admins of
the dataset's organization (and sysadmins) manage collaborators. Needs
service.auth.allow_dataset_collaborators.

:param id: the id or name of the dataset
:type id: string
:param user_id: the id or name of the user
:type user_id: string
:param capacity: "editor" or "member" (or "admin" where allowed)
:type capacity: string
:returns: the collaborator: package_id, user_id, capacity and modified
:rtype: dictionary`,
  // ckan: keys and capacity are checked before anonymous callers are refused
  allowAnonymous: true,
  auth: authorizeCollaboratorCreate,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, input) {
    // sysadmins skip the auth rule, which checks these first
    requireKeys(input, ['id', 'user_id', 'capacity'])
    checkCollaboratorCapacity(ctx, input.capacity, 'Role')
    const pkg = await loadCollaboratedPackage(ctx, input, 'Dataset not found')
    const user = await loadUser(ctx, input.user_id, { notFound: 'User not found' })
    requireCollaboratorsEnabled(ctx)
    return collaboratorDict(await setCollaborator(ctx, pkg.id, user.id, asText(input.capacity)))
  },
})
