// A catalogue served on a real loopback socket for the client tests: its `site_url` is the socket's
// own address (so resource URLs point back to it), and every request's method, path and headers are
// kept in `seen`, to check what a client really sent.
import type { App } from '../../src/app'
import { listen } from '../helpers/server'
import { setup, type TestEnv } from '../helpers/setup'

export type ApiCompat = '2.9' | '2.11'

export interface Seen {
  method: string
  path: string
  headers: Headers
}

export interface Served {
  t: TestEnv
  url: string
  seen: Seen[]
  close: () => Promise<void>
}

/** A catalogue answering as `apiCompat` on 127.0.0.1, with `overrides` of the test profile. */
export async function served(apiCompat: ApiCompat, overrides: Record<string, string> = {}): Promise<Served> {
  let app: App | undefined
  const seen: Seen[] = []
  const front = {
    fetch: (req: Request, env?: unknown) => {
      const u = new URL(req.url)
      seen.push({ method: req.method, path: u.pathname + u.search, headers: req.headers })
      return app!.fetch(req, env as never)
    },
  }
  const srv = await listen(front as unknown as App)
  const t = await setup({ 'service.api_compat': apiCompat, 'service.site_url': srv.url, ...overrides })
  app = t.app
  return { t, url: srv.url, seen, close: srv.close }
}
