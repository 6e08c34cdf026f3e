// A dataset named by a raw parameter, found as CKAN's Package.get() finds it (id or name, any state).
import type { ActionContext } from '../context'
import { NotFound } from '../errors'
import { loadPackage, type PackageRow } from './package'

/** A dataset named by a raw reference (id or name, any state; memoised), or undefined. */
export async function findPackageRef(
  ctx: ActionContext,
  ref: unknown,
): Promise<PackageRow | undefined> {
  // ckan: Package.get() finds nothing for a false value
  if (!ref || typeof ref === 'object') return undefined
  return loadPackage(ctx, ref).catch((e) => {
    if (e instanceof NotFound) return undefined
    throw e
  })
}
