// Workers: the BlobStore over an R2 bucket binding (streamed puts, ranged gets).
import { toHex } from '../lib/hex'
import {
  assertBlobKey,
  assertContentType,
  assertRange,
  BlobSizeMismatch,
  BlobTooLarge,
  RangeNotSatisfiable,
  resolveRange,
  type BlobInfo,
  type BlobStore,
  type PutMeta,
  type PutResult,
} from '../storage/blob-store'

/** The parts of R2's binding used here (a structural type: no @cloudflare/workers-types needed). */
export interface R2Object {
  size: number
  etag?: string
  httpMetadata?: { contentType?: string }
  checksums?: { sha256?: ArrayBuffer }
}
export interface R2ObjectBody extends R2Object {
  body: ReadableStream<Uint8Array>
}
export interface R2UploadedPart {
  partNumber: number
  etag: string
}
export interface R2MultipartUpload {
  uploadPart(partNumber: number, value: Uint8Array): Promise<R2UploadedPart>
  complete(parts: R2UploadedPart[]): Promise<R2Object>
  abort(): Promise<void>
}
type R2Range = { offset: number; length?: number } | { suffix: number }
interface R2PutOptions {
  httpMetadata?: { contentType?: string }
  sha256?: ArrayBuffer | string
}
export interface R2Bucket {
  head(key: string): Promise<R2Object | null>
  get(key: string, options?: { range?: R2Range }): Promise<R2ObjectBody | null>
  put(
    key: string,
    value: ReadableStream<Uint8Array> | Uint8Array,
    options?: R2PutOptions,
  ): Promise<R2Object | null>
  delete(key: string): Promise<void>
  createMultipartUpload(key: string, options?: R2PutOptions): Promise<R2MultipartUpload>
}

/** Workers runtime globals used for streamed puts (not in the DOM typings). */
interface WorkersStreams {
  FixedLengthStream?: new (length: number) => TransformStream<Uint8Array, Uint8Array>
}
interface DigestStream extends WritableStream<Uint8Array> {
  digest: Promise<ArrayBuffer>
}
interface WorkersCrypto {
  DigestStream?: new (algorithm: string) => DigestStream
}

const MiB = 1024 * 1024
/** R2: every part but the last at least 5 MiB, and all of them the same size. */
const MIN_PART = 5 * MiB

/** R2's "The requested range is not satisfiable (10039)". */
const isRangeError = (e: unknown) =>
  /\(10039\)|range is not satisfiable/i.test(String((e as Error)?.message))

export interface R2BlobStoreOptions {
  /**
   * Part size of multipart uploads, used when a streamed put does not announce its size: the
   * memory a put holds at most. At least 5 MiB; default 8 MiB.
   */
  partSize?: number
}

/**
 * The BlobStore over an R2 bucket. A streamed put with `meta.size` goes through a
 * FixedLengthStream (R2 needs a known length); without it, the stream is cut into parts of
 * `partSize` and sent as a multipart upload (or as one put when it fits in the first part).
 * Either way only a complete upload becomes visible. SHA-256 is computed on the way through
 * with the runtime's crypto.DigestStream.
 */
