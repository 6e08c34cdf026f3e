// An uploaded file already streamed into the BlobStore under a provisional key while the request
// body was parsed (the action that decides its final key runs only afterwards).
import type { BlobStore } from './blob-store'

/** Provisional keys live under this prefix until an action claims (moves) them. */
export const STAGING_PREFIX = 'incoming'

export class StagedUpload {
  /** Set once an action moved the blob to its final key (nothing to clean up then). */
  claimed = false

  constructor(
    /** The form field it came in. */
    readonly field: string,
    /** The file name the client sent (unsanitised). */
    readonly name: string,
    /** The provisional key of the stored bytes. */
    readonly key: string,
    readonly size: number,
    readonly sha256: string,
    /** The part's Content-Type, when the client sent one. */
    readonly type?: string,
    /** The media type judged from the first bytes (image parts, and resource files under
     * mimetype_guess = file_contents; see lib/sniff-type). */
    readonly sniffed?: string,
  ) {}
}

/** The staged uploads among a data dict's values. */
export function stagedUploads(dict: Record<string, unknown>): StagedUpload[] {
  return Object.values(dict).filter((v): v is StagedUpload => v instanceof StagedUpload)
}

/**
 * Moves a staged upload to its final key and marks it claimed. Called after the action's write
 * committed, so a failed action never leaves a file behind its metadata.
 */
export async function claimUpload(blobs: BlobStore, upload: StagedUpload, key: string) {
  await blobs.move(upload.key, key)
  upload.claimed = true
}

/** Deletes blobs whose records are gone; a failure is logged (an orphan), never the caller's error. */
export async function deleteBlobs(blobs: BlobStore, keys: Iterable<string>) {
  for (const key of keys) {
    try {
      await blobs.delete(key)
    } catch (e) {
      console.error(`could not delete stored file ${key}`, e)
    }
  }
}

/** Removes the staged uploads no action claimed (a refused or failed call stores nothing). */
export async function discardUnclaimed(blobs: BlobStore, uploads: StagedUpload[]) {
  await deleteBlobs(
    blobs,
    uploads.filter((u) => !u.claimed).map((u) => u.key),
  )
}
