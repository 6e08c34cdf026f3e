// bulk_update_delete: mark datasets of an organization deleted in one go (organization admins).
import { defineAction } from '../action'
import { authorizeBulkUpdate } from '../../auth/package'
import { bulkUpdateDatasets, bulkUpdateParams } from '../../model/package-bulk'

export const bulkUpdateDelete = defineAction({
  name: 'bulk_update_delete',
  readOnly: false,
  help: `Mark datasets of an organization deleted.

Datasets in the list that the organization does not own are left unchanged. You must be an
admin of the organization.

:param datasets: ids of the datasets to update
:type datasets: list of strings
:param org_id: id of the organization that owns them
:type org_id: string`,
  auth: authorizeBulkUpdate,
  params: bulkUpdateParams,
  async run(ctx, params) {
    return bulkUpdateDatasets(ctx, params, { state: 'deleted' })
  },
})
