// User, group and organization images (`image_upload`, `clear_upload`): what `image_url` becomes,
// CKAN's type rules, and keeping the BlobStore in step once the write committed.
import type { ActionContext } from '../context'
import { ValidationError } from '../errors'
import { assertBlobKey, InvalidBlobKey } from '../storage/blob-store'
import { claimUpload, deleteBlobs, StagedUpload } from '../storage/staged-upload'
import { toBool } from '../validation/fields'
import { apiAtLeast } from '../config/api-compat'
import { guessMimetype } from './mimetype'

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
  const v210 = apiAtLeast(ctx.config, '2.10')
  const refuse = (type: string) => new ValidationError({ image_upload: [`Unsupported upload type: ${type}`] })
  if (!mimetypes.length && !types.length) {
    // ckan 2.10: no list at all means no uploads; 2.9 took any file
    if (v210) throw new ValidationError({ image_upload: [`No uploads allowed for object type ${owner}`] })
    return
  }
  // ckan 2.10: "*" first in a list accepts anything of that kind
  const anyMimetype = mimetypes[0] === '*'
  const anyType = types[0] === '*'
  if (v210 && mimetypes.length && !anyMimetype)
    // ckan 2.10: what the file's name and the client declare is checked too
    for (const declared of [guessMimetype(upload.name), upload.type])
      if (declared && !mimetypes.includes(declared)) throw refuse(declared)
  const actual = upload.sniffed ?? 'application/octet-stream'
  if (mimetypes.length && !anyMimetype && !mimetypes.includes(actual)) throw refuse(actual)
  if (types.length && !anyType && !types.includes(actual.split('/')[0]!)) throw refuse(actual)
}

/** Python's mimetypes.guess_extension for the types sniffType names. */
const PREFERRED_EXTENSION: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/bmp': '.bmp',
  'image/tiff': '.tiff',
  'image/webp': '.webp',
  'image/avif': '.avif',
  'image/svg+xml': '.svg',
  'image/vnd.microsoft.icon': '.ico',
  'application/pdf': '.pdf',
  'application/zip': '.zip',
  'application/gzip': '.gz',
  'application/octet-stream': '.bin',
  'text/plain': '.txt',
  'text/html': '.html',
  'text/xml': '.xml',
}

/** pathlib's with_suffix: the text after the last dot replaced, or the suffix added. */
const withSuffix = (name: string, ext: string) => {
  const dot = name.lastIndexOf('.')
  return dot > 0 && dot < name.length - 1 ? name.slice(0, dot) + ext : name + ext
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
    let name = mungeFilenameLegacy(stamp + upload.name)
    // ckan 2.10: the stored name takes the extension of the type the content shows
    const ext = apiAtLeast(ctx.config, '2.10') && upload.sniffed ? PREFERRED_EXTENSION[upload.sniffed] : undefined
    if (ext) name = withSuffix(name, ext)
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
