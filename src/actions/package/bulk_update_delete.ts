// bulk_update_delete: mark datasets of an organization deleted in one go (organization admins).
import { bulkUpdateAction } from './bulk_update_private'

export const bulkUpdateDelete = bulkUpdateAction({
  name: 'bulk_update_delete',
  doing: 'Mark datasets of an organization deleted',
  change: { state: 'deleted' },
})
