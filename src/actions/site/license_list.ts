// license_list: the licenses datasets may use.
import { z } from 'zod'
import { defineAction } from '../action'
import { LICENSES } from '../../model/license'

export const licenseList = defineAction({
  name: 'license_list',
  readOnly: true,
  help: `Return the list of licenses available for datasets on the site.

:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({}),
  async run() {
    return LICENSES
  },
})
