// Real HTTP for tests: serves an app on a free loopback port.
import { serve } from '@hono/node-server'
import type { ChildProcess } from 'node:child_process'
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

/**
 * Waits until a spawned server prints "Listening on" (stdout or stderr); rejects with what it
 * printed after `ms`. Resolves with a reader of everything it has printed so far.
 */
export function untilListening(child: ChildProcess, ms = 40000): Promise<() => string> {
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), ms)
    const onData = (b: Buffer) => {
      output += b.toString()
      if (output.includes('Listening on')) {
        clearTimeout(timer)
        resolve(() => output)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
  })
}
