// resource_delete: removes a resource from its dataset (it is kept, marked deleted).
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeResourceWrite } from '../../auth/resource'
import { deleteResource, loadResource, requireId } from '../../model/resource-write'
import { findTable } from '../../datastore/registry'
import { dropTable } from '../../datastore/writes'

export const resourceDelete = defineAction({
  name: 'resource_delete',
  readOnly: false,
  // ckan: an unknown resource is a 404 even for anonymous callers
  allowAnonymous: true,
  help: `Delete a resource from its dataset.

Anyone allowed to edit the dataset may delete its resources.

:param id: the id of the resource
:type id: string`,
  auth: (ctx, input) => authorizeResourceWrite(ctx, 'resource_delete', input, 'delete'),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const res = await loadResource(ctx, requireId(input))
    await deleteResource(ctx, res)
    // ckan: the DataStore plugin drops the resource's table with it
    if (ctx.datastore && (await findTable(ctx.datastore, res.id))) await dropTable(ctx.datastore, res.id)
    return null // ckan: resource_delete returns nothing
  },
})
