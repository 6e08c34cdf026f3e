// bulk_update_delete: mark datasets of an organization deleted in one go (organization admins).
import { bulkUpdateAction } from './bulk_update_private'

export const bulkUpdateDelete = bulkUpdateAction(
  'bulk_update_delete',
  'Mark datasets of an organization deleted',
  { state: 'deleted' },
)
