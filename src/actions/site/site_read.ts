// site_read: whether the caller may read the site (always true); CKAN 2.11 removed it.
import { z } from 'zod'
import { defineAction } from '../action'

export const siteRead = defineAction({
  name: 'site_read',
  readOnly: true,
  help: `Return True.

Not offered when service.api_compat is 2.11 (CKAN 2.11 removed it): the name is then unknown.

:rtype: bool`,
  removedIn: '2.11',
  auth: 'anyone',
  params: z.object({}),
  async run() {
    return true
  },
})
