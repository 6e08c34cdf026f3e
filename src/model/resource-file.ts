// Where a resource's uploaded file is stored, and keeping the BlobStore in step with resource
// writes. Blob changes follow the committed DB batch; a failed one is logged, never the caller's.
import { eq } from 'drizzle-orm'
import type { ActionContext } from '../context'
import { resources } from '../db/schema'
import { ValidationError } from '../errors'
import { assertBlobKey, InvalidBlobKey } from '../storage/blob-store'
import { claimUpload, deleteBlobs, type StagedUpload } from '../storage/staged-upload'
import type { ResourceRow } from './resource'

/** ckan's layout: one folder per resource, the (sanitised) file name inside. */
export const resourceFileKey = (resourceId: string, fileName: string) =>
  `resources/${resourceId}/${fileName}`

/** The key of the file an uploaded resource row points at; undefined for links. */
export function storedFileKey(row: Pick<ResourceRow, 'id' | 'url' | 'url_type'>) {
  if (row.url_type !== 'upload' || !row.url || /^https?:\/\//i.test(row.url)) return undefined
  return resourceFileKey(row.id, row.url)
}

/** The key a new upload goes to; a Validation Error (before anything is written) if unusable. */
export function uploadKeyFor(row: ResourceRow): string {
  const key = storedFileKey(row)
  try {
    return assertBlobKey(key)
  } catch (e) {
    if (!(e instanceof InvalidBlobKey)) throw e
    throw new ValidationError({ upload: ['Invalid file name'] })
  }
}

/**
 * After a committed resource write: the staged upload moves to the row's key, and the file the
 * row pointed at before goes when the row no longer points at it (a new name, a link, cleared).
 */
export async function syncResourceFile(
  ctx: ActionContext,
  before: ResourceRow | undefined,
  after: ResourceRow,
  upload: StagedUpload | undefined,
) {
  const next = storedFileKey(after)
  if (upload && next) {
    try {
      await claimUpload(ctx.blobs, upload, next)
    } catch (e) {
      console.error(`could not store the file of resource ${after.id}`, e)
    }
  }
  const previous = before && storedFileKey(before)
  if (previous && previous !== next) await deleteBlobs(ctx.blobs, [previous])
}

/** The stored files of every resource row (any state) of a dataset, before it is purged. */
export async function datasetFileKeys(ctx: ActionContext, packageId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ id: resources.id, url: resources.url, url_type: resources.url_type })
    .from(resources)
    .where(eq(resources.package_id, packageId))
  return rows.map(storedFileKey).filter((k): k is string => k !== undefined)
}

/**
 * After a committed dataset write (package_create/update/revise): each resource's staged upload
 * moves into place, replaced files go, and rows this write purged (resources deleted before and
 * left out again) lose their files.
 */
export async function syncDatasetFiles(
  ctx: ActionContext,
  packageId: string,
  given: { upload?: StagedUpload }[],
  rows: ResourceRow[],
  stored: ResourceRow[],
) {
  const byId = new Map(stored.map((x) => [x.id, x]))
  for (const [i, row] of rows.entries())
    await syncResourceFile(ctx, byId.get(row.id), row, given[i]?.upload)
  const kept = new Set(rows.map((x) => x.id))
  const purged = stored.filter(
    (x) => x.package_id === packageId && x.state !== 'active' && !kept.has(x.id),
  )
  await deleteBlobs(
    ctx.blobs,
    purged.map(storedFileKey).filter((k): k is string => k !== undefined),
  )
}
