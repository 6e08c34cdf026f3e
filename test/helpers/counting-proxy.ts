// A loopback HTTP proxy in front of a libSQL server that counts the requests (= round trips) it forwards.
import { createServer, request as httpRequest, Agent, type Server } from 'node:http'
// @ts-expect-error: plain ESM script without types
import { freePort } from '../../scripts/sqld.mjs'

export interface CountingProxy {
  url: string
  counter: { requests: number }
  close(): Promise<void>
}

/** A loopback HTTP proxy in front of one sqld that counts the requests (= round trips) it forwards. */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const t = new URL(target)
  const agent = new Agent({ keepAlive: true })
  const counter = { requests: 0 }
  const server: Server = createServer((req, res) => {
    counter.requests++
    const up = httpRequest(
      { host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers, agent },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      },
    )
    up.on('error', () => res.destroy())
    req.pipe(up)
  })
  const port = (await freePort()) as number
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${port}`,
    counter,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

