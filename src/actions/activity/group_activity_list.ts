// group_activity_list: the activity stream of a group and its datasets (organizations share it).
import { defineAction } from '../action'
import { requireCanReadGroup } from '../../auth/group'
import { activityToDict } from '../../model/activity'
import { activityPage, viewerFor } from '../../model/activity-query'
import { groupStream, orgStream } from '../../model/activity-sources'
import { kindOf, loadGroup } from '../../model/group'
import { activityListParams, activityPageOf } from '../../validation/activity'

const help = (kind: string) => `Return the activity stream of a ${kind}: the activities of the
${kind} itself and of its datasets, newest first.

${
  kind === 'organization'
    ? 'The datasets are those the organization owns.'
    : 'The datasets are those in the group now (or in it when they were deleted).'
} Activities of datasets that are private now are shown only to those who may read them. You
must be allowed to see the ${kind}.

:param id: the id or name of the ${kind}
:type id: string
:param offset: how many activities to skip (optional, default: 0)
:type offset: int
:param limit: the maximum number of activities to return (optional, default: 31, or
    service.activity_list_limit; at most 100, or service.activity_list_limit_max)
:type limit: int
:param include_hidden_activity: also return activities by hidden users (the site user, or
    service.hide_activity_from_users); sysadmins only, ignored for others
    (optional, default: False)
:type include_hidden_activity: bool
:rtype: list of dictionaries`

/** group_activity_list and organization_activity_list differ in the kind and its datasets. */
export function groupActivityListAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  return defineAction({
    name,
    readOnly: true,
    help: help(kindOf(isOrg)),
    validateFirst: true,
    // ckan: group_show's rule; a group of the other kind is not found
    auth: async (ctx, input) => requireCanReadGroup(ctx, await loadGroup(ctx, input.id, { isOrg })),
    params: activityListParams,
    async run(ctx, p) {
      const g = await loadGroup(ctx, p.id, { isOrg })
      const viewer = await viewerFor(ctx, ctx.user)
      const rows = await activityPage(
        ctx,
        isOrg ? orgStream(g.id, viewer) : groupStream(g.id, viewer),
        {
          viewer,
          ...activityPageOf(ctx.config, p),
          includeHidden: p.include_hidden_activity && (!!ctx.user?.sysadmin || !!ctx.ignoreAuth),
        },
      )
      return rows.map((r) => activityToDict(r, false))
    },
  })
}

export const groupActivityList = groupActivityListAction({
  name: 'group_activity_list',
  isOrg: false,
})
