// Group commit: write batches that arrive together share one transaction (one commit, shared pages).
import type { BatchItem } from 'drizzle-orm/batch'
import type { RawStatement, WriteExecutor } from '../db/executor'

/** A drizzle query, or plain SQL with its arguments. */
export type Stmt = BatchItem<'sqlite'> | RawStatement

interface Pending {
  stmts: RawStatement[]
  resolve: () => void
  reject: (err: unknown) => void
}

type Compilable = { toSQL?(): Query; getQuery?(): Query }
type Query = { sql: string; params: unknown[] }

const toRaw = (s: Stmt): RawStatement => {
  if ('sql' in s && 'args' in s) return s as RawStatement
  const c = s as unknown as Compilable
  // Query builders have toSQL(); db.run(sql`...`) has getQuery().
  const q = c.toSQL ? c.toSQL() : c.getQuery!()
  return { sql: q.sql, args: q.params as RawStatement['args'] }
}

const LOGS = /^\s*insert\s+(or\s+\w+\s+)?into\s+["`]?change_log["`]?/i

/**
 * Every committed write moves the change log: a batch that logs nothing itself (follows, views,
 * ratings, task statuses, dashboards, ...) gets a row no listener acts on, so an ETag made from
 * the log position (http/http-cache.ts) changes with any write to what an answer holds.
 */
export function logged(stmts: RawStatement[]): RawStatement[] {
  if (stmts.length === 0 || stmts.some((s) => LOGS.test(s.sql))) return stmts
  return [...stmts, { sql: "INSERT INTO change_log (entity_type, entity_id, op) VALUES ('other', '', 'touch')", args: [] }]
}

/** Commits a batch of statements atomically: all of them or none. */
export interface BatchWriter {
  write(stmts: Stmt[]): Promise<void>
}

/**
 * Collects the batches submitted during one turn of the event loop and commits them as one
 * transaction. Each caller still gets all-or-nothing: if the combined transaction fails, every
 * batch is retried on its own so that only the faulty one fails.
 */
export class WriteBatcher implements BatchWriter {
  private queue: Pending[] = []
  private scheduled = false

  constructor(
    private readonly exec: WriteExecutor,
    /** Called after every commit (the change feed must look at the log again). */
    private readonly onCommit: () => void = () => {},
    private readonly maxStatements = 5000,
  ) {}

  write(stmts: Stmt[]): Promise<void> {
    const raw = logged(stmts.map(toRaw))
    return new Promise((resolve, reject) => {
      this.queue.push({ stmts: raw, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setTimeout(() => void this.flush(), 0)
      }
    })
  }

  private async flush() {
    this.scheduled = false
    while (this.queue.length) {
      const group: Pending[] = []
      let size = 0
      while (
        this.queue.length &&
        (group.length === 0 || size + this.queue[0]!.stmts.length <= this.maxStatements)
      ) {
        const p = this.queue.shift()!
        group.push(p)
        size += p.stmts.length
      }
      await this.commit(group)
    }
  }

  private async commit(group: Pending[]) {
    if (group.length > 1) {
      try {
        await this.exec(group.flatMap((g) => g.stmts))
        this.onCommit()
        for (const g of group) g.resolve()
        return
      } catch {
        // One of them is at fault (e.g. a name taken meanwhile): find out which, one by one.
      }
    }
    for (const g of group) {
      try {
        await this.exec(g.stmts)
        this.onCommit()
        g.resolve()
      } catch (e) {
        g.reject(e)
      }
    }
  }
}

/**
 * One transaction per write, on the caller's own I/O: no timer, no shared commit. For runtimes
 * where a request may not settle another request's promises (workerd).
 */
export function directWriter(exec: WriteExecutor, onCommit: () => void = () => {}): BatchWriter {
  return {
    async write(stmts) {
      await exec(logged(stmts.map(toRaw)))
      onCommit()
    },
  }
}
