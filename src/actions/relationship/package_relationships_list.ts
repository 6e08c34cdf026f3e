// package_relationships_list: a dataset's relationships as seen from that dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { canReadPackage } from '../../auth/package'
import { requireCanListRelationships } from '../../auth/relationship'
import { NotFound, ValidationError } from '../../errors'
import { pyStr } from '../../lib/py-repr'
import { asText } from '../../model/package-validate'
import { findPackageRef } from '../../model/package-ref'
import { findRelationships, relatedPackages, relationshipToDict } from '../../model/relationship'
import { MISSING } from '../../validation/fields'

/** The dataset `id` and, when `id2` is given, the second one; CKAN's 404s. */
async function loadPair(ctx: ActionContext, input: Record<string, unknown>) {
  if (input.id === undefined) throw ValidationError.field('id', MISSING)
  const first = await findPackageRef(ctx, input.id)
  if (!first) throw new NotFound('First package named in request was not found.')
  if (!input.id2) return { first, second: undefined }
  const second = await findPackageRef(ctx, input.id2)
  if (!second) throw new NotFound('Second package named in address was not found.')
  return { first, second }
}

export const packageRelationshipsList = defineAction({
  name: 'package_relationships_list',
  readOnly: true,
  help: `Return a dataset (package)'s relationships.

Each relationship is given from the first dataset's point of view: where it is the
stored object, subject and object are swapped and the type reversed (a dataset that
another depends_on is its dependency_of). Relationships with datasets the caller
may not read are left out.

:param id: the id or name of the first dataset
:type id: string
:param id2: the id or name of the second dataset (optional): only relationships
    between the two
:type id2: string
:param rel: only relationships of this type, as seen from the first dataset
    (optional); when none matches, the answer is Not Found
:type rel: string
:rtype: list of dictionaries`,
  auth: async (ctx, input) => {
    const { first, second } = await loadPair(ctx, input)
    await requireCanListRelationships(ctx, first, second)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { first, second } = await loadPair(ctx, input)
    // ckan: rel=relationships (the old REST path) means every type
    const rel = !input.rel || input.rel === 'relationships' ? undefined : asText(input.rel)
    const rows = await findRelationships(ctx, first.id, { withId: second?.id, type: rel })
    const other = (r: (typeof rows)[number]) =>
      r.subject_package_id === first.id ? r.object_package_id : r.subject_package_id
    const related = await relatedPackages(ctx, [first.id, ...rows.map(other)])
    // Beyond CKAN (which lists them all): a relationship with a dataset the caller may not
    // read is left out, so a private dataset's name never shows.
    const visible = []
    for (const r of rows) {
      const p = related.get(other(r))
      if (p && (p.id === first.id || (await canReadPackage(ctx, p)))) visible.push(r)
    }
    if (rel && !visible.length)
      throw new NotFound(
        `Relationship "${pyStr(input.id)} ${rel} ${pyStr(input.id2 ?? null)}" not found.`,
      )
    const names = new Map([...related.values()].map((p) => [p.id, p.name]))
    return visible.map((r) => relationshipToDict(r, names, first.id))
  },
})
