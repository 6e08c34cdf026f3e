// config_option_show: the current value of one runtime-editable option.
import { z } from 'zod'
import { defineAction } from '../action'
import { field, fail, MISSING } from '../../validation/fields'
import { ValidationError } from '../../errors'
import { editableOption } from '../../model/config'

export const configOptionShow = defineAction({
  name: 'config_option_show',
  readOnly: true,
  help: `Return the current value of a configuration option that can be changed at run time
(see config_option_list). Only sysadmins may call this.

:param key: the option's key, e.g. ckan.site_title
:type key: string
:returns: the value, or None when it is not set
:rtype: string`,
  auth: 'sysadmin',
  params: z.object({
    key: field((v) =>
      v === undefined || v === null ? fail(MISSING) : typeof v === 'string' ? v : String(v),
    ),
  }),
  async run(ctx, { key }) {
    const def = editableOption(key)
    if (!def) throw ValidationError.message(`Configuration option '${key}' can not be shown`)
    return ctx.config.raw(def.key)
  },
})
