// organization_patch: changes only the given fields and member lists of an organization.
import { kindOf } from '../../model/group'
import { patchHelp } from '../group/group_patch'
import { updateAction } from '../group/group_update'

export const organizationPatch = updateAction({
  name: 'organization_patch',
  isOrg: true,
  partial: true,
  help: patchHelp(kindOf(true)),
})
