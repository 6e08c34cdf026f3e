// resource_update: replaces a resource's metadata (and optionally its uploaded file).
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import { loadPackage } from '../../model/package'
import { authorizeResourceWrite } from '../../auth/resource'
import { loadResource, requireId, saveResource } from '../../model/resource-write'
import { loadOnResourceWrite } from '../../jobs/loader/enqueue'

const NOT_FOUND = 'Resource was not found.'

export const resourceUpdate = defineAction({
  name: 'resource_update',
  readOnly: false,
  // ckan: an unknown resource is a 404 even for anonymous callers
  allowAnonymous: true,
  help: `Update a resource, replacing its metadata.

url, description, resource_type, mimetype and mimetype_inner are cleared when not given;
format, name, hash, size and the other stored values are kept. Extra fields become exactly
the extra keys given. You must be allowed to edit the resource's dataset. A new file can be
uploaded as for resource_create.

:param id: the id of the resource to update
:type id: string

The other parameters are those of resource_create (package_id is ignored).

:returns: the updated resource
:rtype: dictionary`,
  auth: (ctx, input) => authorizeResourceWrite(ctx, 'resource_update', input, 'edit', NOT_FOUND),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const res = await loadResource(ctx, requireId(input), NOT_FOUND)
    if (res.state !== 'active') throw new NotFound(NOT_FOUND)
    const pkg = await loadPackage(ctx, res.package_id)
    return saveResource(ctx, pkg, { ...input, id: res.id }, res, loadOnResourceWrite)
  },
})
