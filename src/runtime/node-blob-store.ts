// Node: the BlobStore as files under a root directory (service.storage_path), written atomically.
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import {
  assertBlobKey,
  assertContentType,
  BlobSizeMismatch,
  BlobTooLarge,
  resolveRange,
  type BlobBody,
  type BlobInfo,
  type BlobStore,
  type PutMeta,
} from '../storage/blob-store'

const CHUNK = 64 * 1024

/** The sidecar kept beside a blob that has a content type. */
interface Sidecar {
  contentType?: string
  sha256?: string
  /** The blob file's mtime when the sidecar was written: a sidecar of another version is ignored. */
  mtimeNs: string
}

const notThere = (e: unknown) => {
  const code = (e as { code?: string }).code
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR'
}

/**
 * Files under `root` (created on first put): `<root>/<key>`, with the content type in a hidden
 * `.<name>.meta.json` beside it. Keys never reach the file system unchecked (assertBlobKey), and
 * a key that is a directory or runs through a file (`a` then `a/b`) counts as absent / fails.
 */
export function nodeBlobStore(root: string): BlobStore {
  const base = resolve(root)

  function pathOf(key: string): string {
    const path = resolve(base, ...assertBlobKey(key).split('/'))
    // assertBlobKey already rules out escapes; this guards against a future change of it
    if (!path.startsWith(base + sep)) throw new Error(`Storage key escapes the root: ${key}`)
    return path
  }
  const sidecarOf = (path: string) => join(dirname(path), `.${basename(path)}.meta.json`)
  const tempOf = (path: string, what: string) =>
    join(dirname(path), `.${what}-${randomBytes(8).toString('hex')}.tmp`)

  /** The blob's size and content type, from an open handle (so a concurrent put cannot mix them). */
  async function infoOf(path: string, fh: FileHandle): Promise<BlobInfo | undefined> {
    const st = await fh.stat({ bigint: true })
    if (!st.isFile()) return undefined
    const info: BlobInfo = { size: Number(st.size) }
    try {
      const sidecar = JSON.parse(await readFile(sidecarOf(path), 'utf8')) as Sidecar
      if (sidecar.mtimeNs === String(st.mtimeNs)) {
        if (sidecar.contentType) info.contentType = sidecar.contentType
        if (sidecar.sha256) info.sha256 = sidecar.sha256
      }
    } catch (e) {
      if (!notThere(e) && !(e instanceof SyntaxError)) throw e
    }
    return info
  }

  async function openBlob(key: string): Promise<{ path: string; fh: FileHandle } | undefined> {
    const path = pathOf(key)
    try {
      return { path, fh: await open(path, 'r') }
    } catch (e) {
      if (notThere(e)) return undefined
      throw e
    }
  }

  /** Drops the directories a key made (resources/<id>/) once they are empty. */
  async function pruneDirs(from: string) {
    for (let dir = from; dir.startsWith(base + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir)
      } catch {
        break // not empty (or gone): the ones above are not empty either
      }
    }
  }

  return {
    async put(key, body, meta: PutMeta = {}) {
      const path = pathOf(key)
      const contentType = assertContentType(meta.contentType)
      const temp = tempOf(path, 'data')
      const hash = createHash('sha256')
      let size = 0
      let sidecarTemp: string | undefined
      let sha256 = ''
      const fh = await createIn(temp)
      try {
        const write = async (chunk: Uint8Array) => {
          size += chunk.byteLength
          if (meta.maxBytes !== undefined && size > meta.maxBytes)
            throw new BlobTooLarge(meta.maxBytes)
          if (meta.size !== undefined && size > meta.size)
            throw new BlobSizeMismatch(meta.size, size)
          hash.update(chunk)
          // write() may write less than asked: loop until the chunk is on disk
          for (let done = 0; done < chunk.byteLength; )
            done += (await fh.write(chunk, done, chunk.byteLength - done)).bytesWritten
        }
        if (body instanceof Uint8Array) await write(body)
        else {
          const reader = body.getReader()
          try {
            for (;;) {
              const { done, value } = await reader.read()
              if (done) break
              await write(value)
            }
          } catch (e) {
            await reader.cancel(e).catch(() => {})
            throw e
          }
        }
        if (meta.size !== undefined && size !== meta.size)
          throw new BlobSizeMismatch(meta.size, size)
        await fh.datasync()
        const mtimeNs = String((await fh.stat({ bigint: true })).mtimeNs)
        await fh.close()
        sha256 = hash.digest('hex')
        // the sidecar (content type and hash) exists only for blobs stored with a content type
        if (contentType) {
          sidecarTemp = tempOf(path, 'meta')
          await writeNew(sidecarTemp, JSON.stringify({ contentType, sha256, mtimeNs } satisfies Sidecar))
        }
        // The data first: until the sidecar follows, the old one no longer matches and is ignored.
        await rename(temp, path)
        if (sidecarTemp) await rename(sidecarTemp, sidecarOf(path))
        else await rm(sidecarOf(path), { force: true })
      } catch (e) {
        await fh.close().catch(() => {})
        await rm(temp, { force: true })
        if (sidecarTemp) await rm(sidecarTemp, { force: true })
        throw e
      }
      return { size, sha256 }
    },

    async get(key, range) {
      const opened = await openBlob(key)
      if (!opened) return undefined
      const { path, fh } = opened
      try {
        const info = await infoOf(path, fh)
        if (!info) {
          await fh.close()
          return undefined
        }
        const range_ = resolveRange(range, info.size)
        return {
          ...info,
          range: range_,
          body: readStream(fh, range_.offset, range_.length),
        } satisfies BlobBody
      } catch (e) {
        await fh.close().catch(() => {})
        throw e
      }
    },

    async head(key) {
      const opened = await openBlob(key)
      if (!opened) return undefined
      try {
        return await infoOf(opened.path, opened.fh)
      } finally {
        await opened.fh.close()
      }
    },

    async delete(key) {
      const path = pathOf(key)
      try {
        if (!(await stat(path)).isFile()) return
      } catch (e) {
        if (notThere(e)) return
        throw e
      }
      await rm(path, { force: true })
      await rm(sidecarOf(path), { force: true })
      await pruneDirs(dirname(path))
    },

    async move(from, to) {
      const src = pathOf(from)
      const dest = pathOf(to)
      if (src === dest) return
      if (!(await stat(src)).isFile()) throw new Error(`No stored file ${from}`)
      await mkdir(dirname(dest), { recursive: true })
      // rename keeps the mtime, so the sidecar (moved after the data) still matches
      await rename(src, dest)
      try {
        await rename(sidecarOf(src), sidecarOf(dest))
      } catch (e) {
        if (!notThere(e)) throw e
        await rm(sidecarOf(dest), { force: true })
      }
      await pruneDirs(dirname(src))
    },
  }
}

