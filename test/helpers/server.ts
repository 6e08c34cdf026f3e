// Real HTTP for tests: serves an app on a free loopback port.
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { App } from '../../src/app'

export async function listen(app: App): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise((r) => server.close(() => r())),
      })
    })
  })
}
