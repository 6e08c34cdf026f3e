// rating_create: the caller rates a dataset from 1 to 5 (a second rating replaces the first).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireLoggedIn } from '../../auth/caller'
import { canReadPackage } from '../../auth/package'
import { findPackageRef } from '../../model/package-ref'
import { checkRating, ratingSummary, setRating } from '../../model/rating'

export const ratingCreate = defineAction({
  name: 'rating_create',
  readOnly: false,
  auth: 'logged-in',
  help: `Rate a dataset (package).

You must be logged in (send your API key). Each user has one rating per dataset:
rating it again replaces the earlier rating.

:param package: the id or name of the dataset to rate
:type package: string
:param rating: the rating, an integer from 1 to 5
:type rating: int
:returns: a dictionary with two keys: 'rating average' (the dataset's average rating)
    and 'rating count' (the number of ratings it has)
:rtype: dictionary`,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    // the auth rule again, for callers that skip auth: the rating is the caller's
    requireLoggedIn(ctx, 'rating_create')
    const user = ctx.user!
    // Beyond CKAN: a dataset the caller may not read is answered like an unknown one.
    const { pkg, rating } = await checkRating(input, async (ref) => {
      const p = await findPackageRef(ctx, ref)
      return p && (await canReadPackage(ctx, p)) ? p : undefined
    })
    await setRating(ctx, pkg.id, user.id, rating)
    return ratingSummary(ctx, pkg.id)
  },
})
