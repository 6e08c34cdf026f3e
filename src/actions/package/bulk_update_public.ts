// bulk_update_public: make datasets of an organization public in one go (organization admins).
import { bulkUpdateAction } from './bulk_update_private'

export const bulkUpdatePublic = bulkUpdateAction({
  name: 'bulk_update_public',
  doing: 'Make datasets of an organization public',
  change: { private: false },
})
