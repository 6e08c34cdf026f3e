// Node: runs datastore_search_sql statements read-only and time-limited (STACK.md §5 and its trap).
// - A fixed number of `libsql/promise` connections, opened read-only (URI `mode=ro`), one query
//   each at a time. A connection keeps its prepared statements for as long as it lives, and is
//   replaced after an interrupted query or once it holds STATEMENTS_PER_CONNECTION of them (see
//   Pool: the garbage collector finalizing a statement of a busy connection blocks the thread).
// - libsql/promise computes a query's first row off the main thread but steps every later row
//   synchronously on it, where no timer can fire. So each query is packed into a single-row
//   aggregate (all rows as one JSON text): the whole query runs off-thread and stays interruptible.
// - The EXPLAIN table check runs on a separate synchronous read-only connection.
import Database from 'libsql'
import PromiseDatabase from 'libsql/promise'
import { SqlTimeout, type SqlColumn, type SqlResult, type SqlRunner } from '../datastore/store'

/** The name tablesRead reports for a virtual table it cannot name (never a DataStore table). */
export const UNKNOWN_VIRTUAL_TABLE = 'sqlite_virtual_table'

type AsyncDb = InstanceType<typeof PromiseDatabase>
interface AsyncStatement {
  reader: boolean
  columns(): { name: string; table: string | null; column: string | null }[]
  raw(on?: boolean): AsyncStatement
  all(args?: unknown[]): Promise<unknown[][]>
}
interface Explained {
  opcode: string
  p2: number
  p3: number
  p4: string | null
  p5: number
}

// SQLite's json_array() has at most 127 arguments: rows are arrays of chunks of this many columns.
const CHUNK = 100
// OpenRead's p5 flag saying p2 is a register holding the root page, not the page itself.
const P2_IS_REGISTER = 0x10
// Re-issued until the query settles: an interrupt that lands before its first step is a no-op.
const INTERRUPT_EVERY_MS = 20
// Statements a connection keeps (searches repeat a few shapes; search_sql texts rarely repeat).
const STATEMENTS_PER_CONNECTION = 200
// Page cache of each runner connection, in KiB (memory taken only as pages are read).
const PAGE_CACHE_KIB = 16384

/** A `file:` URI opening the database read-only (the libsql `readonly` option is ignored). */
export function readOnlyUri(path: string): string {
  // a `file:` URL may carry a query of its own; a plain path is taken literally
  const file = path.startsWith('file:') ? path.slice(5).replace(/\?.*$/, '') : path
  return `file:${file.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}?mode=ro`
}

/** Runs `sql` as one aggregate row: `[[quoted values of row 0 in chunks], …]` as JSON text. */
function packedSql(sql: string, columns: number, maxRows: number): string {
  const names = Array.from({ length: columns }, (_, i) => `c${i}`)
  const chunks: string[] = []
  for (let i = 0; i < columns; i += CHUNK) {
    chunks.push(
      `json_array(${names
        .slice(i, i + CHUNK)
        .map((c) => `quote(${c})`)
        .join(', ')})`,
    )
  }
  // The LIMIT keeps the inner query a co-routine, so rows keep their order into the aggregate.
  return (
    `WITH q(${names.join(', ')}) AS (\n${sql}\n) SELECT json_group_array(json_array(${chunks.join(', ')})) ` +
    `FROM (SELECT * FROM q LIMIT ${Math.max(0, Math.floor(maxRows))})`
  )
}

/** Reads back one value written by SQLite's quote(): exact for reals (it round-trips them). */
export function unquote(text: string): unknown {
  if (text === 'NULL') return null
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'")
  if (text.startsWith("X'")) {
    return Uint8Array.from(text.slice(2, -1).match(/../g) ?? [], (h) => parseInt(h, 16))
  }
  if (text === 'Inf' || text === '-Inf') return text === 'Inf' ? Infinity : -Infinity
  return Number(text)
}

function unpack(json: string): unknown[][] {
  const rows = JSON.parse(json) as string[][][]
  return rows.map((chunks) => chunks.flat().map(unquote))
}

