// get_site_user: the name and API key of the site user (created on first use).
import { z } from 'zod'
import { defineAction } from '../action'
import { sysadminsOnly } from '../../auth/caller'
import { ensureSiteUser } from '../../model/site-user'
import { ckanBool } from '../../validation/fields'

export const getSiteUser = defineAction({
  name: 'get_site_user',
  // ckan: defined among the read actions (GET works), though the first call creates the user
  readOnly: true,
  help: `Return the site user: the sysadmin account that internal processes act as.

It is named after service.site_id and is created the first time it is asked for. Only
sysadmins may call this.

:param defer_commit: accepted for compatibility; ignored (optional, default: False)
:type defer_commit: bool
:returns: the site user's name and API key
:rtype: dictionary`,
  auth: sysadminsOnly('Only internal services allowed to use this action'),
  params: z.object({ defer_commit: ckanBool(false) }),
  async run(ctx) {
    const { user } = await ensureSiteUser(ctx)
    return { name: user.name, apikey: user.apikey }
  },
})
