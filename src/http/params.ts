// Request → data dict, in CKAN's order: form fields, then the query string (reads), then a JSON body.
import { BadRequest } from '../errors'
import type { DataDict } from '../data-dict'
import { pyReprBrief } from '../lib/py-repr'
import { boundaryOf, MultipartError, readMultipart, type FormPart } from './multipart'

/** Largest request body accepted (uploads included). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024

const utf8 = new TextDecoder('utf-8', { fatal: true })

function decode(buf: ArrayBuffer): string {
  try {
    return utf8.decode(buf)
  } catch {
    throw new BadRequest('JSON Error: Error decoding JSON data. Error: the body is not valid UTF-8')
  }
}

function requireDict(v: unknown): DataDict {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as DataDict
  throw new BadRequest(
    `JSON Error: Request data JSON decoded to ${pyReprBrief(v)} but it needs to be a dictionary.`,
  )
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new BadRequest(
      `JSON Error: Error decoding JSON data. Error: ${(e as Error).message} JSON data extracted from the request: ${text.slice(0, 200)}`,
    )
  }
}

/** Repeated keys become lists of strings; single keys plain strings. */
function collect(entries: Iterable<[string, unknown]>): DataDict {
  const out: DataDict = {}
  const counts = new Map<string, number>()
  for (const [k, v] of entries) {
    const n = (counts.get(k) ?? 0) + 1
    counts.set(k, n)
    if (n === 1) out[k] = v
    else if (n === 2) out[k] = [out[k], v]
    else (out[k] as unknown[]).push(v)
  }
  return out
}

async function readBody(req: Request): Promise<ArrayBuffer> {
  const len = Number(req.headers.get('content-length') ?? '0')
  if (len > MAX_BODY_BYTES) throw new BadRequest('JSON Error: the request body is too large')
  const buf = await req.arrayBuffer()
  if (buf.byteLength > MAX_BODY_BYTES) throw new BadRequest('JSON Error: the request body is too large')
  return buf
}

/**
 * Stores a file part as it streams in and returns the value the data dict gets for it
 * (undefined: the part is not wanted, and the stager has cancelled `body`).
 */
export type StageFile = (part: FormPart, body: ReadableStream<Uint8Array>) => Promise<unknown>

/**
 * Builds the data dict of an action call. `readOnly` actions take their parameters from the
 * query string when it has any (the body is then ignored, as in CKAN). File parts of a multipart
 * body go to `stage` as streams (never buffered); without it they are read and dropped.
 */
export async function readDataDict(
  req: Request,
  readOnly: boolean,
  stage?: StageFile,
): Promise<DataDict> {
  const url = new URL(req.url)
  const type = (req.headers.get('content-type') ?? '').toLowerCase()
  const isForm = type.startsWith('application/x-www-form-urlencoded')
  const isMultipart = type.startsWith('multipart/form-data')

  if (req.method === 'POST' && isMultipart) {
    const boundary = boundaryOf(req.headers.get('content-type') ?? '')
    if (!boundary || !req.body)
      throw new BadRequest('JSON Error: Error decoding the multipart form data.')
    const fields: [string, string][] = []
    const files: [string, unknown][] = []
    try {
      await readMultipart(req.body, boundary, {
        field: (k, v) => void fields.push([k, v]),
        async file(part, body) {
          // ckan: a file input left empty arrives as a part without a file name
          if (!part.filename || !stage) return body.cancel()
          const value = await stage(part, body)
          if (value !== undefined) files.push([part.name, value])
        },
      })
    } catch (e) {
      if (!(e instanceof MultipartError)) throw e
      throw new BadRequest(`JSON Error: Error decoding the multipart form data: ${e.message}`)
    }
    if (fields.length || files.length) {
      const dict = fromFormFields(fields)
      for (const [k, f] of files) dict[k] = f // files override same-named fields
      return dict
    }
  }
  if (req.method === 'POST' && isForm) {
    const text = decode(await readBody(req))
    const pairs = [...new URLSearchParams(text)]
    if (pairs.length) return fromFormFields(pairs)
  }
  if (readOnly && url.search.length > 1) {
    return collect(url.searchParams)
  }
  const buf = req.method === 'GET' || req.method === 'HEAD' ? null : await readBody(req)
  if (buf && buf.byteLength) {
    const text = decode(buf)
    if (/^application\/([\w.+-]*\+)?json/.test(type)) return requireDict(parseJson(text))
    if (text.trim().length) return requireDict(null)
  }
  return {}
}

function fromFormFields(pairs: [string, string][]): DataDict {
  // ckan: a raw JSON body posted as a form arrives as one key with an empty (or "1") value
  if (pairs.length === 1 && (pairs[0]![1] === '' || pairs[0]![1] === '1')) {
    const key = pairs[0]![0]
    const first = key.trimStart()[0]
    if (first === '{' || first === '[' || first === '"') return requireDict(parseJson(key))
  }
  return collect(pairs)
}
