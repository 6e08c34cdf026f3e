// bulk_update_public: make datasets of an organization public in one go (organization admins).
import { bulkUpdateAction } from './bulk_update_private'

export const bulkUpdatePublic = bulkUpdateAction(
  'bulk_update_public',
  'Make datasets of an organization public',
  { private: false },
)
