// site_read: whether the caller may read the site (always true).
import { z } from 'zod'
import { defineAction } from '../action'

export const siteRead = defineAction({
  name: 'site_read',
  readOnly: true,
  help: `Return True.

:rtype: bool`,
  auth: 'anyone',
  params: z.object({}),
  async run() {
    return true
  },
})
