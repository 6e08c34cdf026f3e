// Where a load's bytes come from: the uploaded blob, or the linked URL fetched under the SSRF
// guard and a size limit.
import type { Deps } from '../../context'
import { addressLiteral, isBlockedAddress } from './addresses'
import { LoadError } from './errors'
import { storedFileKey } from '../../model/resource-file'

export interface SourceInfo {
  url: string | null | undefined
  url_type: string | null | undefined
}

const MAX_REDIRECTS = 5

const UPLOAD_WAIT_MS = 5000

/** The blob key of an uploaded resource's file, where the uploads keep it (model/resource-file). */
export function uploadKey(resourceId: string, url: string): string {
  const key = storedFileKey({ id: resourceId, url, url_type: 'upload' })
  if (!key) throw new LoadError('The uploaded file has no name')
  return key
}

/** Opens the bytes to load. Call again to read them again (a load that restarts). */
export async function openSource(
  deps: Deps,
  resourceId: string,
  res: SourceInfo,
): Promise<ReadableStream<Uint8Array>> {
  if (!res.url) throw new LoadError('The resource has no URL or uploaded file to load')
  if (res.url_type === 'upload') {
    const key = uploadKey(resourceId, res.url)
    // The job is queued in the resource's write batch and the upload is moved into place right
    // after that commits, so a runner that is quick enough may look a moment too early.
    let blob = await deps.blobs.get(key)
    for (let waited = 0; !blob && waited < UPLOAD_WAIT_MS; waited += 100) {
      await new Promise((r) => setTimeout(r, 100))
      blob = await deps.blobs.get(key)
    }
    if (!blob) throw new LoadError('The uploaded file was not found in the file store')
    return blob.body
  }
  return fetchLinked(deps, res.url)
}

/**
 * Why `url` may not be fetched (the SSRF guard: loopback, link-local and private addresses,
 * unless `option`, by default service.loader.allow_private_urls), or undefined when it may.
 * Shared by the loader, the harvesters and the webhooks.
 */
export async function fetchRefusal(
  deps: Deps,
  url: URL,
  option = 'service.loader.allow_private_urls',
): Promise<string | undefined> {
  if (deps.config.bool(option)) return undefined
  const host = url.hostname
  const literal = addressLiteral(host)
  const refusal =
    `Refusing to fetch ${url.origin}: it is a loopback, link-local or private address ` +
    `(${option} allows it)`
  if (literal !== undefined) return isBlockedAddress(literal) ? refusal : undefined
  if (host === 'localhost' || host.endsWith('.localhost')) return refusal
  const resolve = deps.loader?.resolve
  if (!resolve) return undefined // Workers: the platform's fetch cannot reach private ranges
  let addresses: string[]
  try {
    addresses = await resolve(host)
  } catch (e) {
    return `Could not resolve ${host}: ${(e as Error).message}`
  }
  if (!addresses.length || addresses.some(isBlockedAddress)) return refusal
  return undefined
}

async function checkHost(deps: Deps, url: URL) {
  const refusal = await fetchRefusal(deps, url)
  if (refusal) throw new LoadError(refusal)
}

/**
 * Fetches a linked file. Redirects are followed by hand so that every hop's host is checked.
 * A name is checked when resolved here and fetch resolves it again: a DNS answer that changes in
 * between (rebinding) is not caught on Node; Workers' fetch blocks private ranges itself.
 */
async function fetchLinked(deps: Deps, link: string): Promise<ReadableStream<Uint8Array>> {
  let url: URL
  try {
    url = new URL(link)
  } catch {
    throw new LoadError(`Invalid URL: ${link}`)
  }
  const max = deps.config.int('service.loader.max_content_length')
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new LoadError(`Only http and https URLs can be loaded, not ${url.protocol}`)
    await checkHost(deps, url)
    let res: Response
    try {
      res = await fetch(url, { redirect: 'manual' })
    } catch (e) {
      throw new LoadError(`Could not fetch ${url.href}: ${(e as Error).message}`)
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel()
      if (hop >= MAX_REDIRECTS) throw new LoadError(`Too many redirects fetching ${link}`)
      url = new URL(res.headers.get('location')!, url)
      continue
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel()
      throw new LoadError(`Fetching ${url.href} answered HTTP ${res.status}`)
    }
    const length = Number(res.headers.get('content-length'))
    if (length > max) {
      await res.body.cancel()
      throw new LoadError(`The file is larger than the limit of ${max} bytes`)
    }
    return res.body.pipeThrough(limitBytes(max))
  }
}

/** Fails the stream once more than `max` bytes went through (a length header can lie or be absent). */
function limitBytes(max: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0
  return new TransformStream({
    transform(chunk, ctl) {
      seen += chunk.byteLength
      if (seen > max) ctl.error(new LoadError(`The file is larger than the limit of ${max} bytes`))
      else ctl.enqueue(chunk)
    },
  })
}
