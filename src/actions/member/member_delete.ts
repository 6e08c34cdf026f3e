// member_delete: removes a dataset, user or group from a group or organization.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { reqString } from '../../validation/fields'
import { loadGroup } from '../../model/group'
import { endMembership, loadMemberObject } from '../../model/member'
import { requireCanEditMembers } from '../../auth/member'
import { GROUP_NOT_FOUND } from './member_create'

export const memberDelete = defineAction({
  name: 'member_delete',
  readOnly: false,
  help: `Remove an object from a group or organization.

Members of a group may remove datasets from it; everything else needs the admin role.
Nothing happens when the object is not a member.

:param id: the id or name of the group or organization
:type id: string
:param object: the id or name of the dataset, user or group
:type object: string
:param object_type: "package", "user" or "group"
:type object_type: string`,
  validateFirst: true,
  auth: async (ctx, input) => {
    const g = await loadGroup(ctx, input.id, { notFound: GROUP_NOT_FOUND })
    await loadMemberObject(ctx, asText(input.object_type), asText(input.object))
    await requireCanEditMembers(ctx, g, input.object_type)
  },
  params: z.object({ id: reqString, object: reqString, object_type: reqString }),
  async run(ctx, p) {
    const g = await loadGroup(ctx, p.id, { notFound: GROUP_NOT_FOUND })
    const obj = await loadMemberObject(ctx, p.object_type, p.object)
    // a group object is the parent of `id`, stored with the parent in group_id (member_create)
    if (obj.tableName === 'group') await endMembership(ctx, obj.id, 'group', g.id)
    else await endMembership(ctx, g.id, obj.tableName, obj.id)
    return null
  },
})
