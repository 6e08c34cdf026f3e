// status_show: the site's title, URL, version and enabled extensions.
import { z } from 'zod'
import { defineAction } from '../action'

export const statusShow = defineAction({
  name: 'status_show',
  readOnly: true,
  help: `Return a dictionary with information about the site's configuration.

:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({}),
  async run(ctx) {
    const c = ctx.config
    return {
      site_title: c.str('service.site_title'),
      site_description: c.str('service.site_description'),
      site_url: c.str('service.site_url'),
      ckan_version: '2.9.11', // ckan: clients sniff a 2.9.x version
      error_emails_to: c.raw('email_to'),
      locale_default: c.str('service.locale_default'),
      // the DataStore is listed only where it has a database (Workers without DATASTORE_URL)
      extensions: c.list('service.plugins').filter((p) => p !== 'datastore' || ctx.datastore),
    }
  },
})
