// package_relationship_create: links two datasets (needs edit rights on both); also the factory
// package_relationship_update is built with.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { requireCanEditRelationship } from '../../auth/relationship'
import {
  addRelationship,
  checkRelationshipRequest,
  findRelationship,
  relationshipToDict,
  requestNames,
  setRelationshipComment,
  type RelationshipRequest,
  type RelationshipRow,
} from '../../model/relationship'

/** The help of the subject and object parameters (package_relationship_delete's too). */
export const PAIR_PARAMS_HELP = `:param subject: the id or name of the dataset that is the subject of the relationship
:type subject: string
:param object: the id or name of the dataset that is the object of the relationship
:type object: string`

/**
 * package_relationship_create and package_relationship_update: ckan reports missing keys,
 * unknown datasets (and, on create, a bad type) before the caller is checked, who must be
 * authorized to edit both datasets. `write` gives the relationship's row, answered as a dict.
 */
export function relationshipWriteAction({
  name,
  create,
  help,
  write,
}: {
  name: string
  create: boolean
  help: string
  write: (ctx: ActionContext, req: RelationshipRequest) => Promise<RelationshipRow>
}) {
  return defineAction({
    name,
    readOnly: false,
    allowAnonymous: true,
    help,
    auth: async (ctx, input) => {
      const req = await checkRelationshipRequest(ctx, input, create)
      await requireCanEditRelationship(ctx, name, req.subject, req.object)
    },
    params: z.record(z.string(), z.unknown()),
    async run(ctx, _params, input) {
      const req = await checkRelationshipRequest(ctx, input, create)
      return relationshipToDict(await write(ctx, req), requestNames(req))
    },
  })
}

export const packageRelationshipCreate = relationshipWriteAction({
  name: 'package_relationship_create',
  create: true,
  help: `Create a relationship between two datasets (packages).

You must be authorized to edit both the subject and the object datasets. A
relationship given with a reverse type (e.g. dependency_of) is stored in its
forward form, with subject and object swapped. If the relationship exists
already, its comment is updated.

${PAIR_PARAMS_HELP}
:param type: the type of the relationship, one of 'depends_on', 'dependency_of',
    'derives_from', 'has_derivation', 'links_to', 'linked_from', 'child_of' or 'parent_of'
:type type: string
:param comment: a comment about the relationship (optional)
:type comment: string
:returns: the relationship (subject, type, object, comment; datasets by name)
:rtype: dictionary`,
  async write(ctx, req) {
    const existing = await findRelationship(ctx, req)
    // ckan: an existing relationship gets the comment sent, or none
    return existing
      ? await setRelationshipComment(ctx, existing, req.comment ?? '')
      : await addRelationship(ctx, req)
  },
})
