// Requests to remote catalogues: every hop under the loader's SSRF guard, with a time limit and a
// size limit, failures as HarvestErrors whose message ends in the job report.
import type { Deps } from '../../context'
import { fetchRefusal } from '../loader/source'
import { HarvestError } from './types'

export interface FetchedText {
  url: string
  status: number
  contentType: string
  text: string
}

export interface HarvestFetcher {
  /** GETs `url` and reads the body as text; HTTP errors, timeouts and oversize bodies throw. */
  text(url: string, opts?: { accept?: string; headers?: Record<string, string> }): Promise<FetchedText>
  /** As text(), then JSON.parse (a body that is not JSON throws). */
  json(url: string, opts?: { headers?: Record<string, string> }): Promise<unknown>
}

const MAX_REDIRECTS = 5
/** How much of an HTTP error's answer is read (for the error's `response`). */
const ERROR_BODY_BYTES = 65_536

export function harvestFetcher(deps: Deps, limits: { timeoutMs: number; maxBytes: number }): HarvestFetcher {
  async function text(link: string, opts: { accept?: string; headers?: Record<string, string> } = {}): Promise<FetchedText> {
    let url: URL
    try {
      url = new URL(link)
    } catch {
      throw new HarvestError(`Invalid URL: ${link}`)
    }
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), limits.timeoutMs)
    try {
      for (let hop = 0; ; hop++) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
          throw new HarvestError(`Only http and https URLs can be harvested, not ${url.protocol}`)
        const refusal = await fetchRefusal(deps, url)
        if (refusal) throw new HarvestError(refusal)
        let res: Response
        try {
          res = await fetch(url, {
            redirect: 'manual',
            signal: controller.signal,
            headers: { ...(opts.accept ? { accept: opts.accept } : {}), ...opts.headers },
          })
        } catch (e) {
          if (controller.signal.aborted)
            throw new HarvestError(`Timed out after ${limits.timeoutMs / 1000} s fetching ${url.href}`)
          throw new HarvestError(`Could not fetch ${url.href}: ${(e as Error).message}`)
        }
        if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
          await res.body?.cancel()
          if (hop >= MAX_REDIRECTS) throw new HarvestError(`Too many redirects fetching ${link}`)
          url = new URL(res.headers.get('location')!, url)
          continue
        }
        if (!res.ok) {
          // the start of the answer is kept: an API's error body says why (a refused parameter...)
          const body = await readLimited(res, ERROR_BODY_BYTES, url.href, controller.signal, limits.timeoutMs).catch(() => '')
          throw new HarvestError(`Fetching ${url.href} answered HTTP ${res.status}`, { status: res.status, body })
        }
        const body = await readLimited(res, limits.maxBytes, url.href, controller.signal, limits.timeoutMs)
        return { url: url.href, status: res.status, contentType: res.headers.get('content-type') ?? '', text: body }
      }
    } finally {
      clearTimeout(timer)
    }
  }
  return {
    text,
    async json(link, opts = {}) {
      const got = await text(link, { accept: 'application/json', headers: opts.headers })
      try {
        return JSON.parse(got.text)
      } catch (e) {
        throw new HarvestError(`The answer of ${got.url} is not valid JSON: ${(e as Error).message}`)
      }
    },
  }
}

async function readLimited(res: Response, max: number, href: string, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const length = Number(res.headers.get('content-length'))
  if (length > max) {
    await res.body?.cancel()
    throw new HarvestError(`The answer of ${href} is larger than the limit of ${max} bytes`)
  }
  if (!res.body) return ''
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let seen = 0
  let out = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      seen += value.byteLength
      if (seen > max) {
        await reader.cancel()
        throw new HarvestError(`The answer of ${href} is larger than the limit of ${max} bytes`)
      }
      out += decoder.decode(value, { stream: true })
    }
  } catch (e) {
    if (e instanceof HarvestError) throw e
    if (signal.aborted) throw new HarvestError(`Timed out after ${timeoutMs / 1000} s fetching ${href}`)
    throw new HarvestError(`Could not read the answer of ${href}: ${(e as Error).message}`)
  }
  return out + decoder.decode()
}
