// resource_patch: changes only the given keys of a resource.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadPackage } from '../../model/package'
import { authorizeResourceWrite } from '../../auth/resource'
import { loadOnResourceWrite } from '../../jobs/loader/enqueue'
import {
  loadResource,
  requireId,
  saveResource,
  shownResource,
} from '../../model/resource-write'

export const resourcePatch = defineAction({
  name: 'resource_patch',
  readOnly: false,
  help: `Update some fields of a resource, keeping the others.

The given keys are laid over the resource as resource_show returns it, and the result is
saved as by resource_update. You must be allowed to edit the resource's dataset.

:param id: the id of the resource
:type id: string

The other parameters are those of resource_create (package_id is ignored).

:returns: the updated resource
:rtype: dictionary`,
  auth: (ctx, input) => authorizeResourceWrite(ctx, 'resource_patch', input, 'edit'),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const res = await loadResource(ctx, requireId(input))
    const { shown } = await shownResource(ctx, res)
    const pkg = await loadPackage(ctx, res.package_id)
    return saveResource(ctx, pkg, { ...shown, ...input, id: res.id }, res, loadOnResourceWrite)
  },
})
