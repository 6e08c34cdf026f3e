// package_delete: marks a dataset deleted and drops it from its groups.
import { z } from 'zod'
import { defineAction } from '../action'
import { idOrName } from '../../validation/fields'
import { loadPackage } from '../../model/package'
import { deletePackage } from '../../model/package-delete'
import { requireCanDeletePackage } from '../../auth/package'

export const packageDelete = defineAction({
  name: 'package_delete',
  readOnly: false,
  help: `Delete a dataset (package).

The dataset is marked deleted: it leaves search results, lists and its groups, but members of
its organization can still read it, and package_patch with state "active" brings it back.
dataset_purge removes it for good. You must be allowed to edit the dataset.

:param id: the id or name of the dataset
:type id: string`,
  // ckan: the dataset is looked up (404) before anonymous callers are refused
  allowAnonymous: true,
  auth: async (ctx, input) => {
    const pkg = await loadPackage(ctx, input.id)
    await requireCanDeletePackage(ctx, pkg)
  },
  params: z.object({ id: idOrName }),
  async run(ctx, { id }) {
    await deletePackage(ctx, await loadPackage(ctx, id))
    return null // ckan: package_delete returns nothing
  },
})
