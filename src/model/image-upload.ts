// User, group and organization images (`image_upload`, `clear_upload`): what `image_url` becomes,
// CKAN's type rules, and keeping the BlobStore in step once the write committed.
import type { ActionContext } from '../context'
import { ValidationError } from '../errors'
import { assertBlobKey, InvalidBlobKey } from '../storage/blob-store'
import { claimUpload, deleteBlobs, StagedUpload } from '../storage/staged-upload'
import { toBool } from '../validation/fields'

/** ckan: the uploader's object types; organizations share the group folder. */
export type ImageOwner = 'user' | 'group'

/** ckan: storage/uploads/<object type>/<name>, served at /uploads/<object type>/<name>. */
export const imageKey = (owner: ImageOwner, fileName: string) => `${owner}/${fileName}`

/** An image_url that names an uploaded file (CKAN: anything not starting with http). */
export const isUploadedImage = (url: string | null | undefined): url is string =>
  !!url && !url.startsWith('http')

/** What a write does to the image: the image_url to save (undefined: as given) and the files. */
export interface ImagePlan {
  imageUrl?: string
  upload?: StagedUpload
  /** The new file's key. */
  key?: string
  /** The key of the file the row pointed at, deleted after the commit. */
  replaced?: string
}

/** ckan's munge_filename_legacy: ASCII letters, digits, `.` and `-` (for spaces), 3 to 100 long. */
export function mungeFilenameLegacy(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .replace(/[^a-zA-Z0-9.\- ]/g, '')
    .replace(/ /g, '-')
  return s.padEnd(3, '_').slice(0, 100)
}

/** The types the site accepts for `owner`'s images; both lists empty: anything. */
function checkType(ctx: ActionContext, owner: ImageOwner, upload: StagedUpload) {
  const mimetypes = ctx.config.list(`service.upload.${owner}.mimetypes`)
  const types = ctx.config.list(`service.upload.${owner}.types`)
  if (!mimetypes.length && !types.length) return
  const actual = upload.sniffed ?? 'application/octet-stream'
  if (
    (mimetypes.length && !mimetypes.includes(actual)) ||
    (types.length && !types.includes(actual.split('/')[0]!))
  )
    throw new ValidationError({ image_upload: [`Unsupported upload type: ${actual}`] })
}

/**
 * Decides a write's image before anything is written (CKAN's update_data_dict and verify_type):
 * a new upload gets a timestamped name; without one, an uploaded image stays unless
 * `clear_upload` is set, and clearing empties image_url unless another URL is given.
 * @throws ValidationError when the upload's type is refused or its name is unusable
 */
export function planImage(
  ctx: ActionContext,
  owner: ImageOwner,
  input: Record<string, unknown>,
  current: string | null | undefined,
): ImagePlan {
  const file = input.image_upload
  const upload = file instanceof StagedUpload && file.name ? file : undefined
  const old = isUploadedImage(current) ? current : undefined
  if (upload) {
    checkType(ctx, owner, upload)
    // ckan: the name is str(utcnow()) + the client's name, munged
    const stamp = ctx.now().replace('T', ' ').replace(/Z$/, '')
    const name = mungeFilenameLegacy(stamp + upload.name)
    let key: string
    try {
      key = assertBlobKey(imageKey(owner, name))
    } catch (e) {
      if (!(e instanceof InvalidBlobKey)) throw e
      throw new ValidationError({ image_upload: ['Invalid file name'] })
    }
    return { imageUrl: name, upload, key, ...(old && { replaced: imageKey(owner, old) }) }
  }
  if (!old) return {}
  // ckan: an uploaded image is kept unless cleared (a plain image_url does not replace it)
  if (!toBool(input.clear_upload)) return { imageUrl: old }
  const given = input.image_url
  const imageUrl = given === undefined || given === null || given === old ? '' : undefined
  return { imageUrl, replaced: imageKey(owner, old) }
}

/** After the committed write: the new image moves into place and the replaced one goes. */
export async function applyImage(ctx: ActionContext, plan: ImagePlan) {
  if (plan.upload && plan.key) {
    try {
      await claimUpload(ctx.blobs, plan.upload, plan.key)
    } catch (e) {
      console.error(`could not store the image ${plan.key}`, e)
    }
  }
  if (plan.replaced && plan.replaced !== plan.key) await deleteBlobs(ctx.blobs, [plan.replaced])
}
