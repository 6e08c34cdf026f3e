// A multipart action call whose file part is streamed from an async iterable (a file read as a
// stream, or bytes made on the fly): the benchmark never holds the file in memory either.
import { createReadStream } from 'node:fs'
import { randomBytes } from 'node:crypto'

export interface UploadFile {
  name: string
  type: string
  chunks: AsyncIterable<Uint8Array>
}

const enc = new TextEncoder()

/** The whole body: text fields, then the file part, as a stream of chunks. */
async function* multipartBody(boundary: string, fields: Record<string, string>, file: UploadFile) {
  let head = ''
  for (const [k, v] of Object.entries(fields))
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="${file.name}"\r\n` +
    `Content-Type: ${file.type}\r\n\r\n`
  yield enc.encode(head)
  yield* file.chunks
  yield enc.encode(`\r\n--${boundary}--\r\n`)
}

function streamOf(it: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iter = it[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      const r = await iter.next()
      if (r.done) ctl.close()
      else ctl.enqueue(r.value)
    },
    async cancel() {
      await iter.return?.()
    },
  })
}

/**
 * POST /api/3/action/<name> as multipart/form-data with `file` as the `upload` part, sent chunked
 * as it is read. The parsed answer and the milliseconds from sending to the whole answer.
 */
export async function multipartAction(
  url: string,
  name: string,
  key: string,
  fields: Record<string, string>,
  file: UploadFile,
) {
  const boundary = `bench-${randomBytes(12).toString('hex')}`
  const started = performance.now()
  const res = await fetch(`${url}/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: key },
    body: streamOf(multipartBody(boundary, fields, file)),
    duplex: 'half',
  } as RequestInit & { duplex: 'half' })
  const text = await res.text()
  const ms = performance.now() - started
  if (res.status !== 200) throw new Error(`${name}: ${res.status} ${text.slice(0, 500)}`)
  return { result: (JSON.parse(text) as { result: any }).result, ms }
}

/** A file's bytes as a stream of chunks. */
export async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) yield chunk as Buffer
}
