// The catalogue's job kinds (kind → payload schema and handler): what the queue accepts and runners run.
import type { Deps } from '../context'
import { JobKinds, type JobKind } from './job-kinds'
import { xloaderJob } from './xloader'
import { harvestGatherJob, harvestImportJob } from './harvest/kinds'
import { backupJob } from './backup'
import { transferJob } from './transfer'
import { datastoreProfileJob } from './datastore-profile'
import { webhookDispatchJob } from './webhooks'

/** Every kind, in one list; a new kind is defined in its own file and added here. */
const KINDS: JobKind<Deps>[] = [
  xloaderJob as JobKind<Deps>,
  harvestGatherJob as JobKind<Deps>,
  harvestImportJob as JobKind<Deps>,
  backupJob as JobKind<Deps>,
  transferJob as JobKind<Deps>,
  datastoreProfileJob as JobKind<Deps>,
  webhookDispatchJob as JobKind<Deps>,
]

export const jobKinds = new JobKinds<Deps>(KINDS)
