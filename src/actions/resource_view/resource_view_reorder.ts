// resource_view_reorder: puts a resource's views in a new order.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import type { DataDict } from '../../data-dict'
import { ValidationError } from '../../errors'
import { requireCanEditViews } from '../../auth/resource-view'
import { asText } from '../../model/package-validate'
import { loadViewedResource, reorderViews } from '../../model/resource-view'
import { MISSING } from '../../validation/fields'

/** ckan's checks before the lookup: both keys there, order a list without duplicates (string messages). */
async function target(ctx: ActionContext, input: DataDict) {
  const missing = ['id', 'order'].filter((k) => input[k] === undefined || input[k] === null)
  if (missing.length) throw new ValidationError(Object.fromEntries(missing.map((k) => [k, [MISSING]])))
  if (!Array.isArray(input.order))
    throw new ValidationError({ order: 'Must supply order as a list' })
  const order = input.order.map(asText)
  if (new Set(order).size !== order.length)
    throw new ValidationError({ order: 'No duplicates allowed in order' })
  return { res: await loadViewedResource(ctx, input), order }
}

export const resourceViewReorder = defineAction({
  name: 'resource_view_reorder',
  readOnly: false,
  // ckan: the parameters are checked before the caller
  allowAnonymous: true,
  help: `Reorder the views of a resource.

The views listed come first, in the order given; the others follow in their current order.
You must be allowed to edit the resource's dataset.

:param id: the id of the resource
:type id: string
:param order: the ids of the resource's views, in their new order
:type order: list of strings
:returns: the resource id and the ids of all its views in their new order
:rtype: dictionary`,
  async auth(ctx, input) {
    await requireCanEditViews(ctx, 'resource_view_reorder', (await target(ctx, input)).res)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { res, order } = await target(ctx, input)
    return { id: res.id, order: await reorderViews(ctx, res, order) }
  },
})
