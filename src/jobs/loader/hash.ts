// The SHA-256 of the bytes a load reads, computed as they stream past (ckanext-xloader's file
// hash check, with SHA-256 as the BlobStore keeps it for uploads).
import { toHex } from '../../lib/hex'
import type { Deps } from '../../context'

/** An incremental SHA-256. */
export interface Hasher {
  update(chunk: Uint8Array): void
  /** Lower-case hex of every byte given to update(). */
  hex(): Promise<string>
}

interface DigestStream extends WritableStream<Uint8Array> {
  readonly digest: Promise<ArrayBuffer>
}

/** A hasher from the runtime (Node's port, else Workers' crypto.DigestStream); undefined: none. */
export function newHasher(deps: Deps): Hasher | undefined {
  if (deps.loader?.sha256) return deps.loader.sha256()
  const Digest = (crypto as unknown as { DigestStream?: new (a: string) => DigestStream }).DigestStream
  if (!Digest) return undefined
  const stream = new Digest('SHA-256')
  const writer = stream.getWriter()
  let pending = Promise.resolve()
  return {
    update(chunk) {
      pending = pending.then(() => writer.write(chunk))
    },
    async hex() {
      await pending
      await writer.close()
      return toHex(await stream.digest)
    },
  }
}

/**
 * Passes `body` through unchanged; once its last byte went through, `done()` gives the hash.
 * A stream its reader left before the end (a spreadsheet reader done with the first sheet)
 * has no hash: done() gives undefined.
 */
export function hashing(body: ReadableStream<Uint8Array>, hasher: Hasher) {
  let ended = false
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        hasher.update(chunk)
        ctl.enqueue(chunk)
      },
      flush() {
        ended = true
      },
    }),
  )
  return { stream, done: async () => (ended ? hasher.hex() : undefined) }
}
