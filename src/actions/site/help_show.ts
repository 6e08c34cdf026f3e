// help_show: the documentation of an action.
import { z } from 'zod'
import { defineAction } from '../action'
import { reqString } from '../../validation/fields'
import { NotFound } from '../../errors'
import { apiAtLeast } from '../../config/api-compat'

export const helpShow = defineAction({
  name: 'help_show',
  readOnly: true,
  help: `Return the help string for a particular API action.

:param name: Action function name (eg \`user_create\`, \`package_search\`)
:type name: string
:returns: The help string for the action function, or None if the function
          does not have a docstring.
:rtype: string
:raises: NotFound if the action function doesn't exist`,
  auth: 'anyone',
  params: z.object({ name: reqString }),
  async run(ctx, { name }) {
    const action = ctx.actions.get(name)
    // an action this site's CKAN version removed, or its settings do not offer, has no help
    if (!action || (action.removedIn && apiAtLeast(ctx.config, action.removedIn)) || action.offered?.(ctx.config) === false)
      throw new NotFound('Action function not found')
    return action.help || null
  },
})
