// group_patch: changes only the given fields and member lists of a group (organization_patch too).
import { kindOf } from '../../model/group'
import { updateAction } from './group_update'

export const patchHelp = (kind: string) => `Patch a ${kind}.

Like ${kind}_update, but everything not given is kept, member lists included.

:param id: the id or name of the ${kind}
:type id: string

The other parameters are those of ${kind}_create, all optional.

:returns: the patched ${kind}
:rtype: dictionary`

export const groupPatch = updateAction({
  name: 'group_patch',
  isOrg: false,
  partial: true,
  help: patchHelp(kindOf(false)),
})
