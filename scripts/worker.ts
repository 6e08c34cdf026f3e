// `npm run worker`: runs background jobs in a process of its own (see src/runtime/node-worker.ts).
import { jobKinds } from '../src/jobs/kinds'
import { runNodeWorkerProcess } from '../src/runtime/node-worker'

await runNodeWorkerProcess(jobKinds)
