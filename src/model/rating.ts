// Dataset ratings (CKAN's rating table): one per user and dataset, 1 to 5, and their summary.
import { count, eq, sum } from 'drizzle-orm'
import { ratings } from '../db/schema'
import type { ActionContext } from '../context'
import { ValidationError } from '../errors'
import { pyRepr } from '../lib/py-repr'

export const MIN_RATING = 1
export const MAX_RATING = 5

/** Python's truth value of a decoded JSON value. */
const pyFalsy = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === false ||
  v === 0 ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0)

/** Python's int() of a JSON value: floats truncated, strings of digits parsed; else undefined. */
function pyInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined
  if (typeof v === 'string' && /^\s*[-+]?\d+(_\d+)*\s*$/.test(v)) return Number(v.replace(/_/g, ''))
  return undefined
}

/**
 * rating_create's checks, in CKAN's order and words (each a Validation Error with a plain
 * message). `find` resolves the dataset reference; undefined means not found (or not readable).
 */
export async function checkRating<P>(
  input: Record<string, unknown>,
  find: (ref: unknown) => Promise<P | undefined>,
): Promise<{ pkg: P; rating: number }> {
  const ref = input.package
  const raw = input.rating
  if (pyFalsy(ref))
    throw ValidationError.message('You must supply a package id or name (parameter "package").')
  if (pyFalsy(raw)) throw ValidationError.message('You must supply a rating (parameter "rating").')
  const rating = pyInt(raw)
  if (rating === undefined) throw ValidationError.message('Rating must be an integer value.')
  // ckan: the range is checked on the value sent (4.5 passes and is stored as 4)
  const value = typeof raw === 'number' ? raw : rating
  if (value < MIN_RATING || value > MAX_RATING)
    throw ValidationError.message(`Rating must be between ${MIN_RATING} and ${MAX_RATING}.`)
  const pkg = await find(ref)
  if (pkg === undefined) throw ValidationError.message(`Not found: ${pyRepr(ref)}`)
  return { pkg, rating }
}

/** Records the user's rating of the dataset (replacing an earlier one) in one write. */
export async function setRating(
  ctx: ActionContext,
  packageId: string,
  userId: string,
  rating: number,
) {
  await ctx.writer.write([
    ctx.db
      .insert(ratings)
      .values({
        id: ctx.newId(),
        package_id: packageId,
        user_id: userId,
        rating,
        created: ctx.now(),
      })
      .onConflictDoUpdate({ target: [ratings.package_id, ratings.user_id], set: { rating } }),
  ])
}

/** ckan: the average rating (null when there is none) and the number of ratings of a dataset. */
export async function ratingSummary(ctx: ActionContext, packageId: string) {
  const [row] = await ctx.db
    .select({ total: sum(ratings.rating), n: count() })
    .from(ratings)
    .where(eq(ratings.package_id, packageId))
  const n = row?.n ?? 0
  const total = Number(row?.total ?? 0)
  return { 'rating average': total === 0 ? null : total / n, 'rating count': n }
}
