// Who may create, change, delete and list dataset relationships (CKAN's package_relationship_*).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import type { PackageRow } from '../model/package'
import { requireLoggedIn } from './caller'
import { canEditPackage, canReadPackage } from './package'

/** ckan: package_update rights on both datasets of the relationship. */
export async function canEditRelationship(
  ctx: ActionContext,
  subject: PackageRow,
  object: PackageRow,
) {
  return (await canEditPackage(ctx, subject)) && (await canEditPackage(ctx, object))
}

/** package_relationship_create / _update: `action` names the refusal of an anonymous caller. */
export async function requireCanEditRelationship(
  ctx: ActionContext,
  action: string,
  subject: PackageRow,
  object: PackageRow,
) {
  requireLoggedIn(ctx, action)
  if (!(await canEditRelationship(ctx, subject, object)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit these packages`)
}

/** package_relationship_delete: the create rule, refused with the relationship's id. */
export async function requireCanDeleteRelationship(
  ctx: ActionContext,
  subject: PackageRow,
  object: PackageRow,
  relationshipId: string,
) {
  requireLoggedIn(ctx, 'package_relationship_delete')
  if (!(await canEditRelationship(ctx, subject, object)))
    throw new NotAuthorized(
      `User ${callerName(ctx)} not authorized to delete relationship ${relationshipId}`,
    )
}

/** package_relationships_list: read rights on the dataset and, when given, the second one. */
export async function requireCanListRelationships(
  ctx: ActionContext,
  first: PackageRow,
  second: PackageRow | undefined,
) {
  const ok = (await canReadPackage(ctx, first)) && (!second || (await canReadPackage(ctx, second)))
  if (!ok) throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read these packages`)
}
