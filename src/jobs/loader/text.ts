// Bytes → UTF-8 for the CSV parser: the encoding is found from a sample at the start (byte-order
// mark, valid UTF-8, else chardet's guess decoded by iconv-lite), then the rest is converted as
// it streams.
import chardet from 'chardet'
import iconv from 'iconv-lite'

/** How much of the file is held back to guess its encoding and dialect. */
export const SAMPLE_BYTES = 64 * 1024

export interface Sampled {
  /** The first bytes (about SAMPLE_BYTES; all of a shorter file). */
  sample: Uint8Array
  /** The whole stream again, the sample included. */
  body: ReadableStream<Uint8Array>
}

/** Reads the first bytes without losing them. */
export async function sampleStream(body: ReadableStream<Uint8Array>): Promise<Sampled> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let done = false
  while (size < SAMPLE_BYTES) {
    const r = await reader.read()
    if (r.done) {
      done = true
      break
    }
    chunks.push(r.value)
    size += r.value.byteLength
  }
  const sample = concat(chunks, size)
  const rest = new ReadableStream<Uint8Array>({
    start(ctl) {
      if (sample.byteLength) ctl.enqueue(sample)
      if (done) ctl.close()
    },
    async pull(ctl) {
      const r = await reader.read()
      if (r.done) ctl.close()
      else ctl.enqueue(r.value)
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
  return { sample, body: rest }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/** The encoding name (iconv-lite's spelling) and how many BOM bytes to skip. */
export function detectEncoding(sample: Uint8Array): { encoding: string; bom: number } {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return { encoding: 'utf-8', bom: 3 }
  if (sample[0] === 0xff && sample[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 }
  if (sample[0] === 0xfe && sample[1] === 0xff) return { encoding: 'utf-16be', bom: 2 }
  try {
    // stream: a character cut at the end of the sample is not an error
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true })
    return { encoding: 'utf-8', bom: 0 }
  } catch {
    /* not UTF-8: guess below */
  }
  const guess = chardet.detect(sample)
  // Latin-1 guesses read as Windows-1252, its superset for printable text (as browsers do)
  if (!guess || /^(ISO-8859-1|windows-1252|ASCII)$/i.test(guess) || !iconv.encodingExists(guess))
    return { encoding: 'windows-1252', bom: 0 }
  return { encoding: guess, bom: 0 }
}

/**
 * The stream as UTF-8 bytes (what csv-parse reads), without `bom` leading bytes: UTF-8 passes
 * through untouched, anything else is decoded by iconv-lite and encoded again.
 */
export function utf8Stream(
  body: ReadableStream<Uint8Array>,
  encoding: string,
  bom: number,
): ReadableStream<Uint8Array> {
  let skip = bom
  const strip = (chunk: Uint8Array) => {
    if (!skip) return chunk
    const n = Math.min(skip, chunk.byteLength)
    skip -= n
    return chunk.subarray(n)
  }
  if (encoding === 'utf-8')
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          const c = strip(chunk)
          if (c.byteLength) ctl.enqueue(c)
        },
      }),
    )
  const dec = iconv.getDecoder(encoding, { stripBOM: false })
  const utf8 = new TextEncoder()
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        const c = strip(chunk)
        const s = dec.write(Buffer.from(c.buffer, c.byteOffset, c.byteLength))
        if (s) ctl.enqueue(utf8.encode(s))
      },
      flush(ctl) {
        const s = dec.end()
        if (s) ctl.enqueue(utf8.encode(s))
      },
    }),
  )
}

/** The sample as text (up to its last whole line), for the dialect guess. */
export function sampleText(sample: Uint8Array, encoding: string, bom: number): string {
  const bytes = sample.subarray(bom)
  const text =
    encoding === 'utf-8'
      ? new TextDecoder('utf-8').decode(bytes, { stream: true })
      : iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding)
  const cut = text.lastIndexOf('\n')
  return cut > 0 && bytes.byteLength >= SAMPLE_BYTES ? text.slice(0, cut) : text
}
