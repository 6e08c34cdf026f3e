// File parts of an action call: streamed into the BlobStore under a provisional key while the
// body is parsed, with the size limit of their kind applied as the bytes arrive.
import type { Deps } from '../context'
import { ValidationError } from '../errors'
import { BlobStoreNotConfigured, BlobTooLarge } from '../storage/blob-store'
import { STAGING_PREFIX, StagedUpload } from '../storage/staged-upload'
import type { FormPart } from './multipart'
import type { StageFile } from './params'

const MB = 1024 * 1024

/** ckan: the file fields its uploaders read, and the size option that limits each. */
const LIMITS: Record<string, string> = {
  upload: 'service.max_resource_size',
  image_upload: 'service.max_image_size',
}

/** A stager that records what it stored in `staged` (the caller discards unclaimed ones). */
export function stageInto(deps: Deps, staged: StagedUpload[]): StageFile {
  return async (part: FormPart, body: ReadableStream<Uint8Array>) => {
    // package_revise names a resource's file `update__resources__<n>__upload`
    const option = LIMITS[part.name] ?? (part.name.endsWith('__upload') ? LIMITS.upload : undefined)
    if (!option) {
      await body.cancel()
      return undefined
    }
    const key = `${STAGING_PREFIX}/${deps.newId()}`
    const maxBytes = deps.config.int(option) * MB
    try {
      const put = await deps.blobs.put(key, body, { maxBytes, contentType: safeType(part) ?? 'application/octet-stream' })
      const upload = new StagedUpload(part.name, part.filename!, key, put.size, put.sha256, part.contentType)
      staged.push(upload)
      return upload
    } catch (e) {
      // ckan: the uploader's message, under the resource uploader's key for every kind
      if (e instanceof BlobTooLarge) throw new ValidationError({ upload: ['File upload too large'] })
      if (e instanceof BlobStoreNotConfigured)
        throw new ValidationError({ upload: ['File uploads are not configured on this site'] })
      throw e
    }
  }
}

/** The part's media type when it is a plain one (it ends up in a response header). */
function safeType(part: FormPart): string | undefined {
  const t = part.contentType?.split(';')[0]?.trim().toLowerCase()
  return t && /^[\w.+-]+\/[\w.+-]+$/.test(t) ? t : undefined
}
