// config_option_list: the options a sysadmin may change at run time.
import { z } from 'zod'
import { defineAction } from '../action'
import { editableWireKeys } from '../../model/config'

export const configOptionList = defineAction({
  name: 'config_option_list',
  readOnly: true,
  help: `Return the keys of the configuration options that can be changed at run time with
config_option_update. Only sysadmins may call this.

:rtype: list of strings`,
  auth: 'sysadmin',
  params: z.object({}),
  async run() {
    return editableWireKeys()
  },
})
