// bulk_update_private: make datasets of an organization private in one go (organization admins);
// also the factory bulk_update_public and bulk_update_delete are built with.
import { defineAction } from '../action'
import { authorizeBulkUpdate } from '../../auth/package'
import { bulkUpdateDatasets, bulkUpdateParams } from '../../model/package-bulk'

type BulkChange = Parameters<typeof bulkUpdateDatasets>[2]

/** The bulk_update_* actions share one implementation; `doing` starts the help. */
export function bulkUpdateAction({
  name,
  doing,
  change,
}: {
  name: string
  doing: string
  change: BulkChange
}) {
  return defineAction({
    name,
    readOnly: false,
    help: `${doing}.

Datasets in the list that the organization does not own are left unchanged. You must be an
admin of the organization.

:param datasets: ids of the datasets to update
:type datasets: list of strings
:param org_id: id of the organization that owns them
:type org_id: string`,
    auth: authorizeBulkUpdate,
    params: bulkUpdateParams,
    async run(ctx, params) {
      return bulkUpdateDatasets(ctx, params, change)
    },
  })
}

export const bulkUpdatePrivate = bulkUpdateAction({
  name: 'bulk_update_private',
  doing: 'Make datasets of an organization private',
  change: { private: true },
})
