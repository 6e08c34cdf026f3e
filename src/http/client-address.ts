// The client's address, for rate limits and the usage figures' once-a-day counting (never stored).
import type { Config } from '../config/load'

/** What a route handler has: Hono's context (its `env` is the Node adapter's or the Worker's). */
export interface AddressSource {
  req: { raw: Request }
  env?: unknown
}

/**
 * service.ratelimit.client_address_header when set (behind a reverse proxy: the last address of
 * X-Forwarded-For is the one the nearest proxy saw); else the socket's address on Node (the
 * adapter's `incoming`), CF-Connecting-IP on Workers. Undefined when none is known (app.request()).
 */
export function clientAddress(c: AddressSource, config: Config): string | undefined {
  const header = config.str('service.ratelimit.client_address_header')
  if (header) {
    const value = c.req.raw.headers.get(header)
    const last = value?.split(',').at(-1)?.trim()
    if (last) return last
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming
  if (incoming) return incoming.socket?.remoteAddress
  return c.req.raw.headers.get('cf-connecting-ip') ?? undefined
}
