// Where uploaded files live: the BlobStore port (files on Node, R2 on Workers) and its shared rules.

/** What put() is told about the upload. */
export interface PutMeta {
  /** Stored and returned by get()/head(); no control characters. */
  contentType?: string
  /** The announced length: an upload of any other length fails and stores nothing. */
  size?: number
  /** Largest accepted upload in bytes: a longer one fails with BlobTooLarge and stores nothing. */
  maxBytes?: number
}

export interface PutResult {
  /** Bytes stored. */
  size: number
  /** Lower-case hex SHA-256 of the bytes stored (CKAN keeps such a value in a resource's `hash`). */
  sha256: string
}

export interface BlobInfo {
  /** Size of the whole blob, whatever range was read. */
  size: number
  contentType?: string
  /** Lower-case hex SHA-256 of the whole blob, where the store kept it (files: when stored with a content type). */
  sha256?: string
  /**
   * Where the store kept no SHA-256 (R2 after a streamed put): its own strong validator of this
   * version of the bytes (R2's ETag), opaque.
   */
  etag?: string
}

/** A byte range: `length` bytes from `offset` (to the end without it), or the last `suffix` bytes. */
export type ByteRange = { offset: number; length?: number } | { suffix: number }

export interface BlobBody extends BlobInfo {
  body: ReadableStream<Uint8Array>
  /** The bytes `body` holds: the whole blob when no range was asked for. */
  range: { offset: number; length: number }
}

export interface BlobStore {
  /**
   * Streams `body` into the blob `key`, replacing any blob there only once every byte arrived:
   * an upload that fails or is aborted leaves the previous blob (or none) in place.
   */
  put(
    key: string,
    body: ReadableStream<Uint8Array> | Uint8Array,
    meta?: PutMeta,
  ): Promise<PutResult>
  /** The blob's bytes (or a range of them) as a stream; undefined when there is no such blob. */
  get(key: string, range?: ByteRange): Promise<BlobBody | undefined>
  head(key: string): Promise<BlobInfo | undefined>
  /** Removes the blob; a missing one is not an error. */
  delete(key: string): Promise<void>
  /**
   * Renames blob `from` to `to` (replacing a blob there), keeping its content type and hash.
   * @throws Error when `from` does not exist
   */
  move(from: string, to: string): Promise<void>
}

/** A key that could escape the store or means something else to a file system. */
export class InvalidBlobKey extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`Invalid storage key ${JSON.stringify(key)}: ${reason}`)
  }
}

/** The range asked for starts past the end of the blob (HTTP 416; `size` for Content-Range). */
export class RangeNotSatisfiable extends Error {
  constructor(readonly size: number) {
    super(`Requested range not satisfiable (the blob has ${size} bytes)`)
  }
}

/** The upload is longer than `maxBytes`. */
export class BlobTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`Upload too large: more than ${maxBytes} bytes`)
  }
}

/** The upload's length differs from the length announced in PutMeta.size. */
export class BlobSizeMismatch extends Error {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`Upload of ${actual} bytes where ${expected} were announced`)
  }
}

/** No blob store is configured (no storage path on Node, no R2 binding on Workers). */
export class BlobStoreNotConfigured extends Error {
  constructor(what = 'an R2 bucket binding') {
    super(`File storage is not configured (${what})`)
  }
}

const MAX_KEY_BYTES = 1024 // R2's limit
// file systems allow 255; the file adapter's hidden `.<name>.meta.json` beside a file needs 11 more
const MAX_SEGMENT_BYTES = 200
const utf8 = new TextEncoder()

/**
 * Checks an opaque key such as `resources/<id>/<filename>` and returns it. Keys are relative,
 * `/`-separated paths of non-empty segments; no segment may start with `.` (which rules out `.`,
 * `..` and the hidden names the file adapter uses for temporary and metadata files), and no key
 * may hold a backslash, a control character (NUL included) or a Windows drive letter.
 * @throws InvalidBlobKey
 */
export function assertBlobKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') throw new InvalidBlobKey(String(key), 'empty')
  if (utf8.encode(key).length > MAX_KEY_BYTES)
    throw new InvalidBlobKey(key, `longer than ${MAX_KEY_BYTES} bytes`)
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new InvalidBlobKey(key, 'control character')
  if (key.includes('\\')) throw new InvalidBlobKey(key, 'backslash')
  if (key.startsWith('/')) throw new InvalidBlobKey(key, 'absolute path')
  if (/^[A-Za-z]:/.test(key)) throw new InvalidBlobKey(key, 'drive letter')
  for (const segment of key.split('/')) {
    if (segment === '') throw new InvalidBlobKey(key, 'empty path segment')
    if (segment.startsWith('.')) throw new InvalidBlobKey(key, 'a path segment starts with "."')
    if (segment.trim() !== segment)
      throw new InvalidBlobKey(key, 'a path segment has surrounding spaces')
    if (utf8.encode(segment).length > MAX_SEGMENT_BYTES)
      throw new InvalidBlobKey(key, `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`)
  }
  return key
}

/** Checks a content type before it is stored (it ends up in a response header). */
export function assertContentType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined
  // eslint-disable-next-line no-control-regex
  if (contentType.length > 255 || /[\u0000-\u001f\u007f]/.test(contentType))
    throw new TypeError(`Invalid content type ${JSON.stringify(contentType)}`)
  return contentType
}

const isCount = (n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0

/** Checks a range's numbers (negative, fractional or missing ones are a caller's bug). */
export function assertRange(range: ByteRange): ByteRange {
  if ('suffix' in range) {
    if (!isCount(range.suffix)) throw new TypeError(`Invalid range suffix ${range.suffix}`)
  } else if (!isCount(range.offset) || (range.length !== undefined && !isCount(range.length))) {
    throw new TypeError(`Invalid range ${JSON.stringify(range)}`)
  }
  return range
}

/**
 * The bytes a range selects in a blob of `size` bytes, as HTTP does: a length running past the
 * end is cut short, a suffix longer than the blob selects all of it.
 * @throws RangeNotSatisfiable when no byte is selected (offset at or past the end, length or
 * suffix 0)
 */
export function resolveRange(
  range: ByteRange | undefined,
  size: number,
): { offset: number; length: number } {
  if (!range) return { offset: 0, length: size }
  assertRange(range)
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) throw new RangeNotSatisfiable(size)
    const length = Math.min(range.suffix, size)
    return { offset: size - length, length }
  }
  if (range.offset >= size || range.length === 0) throw new RangeNotSatisfiable(size)
  return { offset: range.offset, length: Math.min(range.length ?? size, size - range.offset) }
}

/** A store for deployments without file storage: every call fails with BlobStoreNotConfigured. */
export function notConfiguredBlobStore(what?: string): BlobStore {
  const fail = async (): Promise<never> => {
    throw new BlobStoreNotConfigured(what)
  }
  return { put: fail, get: fail, head: fail, delete: fail, move: fail }
}
