// member_roles_list: the roles a user can hold in an organization or group.
import { z } from 'zod'
import { defineAction } from '../action'
import { optString } from '../../validation/fields'
import { CAPACITIES } from '../../auth/permissions'

const title = (role: string) => role[0]!.toUpperCase() + role.slice(1)

export const memberRolesList = defineAction({
  name: 'member_roles_list',
  readOnly: true,
  help: `Return the roles users can have in an organization or a group.

:param group_type: "organization" or "group"; groups have no editor role (optional,
    default: "organization")
:type group_type: string
:returns: dicts with the role's display text and value
:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({ group_type: optString }),
  async run(_ctx, { group_type }) {
    const roles = CAPACITIES.filter((r) => group_type !== 'group' || r !== 'editor')
    return roles.map((r) => ({ text: title(r), value: r }))
  },
})
