// The BlobStore's file adapter on a real temp directory: streamed puts, ranges, atomic replacement, key checks.
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  renameSync,
  utimesSync,
} from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  assertBlobKey,
  BlobSizeMismatch,
  BlobStoreNotConfigured,
  BlobTooLarge,
  InvalidBlobKey,
  notConfiguredBlobStore,
  RangeNotSatisfiable,
  resolveRange,
  type BlobStore,
} from '../../src/storage/blob-store'
import { nodeBlobStore, sweepStaleFiles } from '../../src/runtime/node-blob-store'
import { tempDir } from '../helpers/temp-dirs'

const enc = new TextEncoder()
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const sha = (s: string) => sha256(new TextEncoder().encode(s))

/** Deterministic pseudo-random bytes, so a misplaced range cannot match by accident. */
function bytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

/** A stream of `data` in chunks of `chunk` bytes, produced on demand. */
function streamOf(
  data: Uint8Array,
  chunk = 1000,
  onPull?: (n: number) => void,
): ReadableStream<Uint8Array> {
  let at = 0
  let pulls = 0
  return new ReadableStream({
    pull(c) {
      onPull?.(++pulls)
      if (at >= data.length) return c.close()
      c.enqueue(data.slice(at, at + chunk))
      at += chunk
    },
  })
}

/** Yields `good` bytes, then fails as an aborted request body does. */
function failingStream(
  good: Uint8Array,
  error = new Error('client went away'),
): ReadableStream<Uint8Array> {
  let sent = false
  return new ReadableStream({
    pull(c) {
      if (!sent) {
        sent = true
        c.enqueue(good)
      } else c.error(error)
    },
  })
}

/** Byte equality without vitest's element-by-element diff (slow on big arrays). */
function expectBytes(actual: Uint8Array, expected: Uint8Array, label?: string) {
  expect(actual.length, label).toBe(expected.length)
  expect(Buffer.from(actual).equals(Buffer.from(expected)), label).toBe(true)
}

