// user_show: one user account, optionally with the datasets it created and its follower count.
import { z } from 'zod'
import { and, desc, eq, inArray } from 'drizzle-orm'
import { defineAction } from '../action'
import { packages } from '../../db/schema'
import type { ActionContext, UserRow } from '../../context'
import { canReadPackage } from '../../auth/package'
import { followerCount } from '../../model/follower'
import { packageDicts } from '../../model/package'
import { requireCanSeeUsers } from '../../auth/user'
import { isSelfOrSysadmin, loadUser, userToDict } from '../../model/user'
import { ckanBool } from '../../validation/fields'
import { apiAtLeast } from '../../config/api-compat'

const DATASETS_MAX = 50

/** Datasets the user created, newest first, as package_search would show them to the caller. */
async function createdDatasets(ctx: ActionContext, user: UserRow, privileged: boolean) {
  const visible = privileged
    ? inArray(packages.state, ['active', 'draft'])
    : and(eq(packages.state, 'active'), eq(packages.private, false))
  const rows = await ctx.db
    .select()
    .from(packages)
    .where(and(eq(packages.creator_user_id, user.id), visible))
    .orderBy(desc(packages.metadata_modified))
  const ids: string[] = []
  for (const p of rows) {
    if (ids.length === DATASETS_MAX) break
    if (ctx.user?.sysadmin || (await canReadPackage(ctx, p))) ids.push(p.id)
  }
  const dicts = await packageDicts(ctx, ids)
  return ids.map((id) => dicts.get(id)).filter((d) => d !== undefined)
}

/** CKAN 2.10: without an id, user_show shows the caller. */
const shownId = (ctx: ActionContext, id: unknown) =>
  id === undefined && ctx.user && apiAtLeast(ctx.config, '2.10') ? ctx.user.id : id

export const userShow = defineAction({
  name: 'user_show',
  readOnly: true,
  help: `Return a user account.

The e-mail address and API key are included only for the user themself and sysadmins.

:param id: the id or name of the user (under api_compat 2.10 and later optional: the caller)
:type id: string
:param include_datasets: add up to 50 datasets created by the user (private and draft ones
    only for the user themself and sysadmins) (optional, default: False)
:type include_datasets: bool
:param include_num_followers: add the number of followers (optional, default: False)
:type include_num_followers: bool
:param include_password_hash: add the password hash (optional, sysadmins only, default: False)
:type include_password_hash: bool
:param include_plugin_extras: add the plugin extras (optional, sysadmins only, default: False)
:type include_plugin_extras: bool
:rtype: dictionary`,
  auth: async (ctx, input) => {
    await loadUser(ctx, shownId(ctx, input.id), { missingIsNotFound: true })
    requireCanSeeUsers(ctx)
  },
  params: z.object({
    id: z.unknown().optional(),
    include_datasets: ckanBool(false),
    include_num_followers: ckanBool(false),
    include_password_hash: ckanBool(false),
    include_plugin_extras: ckanBool(false),
  }),
  async run(ctx, params) {
    // ckan: no id at all is "Not found" too (under 2.10 and later: the caller, if signed in)
    const user = await loadUser(ctx, shownId(ctx, params.id), { missingIsNotFound: true })
    const privileged = isSelfOrSysadmin(ctx, user)
    const sysadmin = !!ctx.user?.sysadmin
    const dict = await userToDict(ctx, user, {
      includePrivate: privileged,
      includePasswordHash: sysadmin && params.include_password_hash,
      includePluginExtras: sysadmin && params.include_plugin_extras,
    })
    if (params.include_datasets) dict.datasets = await createdDatasets(ctx, user, privileged)
    if (params.include_num_followers) dict.num_followers = await followerCount(ctx, user, 'user')
    return dict
  },
})
