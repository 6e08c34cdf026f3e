// File parts of an action call: streamed into the BlobStore under a provisional key while the
// body is parsed, with the size limit of their kind applied as the bytes arrive.
import type { Deps } from '../context'
import { ValidationError } from '../errors'
import { BlobStoreNotConfigured, BlobTooLarge } from '../storage/blob-store'
import { STAGING_PREFIX, StagedUpload } from '../storage/staged-upload'
import { SNIFF_BYTES, sniffType } from '../lib/sniff-type'
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
    if (!option) return undefined // not read: the caller drops it (within its body limit)
    const key = `${STAGING_PREFIX}/${deps.newId()}`
    const maxBytes = deps.config.int(option) * MB
    try {
      // ckan: an image's type is judged from its content, and that is the type it is served with
      let sniffed: string | undefined
      if (part.name === 'image_upload') ({ sniffed, body } = await sniffStream(body))
      const contentType = sniffed ?? safeType(part) ?? 'application/octet-stream'
      // ckan.mimetype_guess = file_contents: a resource file's type from its first bytes (only its
      // mimetype; it is still served as the client declared it)
      if (option === LIMITS.upload && deps.config.str('service.mimetype_guess') === 'file_contents')
        ({ sniffed, body } = await sniffStream(body))
      const put = await deps.blobs.put(key, body, { maxBytes, contentType })
      const upload = new StagedUpload(
        part.name,
        part.filename!,
        key,
        put.size,
        put.sha256,
        part.contentType,
        sniffed,
      )
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

/** Reads the first SNIFF_BYTES of `body` to judge its type; the stream returned replays them. */
async function sniffStream(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let done = false
  while (size < SNIFF_BYTES) {
    const r = await reader.read()
    if (r.done) {
      done = true
      break
    }
    chunks.push(r.value)
    size += r.value.length
  }
  const head = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    head.set(c, at)
    at += c.length
  }
  const replay = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (size) controller.enqueue(head)
        if (done) controller.close()
      },
      async pull(controller) {
        const r = await reader.read()
        if (r.done) controller.close()
        else controller.enqueue(r.value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
  return { sniffed: sniffType(head.subarray(0, SNIFF_BYTES)), body: replay }
}
