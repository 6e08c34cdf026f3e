// package_relationship_delete: ends a relationship between two datasets (the row is kept, deleted).
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { requireCanDeleteRelationship } from '../../auth/relationship'
import { NotFound } from '../../errors'
import {
  checkRelationshipRequest,
  deleteRelationship,
  findRelationship,
} from '../../model/relationship'
import { PAIR_PARAMS_HELP } from './package_relationship_create'

/** The request's relationship; ckan: a bare 404 when there is none. */
async function loadRelationship(ctx: ActionContext, input: Record<string, unknown>) {
  const req = await checkRelationshipRequest(ctx, input, false)
  const row = await findRelationship(ctx, req)
  if (!row) throw new NotFound()
  return { req, row }
}

export const packageRelationshipDelete = defineAction({
  name: 'package_relationship_delete',
  readOnly: false,
  // ckan: the relationship is looked up (404) before the caller is checked
  allowAnonymous: true,
  help: `Delete a relationship between two datasets (packages).

You must be authorized to edit both the subject and the object datasets.

${PAIR_PARAMS_HELP}
:param type: the type of the relationship
:type type: string`,
  auth: async (ctx, input) => {
    const { req, row } = await loadRelationship(ctx, input)
    await requireCanDeleteRelationship(ctx, req.subject, req.object, row.id)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { row } = await loadRelationship(ctx, input)
    await deleteRelationship(ctx, row)
    return null // ckan: package_relationship_delete returns nothing
  },
})
