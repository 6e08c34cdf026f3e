// Second process of the concurrent-claim test: claims and finishes jobs until none is left, prints their ids.
import { createInterface } from 'node:readline'
import { createClient } from '@libsql/client'
import { JobKinds } from '../../src/jobs/job-kinds'
import { libsqlJobQueue } from '../../src/jobs/job-queue'

const [file, queueName = 'default'] = process.argv.slice(2)
const client = createClient({ url: `file:${file}`, concurrency: 1 })
await client.execute('PRAGMA busy_timeout=5000')
const now = () => new Date().toISOString().slice(0, 23) + '000'
const queue = libsqlJobQueue(client, {
  now,
  newId: () => crypto.randomUUID(),
  kinds: new JobKinds([]),
})

console.log('ready')
// start together with the test process: on its "go"
await new Promise<void>((resolve) =>
  createInterface({ input: process.stdin }).once('line', () => resolve()),
)
const ids: string[] = []
for (;;) {
  const job = await queue.claim([queueName], 60_000)
  if (!job) break
  ids.push(job.id)
  if (!(await queue.finish(job, { by: process.pid }))) throw new Error(`lost ${job.id}`)
}
console.log(JSON.stringify(ids))
client.close()
process.exit(0)
