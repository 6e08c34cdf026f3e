// Starts the real Node server (src/runtime/node.ts) in a child process on a temp database.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCommand } from '../../scripts/start-command'

export interface RunningServer {
  url: string
  dbUrl: string
  dir: string
  child: ChildProcess
  /** Milliseconds from spawn to the "Listening on" line. */
  listenedMs: number
  /** The next whole stderr line matching `re` (from now on), e.g. the SIGUSR2 memory line. */
  nextStderrLine(re: RegExp, timeoutMs?: number): Promise<string>
  stop(): Promise<void>
}

let builtOnce: Promise<void> | undefined

/** A fresh temp database unless `env.DATABASE_URL` names one (then `dir` is ''). */
export async function startServer(env: Record<string, string> = {}, port = 5600 + Math.floor(Math.random() * 300)): Promise<RunningServer> {
  const dir = env.DATABASE_URL ? '' : mkdtempSync(join(tmpdir(), 'ckan-edge-bench-'))
  const dbUrl = env.DATABASE_URL ?? `file:${join(dir, 'catalogue.db')}`
  const spawned = performance.now()
  builtOnce ??= new Promise<void>((resolve, reject) =>
    spawn(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' }).on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`build failed (${code})`)),
    ),
  )
  await builtOnce
  // what `npm start` runs: the compiled entry (the tsx loader would add ~65 MB to every figure)
  const start = startCommand()
  const child = spawn(process.execPath, start.args, {
    env: { ...process.env, ...start.env, DATABASE_URL: dbUrl, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  let listenedMs = 0
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 30000)
    const onData = (b: Buffer) => {
      log += b.toString()
      if (log.includes('Listening on')) {
        listenedMs = performance.now() - spawned
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (b: Buffer) => (log += b.toString()))
    child.on('exit', (code) => reject(new Error(`server exited (${code}):\n${log}`)))
  })
  child.stdout!.resume()
  child.stderr!.resume()
  // stderr split into lines for nextStderrLine
  const waiters = new Set<(line: string) => void>()
  let partial = ''
  child.stderr!.on('data', (b: Buffer) => {
    const parts = (partial + b.toString()).split('\n')
    partial = parts.pop()!
    for (const line of parts) for (const w of [...waiters]) w(line)
  })
  return {
    url: `http://127.0.0.1:${port}`,
    dbUrl,
    dir,
    child,
    listenedMs,
    nextStderrLine: (re, timeoutMs = 10000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(w)
          reject(new Error(`no stderr line matching ${re} within ${timeoutMs} ms`))
        }, timeoutMs)
        const w = (line: string) => {
          if (!re.test(line)) return
          clearTimeout(timer)
          waiters.delete(w)
          resolve(line)
        }
        waiters.add(w)
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
