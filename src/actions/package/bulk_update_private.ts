// bulk_update_private: make datasets of an organization private in one go (organization admins).
import { defineAction } from '../action'
import { authorizeBulkUpdate } from '../../auth/package'
import { bulkUpdateDatasets, bulkUpdateParams } from '../../model/package-bulk'

export const bulkUpdatePrivate = defineAction({
  name: 'bulk_update_private',
  readOnly: false,
  help: `Make datasets of an organization private.

Datasets in the list that the organization does not own are left unchanged. You must be an
admin of the organization.

:param datasets: ids of the datasets to update
:type datasets: list of strings
:param org_id: id of the organization that owns them
:type org_id: string`,
  auth: authorizeBulkUpdate,
  params: bulkUpdateParams,
  async run(ctx, params) {
    return bulkUpdateDatasets(ctx, params, { private: true })
  },
})
