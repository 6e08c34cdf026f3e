// package_activity_list: the activity stream of one dataset, newest first.
import { defineAction } from '../action'
import { requireCanSeePackageActivity } from '../../auth/activity'
import { activityListPage, PAGE_PARAMS_HELP, typesHelp } from '../activity-list'
import { packageStream } from '../../model/activity-sources'
import { loadPackage } from '../../model/package'
import { packageActivityListParams, typeFilter } from '../../validation/activity'

export const packageActivityList = defineAction({
  name: 'package_activity_list',
  readOnly: true,
  help: `Return a dataset's activity stream, newest first.

Each activity's data holds only the dataset's title under service.api_compat 2.9, and the whole
dataset as it was after the activity under 2.10 and later. You must be allowed to see the
dataset.

:param id: the id or name of the dataset
:type id: string
${PAGE_PARAMS_HELP}
:param include_hidden_activity: also return activities by hidden users (the site user, or
    service.hide_activity_from_users), such as harvesting runs; sysadmins only, ignored for
    others (optional, default: False)
:type include_hidden_activity: bool
${typesHelp(true)}
:rtype: list of dictionaries`,
  validateFirst: true,
  auth: (ctx, input) => requireCanSeePackageActivity(ctx, input.id, false),
  params: packageActivityListParams,
  async run(ctx, p) {
    const pkg = await loadPackage(ctx, p.id)
    return activityListPage(ctx, () => packageStream(pkg.id), { ...p, types: typeFilter(p) })
  },
})
