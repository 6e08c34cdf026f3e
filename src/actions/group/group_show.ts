// group_show: one group with its extras, parent groups and (on request) users and datasets.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { idOrName } from '../../validation/fields'
import {
  SHOW_DEFAULTS,
  groupDict,
  kindOf,
  loadGroup,
  strictBool,
} from '../../model/group'
import { requireCanReadGroup } from '../../auth/group'

/** seed: include_datasets lists up to this many datasets (CKAN 2.9 gives 10). */
export const SHOW_DATASETS_MAX = 1000

const FLAGS = [
  'datasets',
  'dataset_count',
  'extras',
  'users',
  'groups',
  'tags',
  'followers',
] as const

/** The include_* flags of group_show, checked the strict way CKAN's asbool checks them. */
export const showParams = z
  .object({
    id: idOrName,
    ...Object.fromEntries(FLAGS.map((f) => [`include_${f}`, z.unknown().optional()])),
  })
  .superRefine((p, c) => {
    const input = p as Record<string, unknown>
    if (FLAGS.some((f) => strictBool(input[`include_${f}`], false) === undefined))
      c.addIssue({ code: 'custom', message: 'Parameter is not an bool', path: [] })
  })

/** The dict options that a (checked) set of include_* flags asks for. */
export function showOptions(ctx: ActionContext, input: Record<string, unknown>, isOrg: boolean) {
  const d = SHOW_DEFAULTS(ctx, isOrg)
  const flag = (f: (typeof FLAGS)[number], def: boolean) =>
    strictBool(input[`include_${f}`], def) ?? def
  return {
    // ckan: include_datasets lists at most service.search.rows_max datasets
    datasets: flag('datasets', false)
      ? Math.min(SHOW_DATASETS_MAX, Math.max(0, ctx.config.int('service.search.rows_max')))
      : 0,
    count: flag('dataset_count', d.count),
    extras: flag('extras', d.extras),
    users: flag('users', d.users),
    groups: flag('groups', d.groups),
    tags: flag('tags', d.tags),
    followers: flag('followers', d.followers),
  }
}

const help = (kind: string, usersDefault: string) => `Return the details of a ${kind}.

A deleted ${kind} can only be seen by its members and by sysadmins.

:param id: the id or name of the ${kind}
:type id: string
:param include_datasets: include up to ${SHOW_DATASETS_MAX} of the ${kind}'s datasets
    (optional, default: False)
:type include_datasets: bool
:param include_dataset_count: include the number of datasets (optional, default: True)
:type include_dataset_count: bool
:param include_extras: include the extras (optional, default: True)
:type include_extras: bool
:param include_users: include the members (optional, default: ${usersDefault})
:type include_users: bool
:param include_groups: include the parent groups (optional, default: True)
:type include_groups: bool
:param include_tags: include the tags (optional, default: True)
:type include_tags: bool
:param include_followers: include the number of followers (optional, default: True)
:type include_followers: bool
:rtype: dictionary`

/** group_show and organization_show differ only in which kind of group they accept. */
export function showAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  const kind = kindOf(isOrg)
  return defineAction({
    name,
    readOnly: true,
    help: help(kind, isOrg ? 'True' : 'False; True under api_compat 2.10 and later'),
    // ckan: the id and the flags are checked before the group is looked up
    validateFirst: true,
    auth: async (ctx, input) => requireCanReadGroup(ctx, await loadGroup(ctx, input.id, { isOrg })),
    params: showParams,
    async run(ctx, params, input) {
      const g = await loadGroup(ctx, params.id, { isOrg })
      return groupDict(ctx, g, showOptions(ctx, input, isOrg))
    },
  })
}

export const groupShow = showAction({ name: 'group_show', isOrg: false })
