// Per-process follower of the change log: derived state (caches, config overlay, search) catches up here.
import { asc, desc, gt, sql } from 'drizzle-orm'
import { changeLog } from '../db/schema'
import type { CatalogDb } from '../db/types'

export interface Change {
  seq: number
  entity_type: string
  entity_id: string
  op: string
}

export type ChangeListener = (changes: Change[]) => void | Promise<void>

/** Rows appended to the change log by a write, to be put in that write's batch. */
export function changeRow(entity_type: string, entity_id: string, op = 'upsert') {
  return { entity_type, entity_id, op }
}

/**
 * Follows the change log of one database. `catchUp()` applies every entry committed before
 * the call began to each listener, so a read that awaits it sees every write that committed
 * before the read started, whichever process or isolate made it. Concurrent callers share
 * the queries: a caller joins the next round, never one already in flight.
 */
export class ChangeFeed {
  private seq: number | null = null
  private listeners: ChangeListener[] = []
  private running: Promise<void> | null = null
  private next: Promise<void> | null = null

  private readonly tail
  private readonly head

  /**
   * `headProbe` returns the newest seq cheaply (Node injects a synchronous prepared statement,
   * about 2 µs); without it each round asks the database for the tail.
   */
  constructor(
    db: CatalogDb,
    private readonly headProbe?: () => number | Promise<number>,
  ) {
    // Prepared once: this runs before most reads, so it must stay cheap.
    this.tail = db
      .select({
        seq: changeLog.seq,
        entity_type: changeLog.entity_type,
        entity_id: changeLog.entity_id,
        op: changeLog.op,
      })
      .from(changeLog)
      .where(gt(changeLog.seq, sql.placeholder('seq')))
      .orderBy(asc(changeLog.seq))
      .limit(2000)
      .prepare()
    this.head = db
      .select({ seq: changeLog.seq })
      .from(changeLog)
      .orderBy(desc(changeLog.seq))
      .limit(1)
      .prepare()
  }

  get lastSeq() {
    return this.seq ?? 0
  }

  subscribe(listener: ChangeListener) {
    this.listeners.push(listener)
  }

  catchUp(): Promise<void> {
    if (!this.running) {
      this.running = this.round().finally(() => (this.running = null))
      return this.running
    }
    // Someone is mid-round: it may have read the log before our caller's request began.
    this.next ??= this.running.then(() => {
      this.next = null
      return this.catchUp()
    })
    return this.next
  }

  private async round() {
    if (this.seq === null) {
      // A fresh process has no derived state yet: start from the current end of the log.
      const [last] = await this.head.all()
      this.seq = last?.seq ?? 0
      return
    }
    if (this.headProbe && (await this.headProbe()) <= this.seq) return
    for (;;) {
      const rows: Change[] = await this.tail.all({ seq: this.seq })
      if (rows.length === 0) return
      for (const l of this.listeners) await l(rows)
      this.seq = rows[rows.length - 1]!.seq
      if (rows.length < 2000) return
    }
  }
}
