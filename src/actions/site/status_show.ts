// status_show: the site's title, URL, version and enabled extensions; for sysadmins, the job queue.
import { z } from 'zod'
import { defineAction } from '../action'
import { apiCompat } from '../../config/api-compat'

/** The CKAN release each api_compat setting answers as (clients sniff the version). */
const VERSION = { '2.9': '2.9.11', '2.10': '2.10.10', '2.11': '2.11.5' } as const

export const statusShow = defineAction({
  name: 'status_show',
  readOnly: true,
  help: `Return a dictionary with information about the site's configuration (for sysadmins also
\`\`jobs\`\`: the background job queue's depth, its oldest waiting job and the running ones).

:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({}),
  async run(ctx) {
    const c = ctx.config
    const hidden = c.bool('service.hide_version') && !ctx.user?.sysadmin
    return {
      site_title: c.str('service.site_title'),
      site_description: c.str('service.site_description'),
      site_url: c.str('service.site_url'),
      ...(hidden ? {} : { ckan_version: VERSION[apiCompat(c)] }),
      error_emails_to: c.raw('email_to'),
      locale_default: c.str('service.locale_default'),
      // the DataStore is listed only where it has a database (Workers without DATASTORE_URL)
      extensions: c.list('service.plugins').filter((p) => p !== 'datastore' || ctx.datastore),
      // for sysadmins: the background job queue at a glance (a stuck queue shows here)
      ...(ctx.user?.sysadmin ? { jobs: await ctx.jobs.stats() } : {}),
    }
  },
})
