// `npm run worker` as a process: a job whose worker is killed (kill -9) runs again elsewhere; SIGTERM finishes the job in hand.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { testKinds } from '../helpers/job-worker'
import { tempDir } from '../helpers/temp-dirs'

let t: TestEnv
const children: ChildProcess[] = []

beforeAll(async () => {
  t = await setup({}, { jobKinds: testKinds })
})

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

interface Worker {
  child: ChildProcess
  output: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Starts a worker process on the test's database; resolves once it says it is running. */
async function startWorker(env: Record<string, string> = {}): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/job-worker.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: `file:${t.file}`,
      SERVICE__JOBS__LEASE_SECONDS: '2',
      SERVICE__JOBS__POLL_MS: '100',
      SERVICE__STORAGE_PATH: join(t.file, '..', 'uploads'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  )
  await waitFor(() => out.includes('running jobs of'), 30_000, () => `no start: ${out}`)
  return { child, output: () => out, exited }
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: () => string) {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out: ${what()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

// empty lines left out: a file read between its creation and the job's write is empty (a run
// once read it as pid 0)
const startedBy = (dir: string) =>
  existsSync(join(dir, 'started'))
    ? readFileSync(join(dir, 'started'), 'utf8').split('\n').filter((l) => l.trim()).map(Number)
    : []

describe('npm run worker', () => {
  it('re-runs the job of a worker killed with kill -9 once its lease expires', async () => {
    const dir = tempDir('ckan-edge-block-')
    const job = await t.deps.jobs.enqueue({ kind: 'block', payload: { dir } })
    const first = await startWorker()
    await waitFor(() => startedBy(dir).length === 1, 15_000, first.output)
    expect(startedBy(dir)).toEqual([first.child.pid])
    first.child.kill('SIGKILL')
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' })
    // the dead worker still holds the job: nothing recorded it
    expect(await t.deps.jobs.show(job.id)).toMatchObject({ status: 'running', attempts: 1 })

    writeFileSync(join(dir, 'release'), '')
    let jobRow: unknown
    const second = await startWorker()
    await waitFor(
      async () => (jobRow = await t.deps.jobs.show(job.id))?.status === 'finished',
      20_000,
      () => `${second.output()} ${JSON.stringify(jobRow)}`,
    )
    const done = (await t.deps.jobs.show(job.id))!
    expect(done).toMatchObject({ attempts: 2, error: null, result: { pid: second.child.pid } })
    // run exactly twice: once by each worker
    expect(startedBy(dir)).toEqual([first.child.pid, second.child.pid])
    second.child.kill('SIGTERM')
    expect(await second.exited).toEqual({ code: 0, signal: null })
  }, 60_000)

  it('on SIGTERM finishes the job in hand, claims no other, and exits 0', async () => {
    const dir = tempDir('ckan-edge-block-')
    const job = await t.deps.jobs.enqueue({ kind: 'block', payload: { dir } })
    const next = await t.deps.jobs.enqueue({ kind: 'block', payload: { dir } })
    // one at a time: the second job waits in the queue
    const worker = await startWorker({ SERVICE__JOBS__CONCURRENCY: '1' })
    await waitFor(() => startedBy(dir).length === 1, 15_000, worker.output)
    worker.child.kill('SIGTERM')
    await waitFor(() => worker.output().includes('finishing the jobs in hand'), 10_000, worker.output)
    // still running: it waits for the job rather than dropping it
    await new Promise((r) => setTimeout(r, 300))
    expect(worker.child.exitCode).toBeNull()
    writeFileSync(join(dir, 'release'), '')
    expect(await worker.exited).toEqual({ code: 0, signal: null })
    expect(await t.deps.jobs.show(job.id)).toMatchObject({
      status: 'finished',
      result: { pid: worker.child.pid },
    })
    expect(await t.deps.jobs.show(next.id)).toMatchObject({ status: 'queued', attempts: 0 })
    expect(startedBy(dir)).toEqual([worker.child.pid])
    await t.deps.jobs.cancel(next.id)
  }, 60_000)
})
