// followee_list: everything a user follows, sorted by display name (for that user and sysadmins).
import { z } from 'zod'
import { defineAction } from '../action'
import { invoke } from '../invoke'
import { requireCanSeeFollowees } from '../../auth/follow'
import { loadFollowTarget } from '../../model/follow-target'
import { filterText } from '../../validation/fields'
import { datasetFolloweeList } from './dataset_followee_list'
import { groupFolloweeList } from './group_followee_list'
import { organizationFolloweeList } from './organization_followee_list'
import { userFolloweeList } from './user_followee_list'

type Dict = Record<string, unknown>

const LISTS = [
  ['user', userFolloweeList],
  ['dataset', datasetFolloweeList],
  ['group', groupFolloweeList],
  ['organization', organizationFolloweeList],
] as const

// ckan: a dataset dict has no display_name, so its title (or name) stands in
const displayNameOf = (d: Dict) =>
  String(d.display_name || d.fullname || d.title || d.name || '')

export const followeeList = defineAction({
  name: 'followee_list',
  readOnly: true,
  // ckan: the parameters are validated before the caller is authorized
  validateFirst: true,
  help: `Return everything the given user follows: users, datasets, groups and organizations.

Only the user themself and sysadmins may see this. Each item is a dictionary with "type"
("user", "dataset", "group" or "organization"), "display_name" (a user's display name, a
dataset's or group's title) and "dict" (the dictionary user_followee_list,
dataset_followee_list, group_followee_list or organization_followee_list gives for it). Items
are sorted by display name.

:param id: the id or name of the user
:type id: string
:param q: only return objects whose display name begins with this text, ignoring case
    (optional)
:type q: string
:rtype: list of dictionaries`,
  auth: async (ctx, input) =>
    requireCanSeeFollowees(ctx, (await loadFollowTarget(ctx, 'user', input.id)).row),
  params: z.object({ id: z.unknown().optional(), q: filterText }),
  async run(ctx, { id, q }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    const items: { type: string; display_name: string; dict: Dict }[] = []
    for (const [type, action] of LISTS) {
      const dicts: Dict[] = await invoke(ctx, action, { id: row.id }, { skipAuth: true })
      for (const d of dicts) items.push({ type, display_name: displayNameOf(d), dict: d })
    }
    // ckan: a plain (case-sensitive) sort, then a case-insensitive prefix filter
    items.sort((a, b) =>
      a.display_name < b.display_name ? -1 : a.display_name > b.display_name ? 1 : 0,
    )
    const prefix = q?.trim().toLowerCase()
    if (!prefix) return items
    return items.filter((i) => i.display_name.trim().toLowerCase().startsWith(prefix))
  },
})
