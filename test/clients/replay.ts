// The HTTP requests Python clients send, rebuilt byte for byte where it matters (read from their
// sources; none of their code is here): ckanapi's RemoteCKAN (requests: POST JSON as `json.dumps`
// writes it, both credential headers, its User-Agent; multipart for files; GET with `urlencode`d
// parameters when `get_only`), frictionless-py's CKAN adapter and storage (requests: GET with
// params, POST with `json=`, `Authorization`), and Magda's CKAN connector (urijs URLs, node-fetch).

/** Python's `json.dumps(v)`: `", "` and `": "` separators, non-ASCII as `\uXXXX` (ensure_ascii). */
export function pyJson(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${pyStr(k)}: ${pyJson(x)}`).join(', ')}}`
  if (typeof v === 'string') return pyStr(v)
  return JSON.stringify(v)
}
const pyStr = (s: string) => JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** Python's `str()` of a parameter value as requests sends it (`True`, `False`, numbers as written). */
const pyParam = (v: unknown) => (v === true ? 'True' : v === false ? 'False' : String(v))

/** `urllib.parse.quote_plus`: only letters, digits and `_.-~` stay; a space is `+`. */
const quotePlus = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+')

/** requests' `params=`: `urlencode(params, doseq=True)` (a list is the key repeated). */
export function pyQuery(params: Record<string, unknown>): string {
  const parts: string[] = []
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined) continue
    for (const x of Array.isArray(v) ? v : [v]) parts.push(`${quotePlus(k)}=${quotePlus(pyParam(x))}`)
  }
  return parts.join('&')
}

/** The headers requests adds to every request. */
export const REQUESTS_HEADERS = { 'Accept-Encoding': 'gzip, deflate', Accept: '*/*', Connection: 'keep-alive' }

export const CKANAPI_UA = 'ckanapi/4.8 (+https://github.com/ckan/ckanapi)'

/**
 * A requests multipart body (`data=` fields as text, then `files=`): a 32-hex boundary, parts
 * without a Content-Type unless the file tuple names one.
 */
export function multipart(
  fields: Record<string, string>,
  files: Record<string, { filename: string; content: Uint8Array; type?: string }>,
): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('')
  const enc = new TextEncoder()
  const chunks: Uint8Array[] = []
  for (const [k, v] of Object.entries(fields))
    chunks.push(enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`))
  for (const [k, f] of Object.entries(files)) {
    const type = f.type ? `Content-Type: ${f.type}\r\n` : ''
    chunks.push(enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${f.filename}"\r\n${type}\r\n`))
    chunks.push(f.content, enc.encode('\r\n'))
  }
  chunks.push(enc.encode(`--${boundary}--\r\n`))
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of chunks) {
    body.set(c, at)
    at += c.length
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

/** What ckanapi's `reverse_apicontroller_action` makes of an answer: the result, or the exception it raises. */
export type Reversed =
  | { result: unknown }
  | { raises: 'NotFound' | 'NotAuthorized' | 'ValidationError' | 'SearchQueryError' | 'SearchError' | 'CKANAPIError'; arg: unknown }

export function reverseApicontrollerAction(status: number, text: string): Reversed {
  let err: Record<string, unknown> = {}
  try {
    const parsed = JSON.parse(text)
    if (parsed?.success) return { result: parsed.result }
    err = parsed?.error ?? {}
  } catch {
    /* not JSON */
  }
  const type = err.__type
  let message = err.message ?? ''
  if (typeof message === 'string') message = message.split(': ').length > 1 ? message.slice(message.indexOf(': ') + 2) : message
  if (type === 'Search Query Error') return { raises: 'SearchQueryError', arg: message }
  if (type === 'Search Error') return { raises: 'SearchError', arg: message }
  if (type === 'Validation Error') return { raises: 'ValidationError', arg: err }
  if (type === 'Not Found Error') return { raises: 'NotFound', arg: message }
  if (type === 'Authorization Error') return { raises: 'NotAuthorized', arg: err }
  return { raises: 'CKANAPIError', arg: [status, text] }
}

/** ckanapi's RemoteCKAN: `call(name, data)`, `call(name, data, files)` (multipart), `get_only` GETs. */
export function remoteCkan(address: string, apikey?: string, opts: { getOnly?: boolean } = {}) {
  const auth: Record<string, string> = apikey ? { 'X-CKAN-API-Key': apikey, Authorization: apikey } : {}
  const base = `${address.replace(/\/+$/, '')}/api/action/`
  return async function call(
    action: string,
    data: Record<string, unknown> = {},
    files?: Record<string, { filename: string; content: Uint8Array }>,
  ): Promise<Reversed & { status: number }> {
    let res: Response
    const headers = { ...REQUESTS_HEADERS, ...auth, 'User-Agent': CKANAPI_UA }
    if (opts.getOnly) {
      const qs = pyQuery(data)
      res = await fetch(`${base}${action}${qs ? `?${qs}` : ''}`, { headers })
    } else if (files) {
      // every value a string, None left out, no nesting
      const fields = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, String(v)]))
      const { body, contentType } = multipart(fields, files)
      res = await fetch(`${base}${action}`, { method: 'POST', headers: { ...headers, 'Content-Type': contentType }, body, redirect: 'manual' })
    } else {
      res = await fetch(`${base}${action}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: pyJson(data),
        redirect: 'manual',
      })
    }
    return { status: res.status, ...reverseApicontrollerAction(res.status, await res.text()) }
  }
}

/** frictionless-py's `make_ckan_request`: requests with `Authorization`, the JSON answer, an error envelope raised. */
export async function frictionlessRequest(
  url: string,
  opts: { method?: string; apikey?: string; params?: Record<string, unknown>; json?: unknown; form?: { body: Uint8Array<ArrayBuffer>; contentType: string } } = {},
): Promise<{ status: number; body: any; error?: string }> {
  const headers: Record<string, string> = { ...REQUESTS_HEADERS, 'User-Agent': 'python-requests/2.32.3' }
  if (opts.apikey) headers.Authorization = opts.apikey
  const qs = opts.params ? pyQuery(opts.params) : ''
  let body: BodyInit | undefined
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = pyJson(opts.json)
  } else if (opts.form) {
    headers['Content-Type'] = opts.form.contentType
    body = opts.form.body
  }
  const res = await fetch(qs ? `${url}${url.includes('?') ? '&' : '?'}${qs}` : url, { method: opts.method ?? 'GET', headers, body })
  const json = await res.json()
  const error = !json.success && json.error ? `CKAN returned an error: ${JSON.stringify(json.error)}` : undefined
  return { status: res.status, body: json, error }
}

export const MAGDA_UA = '@magda/ckan-connector/2.3.0'

/** Magda's `requestJson`: a GET with its User-Agent; a status not ok throws. */
export async function magdaRequestJson(url: string): Promise<any> {
  const res = await fetch(url, { headers: { 'User-Agent': MAGDA_UA } })
  if (!res.ok) throw new Error(`Request to ${url} failed. Status code: ${res.status} ${res.statusText}`)
  return res.json()
}
