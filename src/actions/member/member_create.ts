// member_create: puts a dataset, user or group into a group or organization, or changes its capacity.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { reqString } from '../../validation/fields'
import { loadGroup } from '../../model/group'
import {
  loadMemberObject,
  memberDict,
  setMembership,
} from '../../model/member'
import { requireCanEditMembers, requireNotRevokingOwnAdmin } from '../../auth/member'

export const GROUP_NOT_FOUND = 'Group was not found.'

export const memberCreate = defineAction({
  name: 'member_create',
  readOnly: false,
  help: `Make an object a member of a group or organization, or change its capacity there.

Members of a group may add datasets to it; everything else needs the admin role. An admin
cannot lower their own capacity.

:param id: the id or name of the group or organization
:type id: string
:param object: the id or name of the dataset, user or group
:type object: string
:param object_type: "package", "user" or "group"
:type object_type: string
:param capacity: the capacity of the membership, e.g. "member", "editor" or "admin" for
    users, "public" for datasets, "parent" for groups
:type capacity: string
:returns: the membership
:rtype: dictionary`,
  // ckan: missing values, then the group and object (404), then the caller's rights
  validateFirst: true,
  auth: async (ctx, input) => {
    const g = await loadGroup(ctx, input.id, { notFound: GROUP_NOT_FOUND })
    await loadMemberObject(ctx, asText(input.object_type), asText(input.object))
    await requireCanEditMembers(ctx, g, input.object_type)
  },
  params: z.object({
    id: reqString,
    object: reqString,
    object_type: reqString,
    capacity: reqString,
  }),
  async run(ctx, p) {
    const g = await loadGroup(ctx, p.id, { notFound: GROUP_NOT_FOUND })
    const obj = await loadMemberObject(ctx, p.object_type, p.object)
    if (obj.tableName === 'user') await requireNotRevokingOwnAdmin(ctx, g.id, obj.id, p.capacity)
    if (obj.tableName === 'group') {
      // ckan: member_create(id=child, object=parent, capacity="parent") puts `object` above
      // `id`. Our rows keep the parent in group_id (as group_create's `groups` writes them), so
      // the row is stored the other way round and answered the way CKAN's reads.
      const row = await setMembership(ctx, obj.id, 'group', g.id, p.capacity)
      return memberDict({ ...row, group_id: g.id, table_id: obj.id })
    }
    return memberDict(await setMembership(ctx, g.id, obj.tableName, obj.id, p.capacity))
  },
})
