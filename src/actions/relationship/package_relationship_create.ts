// package_relationship_create: links two datasets (needs edit rights on both).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanEditRelationship } from '../../auth/relationship'
import {
  addRelationship,
  checkRelationshipRequest,
  findRelationship,
  relationshipToDict,
  requestNames,
  setRelationshipComment,
} from '../../model/relationship'

export const packageRelationshipCreate = defineAction({
  name: 'package_relationship_create',
  readOnly: false,
  // ckan: missing keys, unknown datasets and a bad type are reported before the caller is checked
  allowAnonymous: true,
  help: `Create a relationship between two datasets (packages).

You must be authorized to edit both the subject and the object datasets. A
relationship given with a reverse type (e.g. dependency_of) is stored in its
forward form, with subject and object swapped. If the relationship exists
already, its comment is updated.

:param subject: the id or name of the dataset that is the subject of the relationship
:type subject: string
:param object: the id or name of the dataset that is the object of the relationship
:type object: string
:param type: the type of the relationship, one of 'depends_on', 'dependency_of',
    'derives_from', 'has_derivation', 'links_to', 'linked_from', 'child_of' or 'parent_of'
:type type: string
:param comment: a comment about the relationship (optional)
:type comment: string
:returns: the relationship (subject, type, object, comment; datasets by name)
:rtype: dictionary`,
  auth: async (ctx, input) => {
    const req = await checkRelationshipRequest(ctx, input, true)
    await requireCanEditRelationship(ctx, 'package_relationship_create', req.subject, req.object)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const req = await checkRelationshipRequest(ctx, input, true)
    const existing = await findRelationship(ctx, req)
    // ckan: an existing relationship gets the comment sent, or none
    const row = existing
      ? await setRelationshipComment(ctx, existing, req.comment ?? '')
      : await addRelationship(ctx, req)
    return relationshipToDict(row, requestNames(req))
  },
})
