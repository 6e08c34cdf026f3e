// package_relationship_update: changes the comment of a relationship between two datasets.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanEditRelationship } from '../../auth/relationship'
import { NotFound } from '../../errors'
import {
  checkRelationshipRequest,
  findRelationship,
  relationshipToDict,
  requestNames,
  setRelationshipComment,
} from '../../model/relationship'

const NOT_FOUND = 'This relationship between the packages was not found.'

export const packageRelationshipUpdate = defineAction({
  name: 'package_relationship_update',
  readOnly: false,
  // ckan: missing keys and unknown datasets are reported before the caller is checked
  allowAnonymous: true,
  help: `Update a relationship between two datasets (packages).

The subject, object and type parameters identify the relationship; only the
comment can be updated. You must be authorized to edit both datasets.

:param subject: the id or name of the dataset that is the subject of the relationship
:type subject: string
:param object: the id or name of the dataset that is the object of the relationship
:type object: string
:param type: the type of the relationship (see package_relationship_create)
:type type: string
:param comment: the new comment (optional; left out, the comment becomes empty)
:type comment: string
:returns: the updated relationship
:rtype: dictionary`,
  auth: async (ctx, input) => {
    const req = await checkRelationshipRequest(ctx, input, false)
    await requireCanEditRelationship(ctx, 'package_relationship_update', req.subject, req.object)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const req = await checkRelationshipRequest(ctx, input, false)
    const existing = await findRelationship(ctx, req)
    if (!existing) throw new NotFound(NOT_FOUND)
    const row = await setRelationshipComment(ctx, existing, req.comment ?? '')
    return relationshipToDict(row, requestNames(req))
  },
})
