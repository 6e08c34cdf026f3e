// group_activity_list: the activity stream of a group and its datasets (organizations share it).
import { defineAction } from '../action'
import { requireCanReadGroup } from '../../auth/group'
import { activityListPage, PAGE_PARAMS_HELP, typesHelp } from '../activity-list'
import { groupStream, orgStream } from '../../model/activity-sources'
import { kindOf, loadGroup } from '../../model/group'
import { activityListParams } from '../../validation/activity'

const help = (kind: string) => `Return the activity stream of a ${kind}: the activities of the
${kind} itself and of its datasets, newest first.

${
  kind === 'organization'
    ? 'The datasets are those the organization owns.'
    : 'The datasets are those in the group now (or in it when they were deleted).'
} Activities of datasets that are private now, or were when the activity was recorded, are shown
only to those who may read them (could read them then). You
must be allowed to see the ${kind}.

Each activity's data holds only the title of its dataset or ${kind} under service.api_compat 2.9,
and the whole object as it was after the activity under 2.10 and later.

:param id: the id or name of the ${kind}
:type id: string
${PAGE_PARAMS_HELP}
:param include_hidden_activity: also return activities by hidden users (the site user, or
    service.hide_activity_from_users); sysadmins only, ignored for others
    (optional, default: False)
:type include_hidden_activity: bool
${typesHelp(false)}
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
      return activityListPage(
        ctx,
        (viewer) => (isOrg ? orgStream(g.id, viewer) : groupStream(g.id, viewer)),
        // ckan: exclude_activity_types is accepted but not read here
        { ...p, types: p.activity_types?.length ? { only: p.activity_types } : undefined },
      )
    },
  })
}

export const groupActivityList = groupActivityListAction({
  name: 'group_activity_list',
  isOrg: false,
})