async function readAll(s: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  const reader = s.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parts.push(value)
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** Every file under dir, hidden ones included, relative to it. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort()

let parent: string
let root: string
let store: BlobStore

beforeEach(() => {
  parent = tempDir('ckan-edge-blobs-')
  root = join(parent, 'uploads')
  store = nodeBlobStore(root)
})

describe('assertBlobKey', () => {
  it('accepts the keys uploads use', () => {
    for (const key of [
      'resources/0b5c/data.csv',
      'a',
      'resources/x/my file (1).csv',
      'r/ünïcødé.txt',
      'a/b..c',
    ])
      expect(assertBlobKey(key)).toBe(key)
  })

  it.each([
    ['', 'empty'],
    ['..', 'starts with "."'],
    ['../escape', 'starts with "."'],
    ['resources/../../etc/passwd', 'starts with "."'],
    ['resources/./x', 'starts with "."'],
    ['resources/.hidden', 'starts with "."'],
    ['/etc/passwd', 'absolute'],
    ['resources\\..\\x', 'backslash'],
    ['a\u0000b', 'control character'],
    ['a\nb', 'control character'],
    ['C:/Windows/x', 'drive letter'],
    ['a//b', 'empty path segment'],
    ['a/', 'empty path segment'],
    ['a/ b', 'surrounding spaces'],
    ['x'.repeat(201), 'longer than 200'],
    ['a/'.repeat(600) + 'b', 'longer than 1024'],
  ])('refuses %j (%s)', (key, reason) => {
    expect(() => assertBlobKey(key)).toThrow(InvalidBlobKey)
    expect(() => assertBlobKey(key)).toThrow(reason)
  })

  it('refuses a key that is not a string', () => {
    expect(() => assertBlobKey(undefined)).toThrow(InvalidBlobKey)
    expect(() => assertBlobKey(42)).toThrow(InvalidBlobKey)
  })
})

describe('resolveRange', () => {
  it('cuts a range at the end of the blob and clamps a long suffix', () => {
    expect(resolveRange(undefined, 10)).toEqual({ offset: 0, length: 10 })
    expect(resolveRange({ offset: 2, length: 3 }, 10)).toEqual({ offset: 2, length: 3 })
    expect(resolveRange({ offset: 8, length: 30 }, 10)).toEqual({ offset: 8, length: 2 })
    expect(resolveRange({ offset: 4 }, 10)).toEqual({ offset: 4, length: 6 })
    expect(resolveRange({ suffix: 3 }, 10)).toEqual({ offset: 7, length: 3 })
    expect(resolveRange({ suffix: 30 }, 10)).toEqual({ offset: 0, length: 10 })
  })

  it('refuses ranges that select nothing, with the size for Content-Range', () => {
    for (const r of [
      { offset: 10 },
      { offset: 11, length: 1 },
      { offset: 0, length: 0 },
      { suffix: 0 },
    ]) {
      const e = (() => {
        try {
          resolveRange(r, 10)
        } catch (err) {
          return err
        }
      })()
      expect(e, JSON.stringify(r)).toBeInstanceOf(RangeNotSatisfiable)
      expect((e as RangeNotSatisfiable).size).toBe(10)
    }
    expect(() => resolveRange({ suffix: 1 }, 0)).toThrow(RangeNotSatisfiable)
  })

  it('rejects negative or fractional numbers as a caller bug', () => {
    expect(() => resolveRange({ offset: -1 }, 10)).toThrow(TypeError)
    expect(() => resolveRange({ offset: 1.5 }, 10)).toThrow(TypeError)
    expect(() => resolveRange({ offset: 0, length: -2 }, 10)).toThrow(TypeError)
    expect(() => resolveRange({ suffix: Number.NaN }, 10)).toThrow(TypeError)
  })
})

describe('nodeBlobStore', () => {
  it('streams a put to disk and returns its size and SHA-256', async () => {
    const data = bytes(300_000)
    const r = await store.put('resources/r1/data.bin', streamOf(data, 4096), {
      contentType: 'application/octet-stream',
    })
    expect(r).toEqual({ size: 300_000, sha256: sha256(data) })
    expectBytes(readFileSync(join(root, 'resources/r1/data.bin')), data)
  })

  it('writes chunks as they arrive instead of holding the whole upload', async () => {
    const data = bytes(200 * 1000)
    const dir = join(root, 'resources/r2')
    let onDiskAtPull150 = -1
    await store.put(
      'resources/r2/big.bin',
      streamOf(data, 1000, (n) => {
        if (n !== 150) return
        const temp = readdirSync(dir).find((f) => f.endsWith('.tmp'))!
        onDiskAtPull150 = statSync(join(dir, temp)).size
      }),
    )
    // pull 150 comes when 149 chunks were delivered; one of them may still wait in the stream's
    // queue, every other one must already be in the temp file
    expect(onDiskAtPull150).toBeGreaterThanOrEqual(148 * 1000)
    expect(filesUnder(dir)).toEqual(['big.bin'])
  })

  it('gets the whole blob with its size and content type', async () => {
    const data = enc.encode('id,name\n1,a\n')
    await store.put('resources/r3/data.csv', data, { contentType: 'text/csv' })
    const got = await store.get('resources/r3/data.csv')
    expect(got).toMatchObject({
      size: data.length,
      contentType: 'text/csv',
      range: { offset: 0, length: data.length },
    })
    expect(await readAll(got!.body)).toEqual(data)
  })

  it('gets byte ranges: offset and length, offset only, past the end, suffix', async () => {
    const data = bytes(200_000, 7)
    await store.put('resources/r4/x.bin', data)
    const cases: [Parameters<BlobStore['get']>[1], number, number][] = [
      [{ offset: 0, length: 1 }, 0, 1],
      [{ offset: 70_000, length: 100_000 }, 70_000, 100_000],
      [{ offset: 150_000 }, 150_000, 50_000],
      [{ offset: 199_999, length: 10 }, 199_999, 1],
      [{ suffix: 500 }, 199_500, 500],
      [{ suffix: 1_000_000 }, 0, 200_000],
    ]
    for (const [range, offset, length] of cases) {
      const got = (await store.get('resources/r4/x.bin', range))!
      expect(got.size, JSON.stringify(range)).toBe(200_000)
      expect(got.range, JSON.stringify(range)).toEqual({ offset, length })
      expectBytes(
        await readAll(got.body),
        data.slice(offset, offset + length),
        JSON.stringify(range),
      )
    }
  })

  it('refuses a range past the end with RangeNotSatisfiable', async () => {
    await store.put('resources/r5/x.bin', bytes(100))
    await expect(store.get('resources/r5/x.bin', { offset: 100 })).rejects.toThrow(
      RangeNotSatisfiable,
    )
    await expect(store.get('resources/r5/x.bin', { suffix: 0 })).rejects.toMatchObject({
      size: 100,
    })
    await expect(store.get('resources/r5/x.bin', { offset: -5 })).rejects.toThrow(TypeError)
  })

  it('stores and returns an empty blob', async () => {
    const r = await store.put('resources/r6/empty.txt', streamOf(new Uint8Array(0)))
    expect(r).toEqual({ size: 0, sha256: sha256(new Uint8Array(0)) })
    const got = (await store.get('resources/r6/empty.txt'))!
    expect(got.size).toBe(0)
    expect(await readAll(got.body)).toEqual(new Uint8Array(0))
    await expect(store.get('resources/r6/empty.txt', { offset: 0 })).rejects.toThrow(
      RangeNotSatisfiable,
    )
  })

  it('stores a file of the longest name a key allows, with its content type', async () => {
    const key = `resources/r0/${'n'.repeat(196)}.csv`
    await store.put(key, enc.encode('a,b'), { contentType: 'text/csv' })
    expect(await store.head(key)).toEqual({ size: 3, contentType: 'text/csv', sha256: sha('a,b') })
  })

  it('heads a blob without reading it', async () => {
    await store.put('resources/r7/a.json', enc.encode('{}'), { contentType: 'application/json' })
    await store.put('resources/r7/b.bin', enc.encode('xyz'))
    expect(await store.head('resources/r7/a.json')).toEqual({
      size: 2,
      contentType: 'application/json',
      sha256: sha('{}'),
    })
    expect(await store.head('resources/r7/b.bin')).toEqual({ size: 3 })
  })

  it('answers undefined for a missing key, a directory or a path through a file', async () => {
    await store.put('resources/r8/file.txt', enc.encode('x'))
    for (const key of [
      'resources/r8/nope.txt',
      'nothing/at/all',
      'resources/r8',
      'resources/r8/file.txt/below',
    ]) {
      expect(await store.get(key), key).toBeUndefined()
      expect(await store.head(key), key).toBeUndefined()
    }
  })

  it('replaces a blob on a second put, content type included', async () => {
    await store.put('resources/r9/f', enc.encode('first version'), { contentType: 'text/plain' })
    await store.put('resources/r9/f', enc.encode('second'), { contentType: 'text/markdown' })
    expect(await readAll((await store.get('resources/r9/f'))!.body)).toEqual(enc.encode('second'))
    expect(await store.head('resources/r9/f')).toEqual({
      size: 6,
      contentType: 'text/markdown',
      sha256: sha('second'),
    })
    await store.put('resources/r9/f', enc.encode('third'))
    expect(await store.head('resources/r9/f')).toEqual({ size: 5 })
    expect(filesUnder(join(root, 'resources/r9'))).toEqual(['f'])
  })

  it('ignores a content type left over from another version of the file', async () => {
    await store.put('resources/r10/f', enc.encode('old'), { contentType: 'text/plain' })
    // what a crash between the data and the sidecar renames leaves behind
    const other = join(parent, 'other')
    writeFileSync(other, 'new!')
    renameSync(other, join(root, 'resources/r10/f'))
    expect(await store.head('resources/r10/f')).toEqual({ size: 4 })
  })

  it('leaves nothing behind when the upload stream fails', async () => {
    const err = new Error('client went away')
    await expect(store.put('resources/r11/f.bin', failingStream(bytes(5000), err))).rejects.toBe(
      err,
    )
    expect(await store.head('resources/r11/f.bin')).toBeUndefined()
    expect(filesUnder(root)).toEqual([])
  })

  it('keeps the previous blob when a replacing upload fails', async () => {
    await store.put('resources/r12/f.bin', enc.encode('keep me'), { contentType: 'text/plain' })
    await expect(
      store.put('resources/r12/f.bin', failingStream(bytes(5000)), {
        contentType: 'application/zip',
      }),
    ).rejects.toThrow('client went away')
    expect(await store.head('resources/r12/f.bin')).toEqual({
      size: 7,
      contentType: 'text/plain',
      sha256: sha('keep me'),
    })
    expect(await readAll((await store.get('resources/r12/f.bin'))!.body)).toEqual(
      enc.encode('keep me'),
    )
    expect(filesUnder(join(root, 'resources/r12'))).toEqual(['.f.bin.meta.json', 'f.bin'])
  })

  it('stops an upload past maxBytes and stores nothing', async () => {
    const put = store.put('resources/r13/big', streamOf(bytes(10_000), 1000), { maxBytes: 4_500 })
    await expect(put).rejects.toThrow(BlobTooLarge)
    await expect(
      store.put('resources/r13/ok', bytes(4_500), { maxBytes: 4_500 }),
    ).resolves.toMatchObject({
      size: 4_500,
    })
    expect(filesUnder(root)).toEqual(['resources/r13/ok'])
  })

  it('refuses an upload whose length differs from the announced size', async () => {
    await expect(store.put('resources/r14/a', streamOf(bytes(100)), { size: 101 })).rejects.toThrow(
      BlobSizeMismatch,
    )
    await expect(store.put('resources/r14/b', bytes(100), { size: 99 })).rejects.toThrow(
      BlobSizeMismatch,
    )
    await expect(
      store.put('resources/r14/c', streamOf(bytes(100)), { size: 100 }),
    ).resolves.toMatchObject({
      size: 100,
    })
    expect(filesUnder(root)).toEqual(['resources/r14/c'])
  })

  it('refuses a content type with a line break (it becomes a header)', async () => {
    await expect(
      store.put('resources/r15/x', enc.encode('x'), {
        contentType: 'text/plain\r\nSet-Cookie: a=b',
      }),
    ).rejects.toThrow(TypeError)
    expect(existsSync(join(root, 'resources/r15/x'))).toBe(false)
  })

  it('deletes a blob, its sidecar and the directories it leaves empty', async () => {
    await store.put('resources/r16/a.txt', enc.encode('a'), { contentType: 'text/plain' })
    await store.put('resources/r17/b.txt', enc.encode('b'))
    await store.delete('resources/r16/a.txt')
    expect(await store.get('resources/r16/a.txt')).toBeUndefined()
    expect(existsSync(join(root, 'resources/r16'))).toBe(false)
    expect(filesUnder(root)).toEqual(['resources/r17/b.txt'])
    await store.delete('resources/r17/b.txt')
    expect(existsSync(join(root, 'resources'))).toBe(false)
    expect(existsSync(root)).toBe(true)
  })

  it('deletes a missing key or a directory without error and without removing anything', async () => {
    await store.put('resources/r18/a.txt', enc.encode('a'))
    await store.delete('resources/r18/nope.txt')
    await store.delete('resources/r18')
    await store.delete('never/existed')
    expect(filesUnder(root)).toEqual(['resources/r18/a.txt'])
  })

  it('refuses a put below a key that is a file', async () => {
    await store.put('resources/r19', enc.encode('a file'))
    await expect(store.put('resources/r19/inner', enc.encode('x'))).rejects.toThrow()
    expect(filesUnder(root)).toEqual(['resources/r19'])
  })

  it('keeps one complete version when two puts of a key race', async () => {
    const a = bytes(150_000, 3)
    const b = bytes(150_000, 4)
    await Promise.all([
      store.put('resources/r20/f', streamOf(a, 999)),
      store.put('resources/r20/f', streamOf(b, 1001)),
    ])
    const got = await readAll((await store.get('resources/r20/f'))!.body)
    expect([sha256(a), sha256(b)]).toContain(sha256(got))
    expect(filesUnder(join(root, 'resources/r20'))).toEqual(['f'])
  })

  it('lets a reader finish the version it opened while a put replaces it', async () => {
    await store.put('resources/r21/f', bytes(300_000, 5))
    const got = (await store.get('resources/r21/f'))!
    await store.put('resources/r21/f', enc.encode('short'))
    expectBytes(await readAll(got.body), bytes(300_000, 5))
  })

  it('closes the file when a reader cancels', async () => {
    await store.put('resources/r22/f', bytes(300_000))
    const got = (await store.get('resources/r22/f'))!
    const reader = got.body.getReader()
    await reader.read()
    await reader.cancel()
    await store.delete('resources/r22/f')
    expect(existsSync(join(root, 'resources/r22'))).toBe(false)
  })

  it('refuses traversal keys in every method and writes nothing outside the root', async () => {
    mkdirSync(root, { recursive: true })
    writeFileSync(join(parent, 'secret.txt'), 'top secret')
    for (const key of [
      '../secret.txt',
      'a/../../secret.txt',
      '/etc/passwd',
      '..\\secret.txt',
      'a\u0000b',
      '.x',
    ]) {
      await expect(store.put(key, enc.encode('pwned')), key).rejects.toThrow(InvalidBlobKey)
      await expect(store.get(key), key).rejects.toThrow(InvalidBlobKey)
      await expect(store.head(key), key).rejects.toThrow(InvalidBlobKey)
      await expect(store.delete(key), key).rejects.toThrow(InvalidBlobKey)
    }
    expect(readFileSync(join(parent, 'secret.txt'), 'utf8')).toBe('top secret')
    expect(filesUnder(parent)).toEqual(['secret.txt'])
  })
})

describe('sweepStaleFiles', () => {
  /** A file under root, `ageH` hours old. */
  const file = (rel: string, ageH: number) => {
    const path = join(root, rel)
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, 'x')
    const t = Date.now() / 1000 - ageH * 3600
    utimesSync(path, t, t)
  }

  it('removes day-old temp files and unclaimed staged uploads, and nothing else', async () => {
    file('resources/r1/data.csv', 48) // a stored file, however old, stays
    file('resources/r1/.data.csv.meta.json', 48)
    file('resources/r1/.data.csv-0123456789abcdef.tmp', 48) // an interrupted put
    file('resources/r2/.x.csv-fedcba9876543210.tmp', 1) // one still being written
    file('incoming/3f0c', 30) // a staged upload nobody claimed
    file('incoming/.3f0c.meta.json', 30)
    file('incoming/9a1b', 2) // staged by a call still running
    file('user/incoming/kept.png', 48) // only the top-level incoming/ is staging
    expect(await sweepStaleFiles(root)).toBe(3)
    expect(filesUnder(root)).toEqual([
      'incoming/9a1b',
      'resources/r1/.data.csv.meta.json',
      'resources/r1/data.csv',
      'resources/r2/.x.csv-fedcba9876543210.tmp',
      'user/incoming/kept.png',
    ])
  })

  it('is fine with a store that has no directory yet', async () => {
    expect(await sweepStaleFiles(join(parent, 'nothing-here'))).toBe(0)
  })
})

describe('notConfiguredBlobStore', () => {
  it('fails every call with a message naming what is missing', async () => {
    const s = notConfiguredBlobStore('the STORAGE R2 binding')
    await expect(s.get('a')).rejects.toThrow(BlobStoreNotConfigured)
    await expect(s.put('a', new Uint8Array())).rejects.toThrow(
      'File storage is not configured (the STORAGE R2 binding)',
    )
    await expect(s.head('a')).rejects.toThrow(BlobStoreNotConfigured)
    await expect(s.delete('a')).rejects.toThrow(BlobStoreNotConfigured)
  })
})
