// Request → data dict, in CKAN's order: form fields, then the query string (reads), then a JSON body.
import { BadRequest } from '../errors'
import type { DataDict } from '../data-dict'
import { pyReprBrief } from '../lib/py-repr'
import { boundaryOf, MultipartError, readMultipart, type FormPart } from './multipart'
import {
  checkDeclaredLength,
  checkJsonShape,
  checkPairs,
  drainCapped,
  readCapped,
  declaredLength,
  tooLarge,
  tooLong,
  tooManyKeys,
  type BodyLimits,
} from './body-limits'

const utf8 = new TextDecoder('utf-8', { fatal: true })

function decode(buf: Uint8Array): string {
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

function parseJson(text: string, limits: BodyLimits): unknown {
  // depth, keys and string lengths first: JSON.parse must never build an unbounded structure
  checkJsonShape(text, limits)
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

/**
 * Stores a file part as it streams in and returns the value the data dict gets for it
 * (undefined: the part is not wanted, and the stager has left `body` unread for the caller).
 */
export type StageFile = (part: FormPart, body: ReadableStream<Uint8Array>) => Promise<unknown>

/**
 * Builds the data dict of an action call. `readOnly` actions take their parameters from the
 * query string when it has any (the body is then ignored, as in CKAN). File parts of a multipart
 * body go to `stage` as streams (never buffered); without it they are read and dropped.
 */
/** The data dict of a URL's query string (as a GET of an action has it), held to the key limit. */
export function queryDataDict(url: URL, limits: BodyLimits): DataDict {
  const pairs = [...url.searchParams]
  checkPairs(pairs, limits)
  return collect(pairs)
}

export async function readDataDict(
  req: Request,
  readOnly: boolean,
  limits: BodyLimits,
  stage?: StageFile,
): Promise<DataDict> {
  const url = new URL(req.url)
  const type = (req.headers.get('content-type') ?? '').toLowerCase()
  const isForm = type.startsWith('application/x-www-form-urlencoded')
  const isMultipart = type.startsWith('multipart/form-data')
  const query = () => queryDataDict(url, limits)
  // The body is read once, whatever its type (a second read is "Body is unusable"). A declared
  // length answers whether there is one without touching `req.body`: on Node that getter builds a
  // whole web Request and stream around the socket (~0.15 ms a request).
  const declared = declaredLength(req.headers)
  const hasBody =
    req.method !== 'GET' && req.method !== 'HEAD' && (declared !== undefined ? declared > 0 : req.body !== null)

  if (hasBody && isMultipart) {
    const boundary = boundaryOf(req.headers.get('content-type') ?? '')
    if (!boundary) throw new BadRequest('JSON Error: Error decoding the multipart form data.')
    const fields: [string, string][] = []
    const files: [string, unknown][] = []
    let unstored = 0
    try {
      await readMultipart(
        req.body!,
        boundary,
        {
          field(k, v) {
            if (fields.length + files.length >= limits.maxKeys) throw tooManyKeys(limits)
            fields.push([k, v])
          },
          async file(part, body) {
            // ckan: a file input left empty arrives as a part without a file name; a file part
            // nothing stores is read and dropped, within the body limit
            const value = part.filename && stage ? await stage(part, body) : undefined
            if (value !== undefined) files.push([part.name, value])
            else unstored += await drainCapped(body, limits.maxBytes - unstored, limits.maxBytes)
          },
        },
        {
          maxFieldBytes: limits.maxString * 4, // UTF-8: at most 4 bytes a character
          maxFieldsBytes: limits.maxBytes,
          fieldTooLong: () => tooLong(limits),
          fieldsTooLarge: () => tooLarge(limits.maxBytes),
        },
      )
    } catch (e) {
      if (!(e instanceof MultipartError)) throw e
      throw new BadRequest(`JSON Error: Error decoding the multipart form data: ${e.message}`)
    }
    for (const [, v] of fields) if (v.length > limits.maxString) throw tooLong(limits)
    if (fields.length || files.length) {
      const dict = fromFormFields(fields, limits)
      for (const [k, f] of files) dict[k] = f // files override same-named fields
      return dict
    }
    return readOnly && url.search.length > 1 ? query() : {}
  }

  let buf: Uint8Array | null = null
  if (hasBody) {
    checkDeclaredLength(req.headers, limits.maxBytes)
    // With a declared length (checked above) the framing of HTTP holds the body to it, and
    // arrayBuffer() reads it at once (on Node straight from the socket); else it streams in
    // and is cut off past the limit.
    buf = declared !== undefined ? new Uint8Array(await req.arrayBuffer()) : await readCapped(req.body!, limits.maxBytes)
    if (buf.byteLength > limits.maxBytes) throw tooLarge(limits.maxBytes) // a Request made in-process
  }
  if (buf && buf.byteLength && isForm) {
    const text = decode(buf)
    // counted before URLSearchParams builds millions of pairs out of "a&a&a&…"
    if (formFieldCount(text) > limits.maxKeys) throw tooManyKeys(limits)
    const pairs = [...new URLSearchParams(text)]
    if (pairs.length) {
      checkPairs(pairs, limits)
      return fromFormFields(pairs, limits)
    }
  }
  if (readOnly && url.search.length > 1) return query()
  if (buf && buf.byteLength) {
    const text = decode(buf)
    if (/^application\/([\w.+-]*\+)?json/.test(type)) return requireDict(parseJson(text, limits))
    if (text.trim().length) return requireDict(null)
  }
  return {}
}

/** The non-empty `&`-separated fields of form-encoded text, by one scan. */
function formFieldCount(text: string): number {
  let n = 0
  for (let i = 0, inField = false; i < text.length; i++) {
    const amp = text.charCodeAt(i) === 0x26
    if (!amp && !inField) n++
    inField = !amp
  }
  return n
}

function fromFormFields(pairs: [string, string][], limits: BodyLimits): DataDict {
  // ckan: a raw JSON body posted as a form arrives as one key with an empty (or "1") value
  if (pairs.length === 1 && (pairs[0]![1] === '' || pairs[0]![1] === '1')) {
    const key = pairs[0]![0]
    const first = key.trimStart()[0]
    if (first === '{' || first === '[' || first === '"') return requireDict(parseJson(key, limits))
  }
  return collect(pairs)
}
