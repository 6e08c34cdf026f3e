// What a harvester (a source type) is: its info, its config check, how it lists a source's remote
// datasets (gather) and how one remote dataset becomes a local dataset dict (import).
import type { ActionContext, Deps } from '../../context'
import type { HarvestSource, LogLevel } from '../../model/harvest'
import type { HarvestFetcher } from './fetch'

/** ckanext-harvest's harvester info (harvesters_info_show). */
export interface HarvesterInfo {
  name: string
  title: string
  description: string
  /** 'Text': the source form shows a config box. */
  form_config_interface?: string
}

/** One remote dataset as gather found it. */
export interface GatheredObject {
  /** The remote identifier (kept as the harvest object's guid). */
  guid: string
  /** The remote record as text (a JSON dict, an RDF graph's dataset...). */
  content: string
  /** The remote's own modification time, when it says one. */
  modified?: string
  extras?: Record<string, string>
}

export interface GatherContext {
  deps: Deps
  source: HarvestSource
  /** The source's config, parsed. */
  config: Record<string, unknown>
  /** This run's job id. */
  jobId: string
  /**
   * Where the last finished run of this source without errors got to (ckanext-harvest's last
   * error-free job): its gather start (for a `since` filter) and the cursor it left. Absent: no
   * such run yet, or `force_all`.
   */
  previous?: { gather_started: string; cursor: string | null }
  fetch: HarvestFetcher
  /** service.harvest.page_size. */
  pageSize: number
  /** service.harvest.max_objects: gather stops listing past it (a gather error says so). */
  maxObjects: number
  log(level: LogLevel, message: string): void
  /** A problem that does not stop the run (a page that failed, a record that cannot be read). */
  error(message: string): void
  /** The listing is complete: local datasets of guids it did not list are deleted. */
  fullListing(): void
  /** The guids this source's local datasets were written from (to tell what an id listing lacks). */
  knownGuids(): string[]
  /** A remote dataset known to be gone (incremental sources that report deletions). */
  deleted(guid: string): void
  /** Where the next incremental run starts (kept on the job). */
  setCursor(cursor: string): void
}

export interface ImportContext {
  deps: Deps
  source: HarvestSource
  config: Record<string, unknown>
  /** The job and the harvest object being imported (for values that name them). */
  jobId: string
  objectId: string
  log(level: LogLevel, message: string): void
}

/** A local dataset dict to write, or the reason the object is skipped. */
export type ImportResult =
  | { dataset: Record<string, unknown>; /** a preferred local id (CKAN sources keep the remote id) */ id?: string }
  | { skip: string }

export interface Harvester {
  info: HarvesterInfo
  /**
   * Checks (and may normalise) the parsed config; throws an Error whose message says what is wrong.
   * `ctx`: the caller's, to look up what the config names (users, groups).
   */
  validateConfig?(config: Record<string, unknown>, ctx: ActionContext): void | Promise<void>
  /** Lists the source's remote datasets, page by page. */
  gather(ctx: GatherContext): AsyncIterable<GatheredObject>
  /** The dataset dict one remote record becomes (before the source's org and harvest extras). */
  toDataset(obj: { guid: string; content: string; extras: Record<string, string> }, ctx: ImportContext): Promise<ImportResult> | ImportResult
  /** A link to the remote record, for reports. */
  originalUrl?(source: HarvestSource, guid: string): string | undefined
}

/** A harvester's failure with a message meant for the job report. */
export class HarvestError extends Error {
  /** `response`: the HTTP error answer that caused it (its status and the start of its body). */
  constructor(
    message: string,
    readonly response?: { status: number; body: string },
  ) {
    super(message)
  }
}