export function r2BlobStore(bucket: R2Bucket, opts: R2BlobStoreOptions = {}): BlobStore {
  const partSize = opts.partSize ?? 8 * MiB
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART)
    throw new RangeError(`partSize must be an integer of at least ${MIN_PART} bytes`)

  const infoOf = (o: R2Object): BlobInfo => {
    const info: BlobInfo = { size: o.size }
    if (o.httpMetadata?.contentType) info.contentType = o.httpMetadata.contentType
    if (o.checksums?.sha256) info.sha256 = toHex(o.checksums.sha256)
    // a streamed (multipart) put cannot carry the SHA-256 known only at its end
    else if (o.etag) info.etag = o.etag
    return info
  }

  return {
    async put(key, body, meta: PutMeta = {}) {
      assertBlobKey(key)
      const contentType = assertContentType(meta.contentType)
      const options: R2PutOptions = contentType ? { httpMetadata: { contentType } } : {}
      const limit = (size: number) => {
        if (meta.maxBytes !== undefined && size > meta.maxBytes)
          throw new BlobTooLarge(meta.maxBytes)
        if (meta.size !== undefined && size > meta.size) throw new BlobSizeMismatch(meta.size, size)
      }
      if (body instanceof Uint8Array) {
        limit(body.byteLength)
        if (meta.size !== undefined && body.byteLength !== meta.size)
          throw new BlobSizeMismatch(meta.size, body.byteLength)
        const digest = await crypto.subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>)
        await bucket.put(key, body, { ...options, sha256: digest })
        return { size: body.byteLength, sha256: toHex(digest) }
      }
      const DigestStream = (crypto as unknown as WorkersCrypto).DigestStream
      if (!DigestStream)
        throw new Error('Streamed puts need crypto.DigestStream (the Workers runtime)')
      const digest = new DigestStream('SHA-256')
      const hasher = digest.getWriter()
      let size = 0
      const reader = body.getReader()
      /** The next chunk of the upload, counted, checked and hashed; undefined at the end. */
      const next = async (): Promise<Uint8Array | undefined> => {
        const { done, value } = await reader.read()
        if (done) return undefined
        size += value.byteLength
        limit(size)
        await hasher.write(value)
        return value
      }
      /** Called once every byte arrived, before the upload is committed. */
      const finish = async (): Promise<PutResult> => {
        if (meta.size !== undefined && size !== meta.size)
          throw new BlobSizeMismatch(meta.size, size)
        await hasher.close()
        return { size, sha256: toHex(await digest.digest) }
      }
      try {
        if (meta.size === undefined)
          return await putInParts(bucket, key, options, partSize, next, finish)
        const Fixed = (globalThis as WorkersStreams).FixedLengthStream
        if (!Fixed) throw new Error('Streamed puts need FixedLengthStream (the Workers runtime)')
        const fixed = new Fixed(meta.size)
        const stored = bucket.put(key, fixed.readable, options)
        const writer = fixed.writable.getWriter()
        try {
          for (let chunk = await next(); chunk; chunk = await next()) await writer.write(chunk)
          const result = await finish()
          await writer.close()
          await stored
          return result
        } catch (e) {
          await writer.abort(e).catch(() => {})
          await stored.catch(() => {})
          throw e
        }
      } catch (e) {
        await reader.cancel(e).catch(() => {})
        await hasher.abort(e).catch(() => {})
        throw e
      }
    },

    async get(key, range) {
      assertBlobKey(key)
      if (range) assertRange(range)
      // ckan/HTTP: a zero-length range selects nothing; R2 would answer the whole object.
      if (range && ('suffix' in range ? range.suffix === 0 : range.length === 0)) {
        const o = await bucket.head(key)
        if (!o) return undefined
        throw new RangeNotSatisfiable(o.size)
      }
      let o: R2ObjectBody | null
      try {
        o = await bucket.get(key, range ? { range } : undefined)
      } catch (e) {
        if (!isRangeError(e)) throw e
        const h = await bucket.head(key)
        if (!h) return undefined
        throw new RangeNotSatisfiable(h.size)
      }
      if (!o) return undefined
      // R2 selected what resolveRange selects (their rules agree once it has answered)
      return { ...infoOf(o), range: resolveRange(range, o.size), body: o.body }
    },

    async head(key) {
      assertBlobKey(key)
      const o = await bucket.head(key)
      return o ? infoOf(o) : undefined
    },

    async delete(key) {
      assertBlobKey(key)
      await bucket.delete(key)
    },

    // R2 has no rename: a streamed copy (one put of known length) and a delete.
    async move(from, to) {
      if (assertBlobKey(from) === assertBlobKey(to)) return
      const o = await this.get(from)
      if (!o) throw new Error(`No stored file ${from}`)
      await this.put(to, o.body, { size: o.size, contentType: o.contentType })
      await bucket.delete(from)
    },
  }
}

/**
 * A stream of unknown length into R2: one put when it fits in a part, else a multipart upload of
 * equal parts (R2's rule) that is aborted on any failure, so nothing partial becomes visible.
 */
async function putInParts(
  bucket: R2Bucket,
  key: string,
  options: R2PutOptions,
  partSize: number,
  next: () => Promise<Uint8Array | undefined>,
  finish: () => Promise<PutResult>,
): Promise<PutResult> {
  const pending: Uint8Array[] = []
  let pendingBytes = 0
  let ended = false
  // Reads until more than a part is held, so a full part is known not to be the last one.
  const refill = async () => {
    while (!ended && pendingBytes <= partSize) {
      const chunk = await next()
      if (!chunk) ended = true
      else if (chunk.byteLength) {
        pending.push(chunk)
        pendingBytes += chunk.byteLength
      }
    }
  }
  const take = (n: number): Uint8Array => {
    const out = new Uint8Array(n)
    for (let at = 0; at < n; ) {
      const chunk = pending[0]!
      const k = Math.min(chunk.byteLength, n - at)
      out.set(k === chunk.byteLength ? chunk : chunk.subarray(0, k), at)
      at += k
      if (k === chunk.byteLength) pending.shift()
      else pending[0] = chunk.subarray(k)
    }
    pendingBytes -= n
    return out
  }
  await refill()
  if (ended) {
    const bytes = take(pendingBytes)
    const result = await finish()
    await bucket.put(key, bytes, options)
    return result
  }
  const upload = await bucket.createMultipartUpload(key, options)
  try {
    const parts: R2UploadedPart[] = []
    for (;;) {
      while (pendingBytes > partSize)
        parts.push(await upload.uploadPart(parts.length + 1, take(partSize)))
      if (ended) break
      await refill()
    }
    parts.push(await upload.uploadPart(parts.length + 1, take(pendingBytes)))
    const result = await finish()
    await upload.complete(parts)
    return result
  } catch (e) {
    await upload.abort().catch(() => {})
    throw e
  }
}