const isInterrupt = (e: unknown) => (e as { code?: string }).code === 'SQLITE_INTERRUPT'

/**
 * A fixed number of connections, one query each at a time, waiters served in order. When the
 * garbage collector finalizes a statement, SQLite takes its connection's mutex on the main thread,
 * which waits for a query running on that connection to end (measured: the event loop stopped for
 * the whole 200 s query). So no statement of a live connection ever becomes garbage: each keeps
 * its statements (StatementCache) and is retired whole, idle, when the cache is full or after an
 * interrupt; a retired connection runs nothing, so finalizing its statements never waits. (The
 * row iterators of cached statements are garbage after each query: measured harmless.)
 */
class Pool {
  private free: AsyncDb[] = []
  private waiting = new Set<{ take(db: AsyncDb): void; fail(e: Error): void }>()
  readonly live = new Set<AsyncDb>()
  constructor(
    private open: () => AsyncDb,
    size: number,
  ) {
    for (let i = 0; i < size; i++) this.free.push(open())
    this.free.forEach((db) => this.live.add(db))
  }
  /** A connection, or SqlTimeout if none frees up before the deadline. */
  acquire(deadline: number): Promise<AsyncDb> {
    const db = this.free.pop()
    if (db) return Promise.resolve(db)
    return new Promise((resolve, reject) => {
      const timeout = () => waiter.fail(new SqlTimeout('Query took too long'))
      const timer = setTimeout(timeout, deadline - Date.now())
      const settle = () => {
        clearTimeout(timer)
        this.waiting.delete(waiter)
      }
      const waiter = {
        take: (conn: AsyncDb) => (settle(), resolve(conn)),
        fail: (e: Error) => (settle(), reject(e)),
      }
      this.waiting.add(waiter)
    })
  }
  /** Hands a used connection on; `retire`: replaced by a fresh one first. True if replaced. */
  release(used: AsyncDb, retire: boolean): boolean {
    let db = used
    if (retire) {
      try {
        db = this.open() // about 1 ms, even while other connections run long queries
        this.live.delete(used)
        used.close()
        this.live.add(db)
      } catch {
        // keep serving on the used connection rather than shrink the pool
      }
    }
    const [next] = this.waiting
    if (next) next.take(db)
    else this.free.push(db)
    return db !== used
  }
  /** Fails every waiter (on close). */
  drain() {
    for (const w of [...this.waiting]) w.fail(new Error('The SQL runner is closed'))
  }
}

/** Interrupts `db` from the deadline on, repeatedly, until stopped. */
function watchdog(db: AsyncDb, deadline: number) {
  let repeat: ReturnType<typeof setInterval> | undefined
  const dog = {
    fired: false,
    stop() {
      clearTimeout(timer)
      clearInterval(repeat)
    },
  }
  const timer = setTimeout(() => {
    dog.fired = true
    db.interrupt()
    repeat = setInterval(() => db.interrupt(), INTERRUPT_EVERY_MS)
  }, deadline - Date.now())
  return dog
}

/**
 * EXPLAIN output of `sql` on the synchronous connection. An EXPLAIN statement read with all() and
 * left un-reset pins the connection's read snapshot: later reads missed newer tables and rows.
 * get() resets the statement when done (it only re-reads the first opcode).
 */
function explain(checker: Database.Database, sql: string): Explained[] {
  const stmt = checker.prepare(`EXPLAIN ${sql}`)
  const ops = stmt.all() as Explained[]
  stmt.get()
  return ops
}

/** Table names by root page, via sqlite_schema (indexes name their table). */
function rootPageNames(checker: Database.Database) {
  const byPage = checker.prepare(
    "SELECT CASE type WHEN 'index' THEN tbl_name ELSE name END FROM sqlite_schema WHERE rootpage = ?",
  )
  return (page: number): string => {
    if (page === 1) return 'sqlite_schema'
    const row = byPage.raw(true).get([page]) as [string] | undefined
    return row?.[0] ?? UNKNOWN_VIRTUAL_TABLE
  }
}

