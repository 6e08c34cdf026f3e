// A small loopback HTTP proxy in front of several server processes (`npm run replicas`, the scale-out bench).
// Not a production load balancer: no health checks, no retries, no TLS.
//   node scripts/round-robin.mjs PORT http://127.0.0.1:5001 http://127.0.0.1:5002 ...
import http from 'node:http'
import { fileURLToPath } from 'node:url'

/** Headers that carry an API key (README "Configuration"): requests with one stick to a process. */
const KEY_HEADERS = ['authorization', 'x-ckan-api-key', 'x-service-api-key']

/** A 32-bit FNV-1a hash: the same key goes to the same process. */
function hash(s) {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/**
 * Listens on 127.0.0.1:`port` and passes each request to one of `targets` (`http://host:port`):
 * anonymous requests in turn, requests with an API key always to the same target (a replica
 * reads its own writes at once, others within their sync interval). Each answer says which
 * target served it in `x-served-by`. Resolves to the listening server.
 */
export function startRoundRobin(port, targets) {
  const backends = targets.map((t) => new URL(t))
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 })
  let turn = 0
  const server = http.createServer((req, res) => {
    const key = KEY_HEADERS.map((h) => req.headers[h]).find((v) => typeof v === 'string' && v !== '')
    const to = backends[key ? hash(key) % backends.length : turn++ % backends.length]
    const up = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': to.host })
        answer.pipe(res)
      },
    )
    up.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`proxy: ${to.host}: ${e.message}`)
    })
    req.pipe(up)
  })
  server.keepAliveTimeout = 30_000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [port, ...targets] = process.argv.slice(2)
  if (!port || !targets.length) {
    console.error('usage: node scripts/round-robin.mjs PORT TARGET_URL...')
    process.exit(2)
  }
  const server = await startRoundRobin(Number(port), targets)
  console.log(`Round-robin proxy listening on http://127.0.0.1:${port} -> ${targets.join(' ')}`)
  const stop = () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
