// A worker process for tests: the app's job kinds plus `block`, a kind the test steers through files.
import { appendFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import type { Deps } from '../../src/context'
import { defineJobKind, JobKinds } from '../../src/jobs/job-kinds'
import { jobKinds } from '../../src/jobs/kinds'
import { runNodeWorkerProcess } from '../../src/runtime/node-worker'

/**
 * `block {dir}`: appends this process's pid to <dir>/started, then waits until <dir>/release
 * exists, and returns the pid: the test sees who started the job, and decides when it may end.
 */
export const blockKind = defineJobKind({
  kind: 'block',
  payload: z.object({ dir: z.string() }),
  title: () => 'Blocks until released',
  async run(_deps: Deps, { dir }) {
    appendFileSync(join(dir, 'started'), `${process.pid}\n`)
    while (!existsSync(join(dir, 'release'))) await new Promise((r) => setTimeout(r, 50))
    return { pid: process.pid }
  },
})

export const testKinds = new JobKinds<Deps>([
  ...jobKinds.names.map((name) => jobKinds.get(name)),
  blockKind,
])

// run as a process (node --import tsx test/helpers/job-worker.ts); imported, it only defines kinds
if (process.argv[1]?.endsWith('job-worker.ts')) await runNodeWorkerProcess(testKinds)