/** The vtab pointers EXPLAIN shows for json_each / json_tree, which read only their argument. */
function pureVirtualTables(checker: Database.Database): Set<string> {
  const ops = explain(checker, "SELECT * FROM json_each('[]'), json_tree('[]')")
  return new Set(ops.filter((op) => op.opcode === 'VOpen').map((op) => String(op.p4)))
}

export function openNodeSqlRunner(path: string, opts: { connections?: number } = {}): SqlRunner {
  const uri = readOnlyUri(path)
  const pool = new Pool(() => new PromiseDatabase(uri, {}), Math.max(1, opts.connections ?? 2))
  const checker = new Database(uri)
  const tableAt = rootPageNames(checker)
  const pureVtabs = pureVirtualTables(checker)
  const busy = new Set<AsyncDb>()
  const statements = new WeakMap<AsyncDb, Map<string, AsyncStatement>>()
  let closed = false

  return {
    concurrent: true,
    async tablesRead(sql) {
      const ops = explain(checker, sql)
      const names = new Set<string>()
      for (const op of ops) {
        if (op.opcode === 'VOpen') {
          if (!pureVtabs.has(String(op.p4))) names.add(UNKNOWN_VIRTUAL_TABLE)
        } else if (['OpenRead', 'OpenWrite', 'ReopenIdx'].includes(op.opcode)) {
          const unknown = op.p3 !== 0 || (op.p5 & P2_IS_REGISTER) !== 0
          names.add(unknown ? UNKNOWN_VIRTUAL_TABLE : tableAt(op.p2))
        }
      }
      return [...names]
    },

    async run(sql, { timeoutMs, maxRows, args = [] }): Promise<SqlResult> {
      if (closed) throw new Error('The SQL runner is closed')
      const deadline = Date.now() + timeoutMs
      const db = await pool.acquire(deadline)
      busy.add(db)
      const dog = watchdog(db, deadline)
      let cache = statements.get(db)
      if (!cache) {
        statements.set(db, (cache = new Map()))
        // SQLite's default 2 MB page cache made a ranked full-text page 3 ms slower than on the
        // main connection (16 MB): the index pages were read from the OS again for every query
        await db.exec(`PRAGMA cache_size=-${PAGE_CACHE_KIB}`)
      }
      const prepare = async (text: string) => {
        let st = cache.get(text)
        if (!st) cache.set(text, (st = (await db.prepare(text)) as AsyncStatement))
        return st
      }
      try {
        const stmt = await prepare(sql)
        // `reader` only means "returns columns" (INSERT … RETURNING has some): mode=ro and the
        // CTE wrapping below, which accepts nothing but a SELECT, are what stop writes.
        if (!stmt.reader)
          throw new Error(
            'cannot execute a statement that returns no rows in a read-only transaction',
          )
        const columns: SqlColumn[] = stmt
          .columns()
          .map(({ name, table, column }) => ({ name, table, column }))
        const packed = await prepare(packedSql(sql, columns.length, maxRows))
        if (dog.fired) throw new SqlTimeout('Query took too long')
        const [[json] = []] = await packed.raw(true).all(args)
        return { columns, rows: unpack(String(json ?? '[]')) }
      } catch (e) {
        if (dog.fired && (isInterrupt(e) || e instanceof SqlTimeout)) {
          throw new SqlTimeout('Query took too long')
        }
        throw e
      } finally {
        dog.stop()
        busy.delete(db)
        const retire = dog.fired || cache.size >= STATEMENTS_PER_CONNECTION
        // Its statements are let go only once it is replaced: a connection kept on (no fresh one
        // could be opened) would otherwise see them finalized during one of its next queries.
        if (!closed && pool.release(db, retire)) statements.delete(db)
      }
    },

    close() {
      if (closed) return
      closed = true
      pool.drain()
      for (const db of busy) db.interrupt()
      for (const db of pool.live) db.close()
      checker.close()
    },
  }
}
