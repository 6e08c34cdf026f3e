// Which background jobs exist: each kind's payload schema and handler, looked up by name.
import type { z } from 'zod'
import type { Job } from './job-queue'

/** A kind of job: enqueue refuses unknown kinds and payloads its schema rejects. */
export interface JobKind<D, S extends z.ZodType = z.ZodType> {
  /** The name stored in job.kind, e.g. 'datapusher_submit'. */
  kind: string
  /** Checked at enqueue (on the JSON that is stored) and again before the handler runs. */
  payload: S
  /** The job's title when enqueue gives none (CKAN's job title, shown by job_list). */
  title?(payload: z.output<S>): string
  /** Does the work; its return value (JSON) becomes the job's result, a throw fails the job. */
  run(deps: D, payload: z.output<S>, job: Job): Promise<unknown>
}

export const defineJobKind = <D, S extends z.ZodType>(kind: JobKind<D, S>) => kind

/** Enqueue of a kind no handler is registered for. */
export class UnknownJobKind extends Error {
  constructor(readonly kind: string) {
    super(`Unknown job kind ${JSON.stringify(kind)}`)
  }
}

/** A payload the kind's schema rejects (or that is not JSON). */
export class InvalidJobPayload extends Error {
  constructor(
    readonly kind: string,
    detail: string,
  ) {
    super(`Invalid payload for job kind ${JSON.stringify(kind)}: ${detail}`)
  }
}

/** The registry: kind → definition. Duplicate names are refused. */
export class JobKinds<D> {
  private readonly byName = new Map<string, JobKind<D>>()

  constructor(kinds: JobKind<D>[] = []) {
    for (const k of kinds) {
      if (!k.kind) throw new Error('A job kind needs a name')
      if (this.byName.has(k.kind))
        throw new Error(`Job kind ${JSON.stringify(k.kind)} is defined twice`)
      this.byName.set(k.kind, k)
    }
  }

  get names(): string[] {
    return [...this.byName.keys()]
  }

  has(kind: string): boolean {
    return this.byName.has(kind)
  }

  /** @throws UnknownJobKind */
  get(kind: string): JobKind<D> {
    const k = this.byName.get(kind)
    if (!k) throw new UnknownJobKind(kind)
    return k
  }

  /**
   * The payload as it will be stored (JSON) once the kind's schema accepts it, and its title.
   * @throws UnknownJobKind, InvalidJobPayload
   */
  prepare(kind: string, payload: unknown): { json: string; title: string | null } {
    const def = this.get(kind)
    let json: string | undefined
    try {
      json = JSON.stringify(payload ?? {})
    } catch (e) {
      throw new InvalidJobPayload(kind, (e as Error).message)
    }
    if (json === undefined) throw new InvalidJobPayload(kind, 'not representable as JSON')
    // what the handler will get is what JSON keeps, so that is what is checked
    const parsed = this.parse(kind, JSON.parse(json))
    return { json, title: def.title ? def.title(parsed) : null }
  }

  /**
   * The payload as the handler receives it.
   * @throws UnknownJobKind, InvalidJobPayload
   */
  parse(kind: string, payload: unknown): unknown {
    const result = this.get(kind).payload.safeParse(payload)
    if (!result.success)
      throw new InvalidJobPayload(
        kind,
        result.error.issues
          .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
          .join('; '),
      )
    return result.data
  }
}
