// package_relationship_update: changes the comment of a relationship between two datasets.
import { NotFound } from '../../errors'
import { findRelationship, setRelationshipComment } from '../../model/relationship'
import { PAIR_PARAMS_HELP, relationshipWriteAction } from './package_relationship_create'

const NOT_FOUND = 'This relationship between the packages was not found.'

export const packageRelationshipUpdate = relationshipWriteAction({
  name: 'package_relationship_update',
  create: false,
  help: `Update a relationship between two datasets (packages).

The subject, object and type parameters identify the relationship; only the
comment can be updated. You must be authorized to edit both datasets.

${PAIR_PARAMS_HELP}
:param type: the type of the relationship (see package_relationship_create)
:type type: string
:param comment: the new comment (optional; left out, the comment becomes empty)
:type comment: string
:returns: the updated relationship
:rtype: dictionary`,
  async write(ctx, req) {
    const existing = await findRelationship(ctx, req)
    if (!existing) throw new NotFound(NOT_FOUND)
    return setRelationshipComment(ctx, existing, req.comment ?? '')
  },
})