/** Creates a new file, and its directories; again if a concurrent delete removed them meanwhile. */
async function createIn(path: string): Promise<FileHandle> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(dirname(path), { recursive: true })
    try {
      return await open(path, 'wx')
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT' || attempt === 3) throw e
    }
  }
}

async function writeNew(path: string, text: string) {
  const fh = await open(path, 'wx')
  try {
    await fh.writeFile(text)
    await fh.datasync()
  } finally {
    await fh.close()
  }
}

/** `length` bytes of an open file from `offset`, as a web stream that closes the file when done. */
function readStream(fh: FileHandle, offset: number, length: number): ReadableStream<Uint8Array> {
  let position = offset
  const end = offset + length
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await fh.close()
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const want = Math.min(CHUNK, end - position)
        if (want <= 0) {
          await close()
          controller.close()
          return
        }
        const buf = new Uint8Array(want)
        const { bytesRead } = await fh.read(buf, 0, want, position)
        if (bytesRead === 0) {
          // The file shrank under us (it is never rewritten in place, so this is outside tampering).
          await close()
          controller.error(new Error('Stored file ended early'))
          return
        }
        position += bytesRead
        controller.enqueue(bytesRead === want ? buf : buf.subarray(0, bytesRead))
      } catch (e) {
        await close().catch(() => {})
        controller.error(e)
      }
    },
    async cancel() {
      await close()
    },
  })
}

const TEMP_FILE = /^\..+-[0-9a-f]{16}\.tmp$/

/**
 * Removes what crashed processes left under `root`: temp files of interrupted puts anywhere, and
 * staged uploads (`incoming/`, with their sidecars) that no call claimed, both when older than
 * `olderThanMs`. Run at server start; returns the number of files removed.
 */
export async function sweepStaleFiles(root: string, olderThanMs = 86_400_000): Promise<number> {
  const cutoff = Date.now() - olderThanMs
  const top = resolve(root)
  let removed = 0
  const walk = async (dir: string, staged: boolean): Promise<void> => {
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return // no such directory yet
    }
    for (const e of entries) {
      const path = join(dir, e.name)
      if (e.isDirectory()) await walk(path, staged || (dir === top && e.name === 'incoming'))
      else if (e.isFile() && (staged || TEMP_FILE.test(e.name))) {
        const st = await stat(path).catch(() => undefined)
        if (st && st.mtimeMs < cutoff && (await rm(path).then(() => true, () => false))) removed++
      }
    }
  }
  await walk(top, false)
  return removed
}
