// A job worker process for harvest tests: the app's job kinds, with the test harvester registered
// and slowed (each import waits HARVEST_TEST_DELAY_MS), so a test can kill it mid-run.
import { HARVESTERS } from '../../src/jobs/harvest/registry'
import { jobKinds } from '../../src/jobs/kinds'
import { runNodeWorkerProcess } from '../../src/runtime/node-worker'
import { listHarvester } from './harvest'

const delay = Number(process.env.HARVEST_TEST_DELAY_MS ?? 0)
HARVESTERS.push({
  ...listHarvester,
  async toDataset(obj, ctx) {
    if (delay) await new Promise((r) => setTimeout(r, delay))
    return listHarvester.toDataset(obj, ctx)
  },
})

await runNodeWorkerProcess(jobKinds)
