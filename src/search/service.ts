// Keeps this process's search index in step with the change log; loads and writes snapshots.
import { needsUsage, UsageOverlay } from './usage-overlay'
import { systemContext, type ActionContext, type Deps } from '../context'
import { pruneStatement, type Change } from '../model/changes'
import { packageDicts } from '../model/package'
import { analyzeGenericIndexTokens, analyzeGenericQueryTokens, analyzeIndexTokens, analyzeQueryTokens, type Token } from './analysis'
import { indexDocument, phraseSources, type DocumentOptions } from './document'
import type { PhraseChecker, SearchIndex, SearchService } from './index'
import { MemoryIndex } from './minisearch'
import { decodeSnapshot, encodeSnapshot } from './snapshot'
import { shardOf } from './shards'
import { SCHEMING_KEY } from '../scheming/store'

const BATCH = 500
/**
 * Datasets read at a time by a full build: their dicts and rows are the build's garbage, kept small
 * so that a shard's object peaks near its index's size (500 at a time added ~10 MB to the peak).
 */
const BUILD_BATCH = 100
/** Datasets listed per query when the index is built from the datasets. */
const ID_PAGE = 5000
/** Bytes per snapshot row (read one row at a time: see readSnapshot). */
const CHUNK = 2 * 1024 * 1024
/**
 * Write a new snapshot once this many datasets were re-indexed since the last one, or a twentieth
 * of the index if more: a snapshot is the whole index (155 MB at 100,000 datasets, about a second
 * of encoding), so a big catalogue under writes writes one every 5 % of its size.
 */
const SNAPSHOT_AFTER = 1000
const SNAPSHOT_SHARE = 20
/**
 * ...or once no change came for this long (catching up first): a process restarted after a quiet
 * moment then loads the snapshot instead of re-indexing up to 1,000 recent datasets.
 */
const IDLE_SNAPSHOT_MS = 10_000

type Dict = Record<string, unknown>

/** The change-log entry of a new scheming snapshot. */
const isSchemasChange = (c: Change) => c.entity_type === 'config' && c.entity_id === SCHEMING_KEY

export interface SearchServiceOptions {
  /** Write snapshots (off for tests that count queries; on by default). */
  snapshots?: boolean
  /**
   * Callers come through `through(io)` with their own I/O (workerd): the index keeps no phrase
   * checker of its own and no snapshot is written in the background.
   */
  perRequest?: boolean
  /** Quiet time after which the index is caught up and snapshotted (default IDLE_SNAPSHOT_MS). */
  idleSnapshotMs?: number
  /**
   * Called once the index is loaded (snapshot and log tail, or a full build) and after every
   * snapshot it writes: moments that leave much garbage (Node: a full GC, so that a process does
   * not hold the load's or the snapshot's buffers until its heap next fills up).
   */
  afterBulkWork?: () => void
  /**
   * This index is one shard of a split one (Workers' search tier): it holds only the datasets
   * whose id `shardOf` puts in shard `index` of `of`.
   */
  shard?: { index: number; of: number }
  /**
   * Where snapshots live (default: the catalogue's search_snapshot table, whose writes also prune
   * the change log). A shard keeps its own (a Durable Object's storage) and prunes nothing.
   */
  snapshotStore?: SnapshotStore
}

/** A place for the index's snapshots. */
export interface SnapshotStore {
  read(io: SearchIo): Promise<{ seq: number; bytes: Uint8Array } | null>
  write(io: SearchIo, seq: number, bytes: Uint8Array): Promise<void>
}

/** What the service reads through: a process's services (Node) or one request's (Workers). */
type SearchIo = Omit<Deps, 'search'>

/**
 * One per process (isolate). Before a search, `ready()` re-reads every dataset the change log
 * named since the last search, so a search sees every write committed before it started. On Node
 * concurrent callers share one load and one refresh; `through(io)` gives a runtime that forbids
 * that (workerd) a view whose every wait is its own request's I/O.
 */
export class MemorySearchService implements SearchService {
  private index: MemoryIndex | null = null
  private loading: Promise<void> | null = null
  /** Loads under way (a request's own on Workers, or the shared one). */
  private loads = 0
  private running: Promise<void> | null = null
  /** Names pending a re-read, each with the generation of the change that named it. */
  private pending = new Map<string, number>()
  private pendingGroups = new Map<string, number>()
  private pendingVocabularies = new Map<string, number>()
  private generation = 0
  /** perRequest: per dataset, the stamp of the newest read put (older concurrent reads lose). */
  private putStamps = new Map<string, number>()
  private stamp = 0
  private vocabularies: Map<string, string> | null = null
  private sinceSnapshot = 0
  private snapshotting = false
  /** The change-log seq the index covers (every change up to it applied). */
  private coveredSeq = 0
  /** The change-log seq the index in memory covers (0 before it is loaded). */
  get seq(): number {
    return this.coveredSeq
  }
  private idleTimer: ReturnType<typeof setTimeout> | null = null
  /** stop() was called: no more snapshots (the database is being closed). */
  private stopped = false
  /** The index was built from the datasets, not from a snapshot, and none has been written since. */
  private unsnapshotted = false
  /** The next load builds from the datasets (the schemas changed since any snapshot). */
  private skipSnapshot = false
  /** Where the index in memory came from: a snapshot (and the log after it) or the datasets. */
  loadedFrom: 'snapshot' | 'datasets' | null = null

  constructor(
    private readonly deps: SearchIo,
    private readonly opts: SearchServiceOptions = {},
  ) {
    this.unsubscribe = deps.changes.subscribe((changes) => this.onChanges(changes))
  }

  private readonly unsubscribe: () => void

  private onChanges(changes: Change[]) {
    const gen = ++this.generation
    const schemasChanged = changes.some(isSchemasChange)
    // new metadata schemas change every document (which fields are text, which are lists): the
    // index is built again from the datasets, not from a snapshot made under the old ones
    if (schemasChanged) this.skipSnapshot = true
    if (schemasChanged || changes.some((c) => c.entity_type === '*')) {
      // the log was pruned past what this index covers: the next search loads it afresh (the
      // snapshot, which covers every pruned row, and the log after it)
      if (!this.loading) this.index = null
      this.pending.clear()
      this.pendingGroups.clear()
      this.pendingVocabularies.clear()
      this.vocabularies = null
      return
    }
    // no index and none being loaded: the next load reads what these changed (an isolate whose
    // searches go to the shards would otherwise collect every changed id for ever)
    if (!this.index && this.loads === 0) return
    for (const c of changes) {
      if (c.entity_type === 'package') {
        if (this.mine(c.entity_id)) this.pending.set(c.entity_id, gen)
      }
      else if (c.entity_type === 'group') this.pendingGroups.set(c.entity_id, gen)
      else if (c.entity_type === 'vocabulary') {
        this.pendingVocabularies.set(c.entity_id, gen)
        this.vocabularies = null
      }
    }
    if (changes.length) this.scheduleIdleSnapshot()
  }

  /** A snapshot (after catching up) once no change has come for IDLE_SNAPSHOT_MS. */
  private scheduleIdleSnapshot() {
    if (this.opts.snapshots === false || this.opts.perRequest || !this.index || this.stopped) return
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null
      if (!this.hasPending && this.sinceSnapshot === 0) return
      if (this.snapshotting) return this.scheduleIdleSnapshot()
      this.snapshotting = true
      // read the log first: the snapshot then covers every change up to its head
      this.deps.changes
        .catchUp()
        .then(() => this.writeSnapshot())
        .then(() => this.opts.afterBulkWork?.())
        .catch((err) => console.error('search snapshot failed', err))
        .finally(() => (this.snapshotting = false))
    }, this.opts.idleSnapshotMs ?? IDLE_SNAPSHOT_MS)
    // never what keeps a process alive
    ;(this.idleTimer as { unref?: () => void }).unref?.()
  }

  /** Whether this index holds the dataset (every one, unless it is a shard). */
  private mine(id: string): boolean {
    const shard = this.opts.shard
    return !shard || shardOf(id, shard.of) === shard.index
  }

  private get hasPending() {
    return this.pending.size > 0 || this.pendingGroups.size > 0 || this.pendingVocabularies.size > 0
  }

  /** The index with every change the feed has delivered applied. */
  async ready(): Promise<SearchIndex> {
    if (!this.index) {
      // the first load also applies the log tail before its garbage is collected
      const first = async () => {
        await this.load(this.deps)
        await this.applyPending()
        this.opts.afterBulkWork?.()
      }
      await (this.loading ??= first().finally(() => (this.loading = null)))
    }
    await this.applyPending()
    return this.withUsage(this.index!, this.deps, true)
  }

  private readonly usage = new UsageOverlay()

  /**
   * The index as searches see it: where usage figures are counted (service.tracking_enabled), a
   * search sorted by views_total/views_recent first brings them into it (usage-overlay.ts).
   * `own`: this process may share the figures' read between requests (not on Workers);
   * `checker`: the request's own phrase checker (Workers).
   */
  private withUsage(index: MemoryIndex, io: SearchIo, own: boolean, checker?: PhraseChecker): SearchIndex {
    const tracking = io.config.bool('service.tracking_enabled')
    if (!tracking && !checker) return index
    return {
      search: async (req) => {
        if (tracking && needsUsage(req)) await this.usage.apply(io, index, own)
        return index.search(checker ? { ...req, phraseChecker: checker } : req)
      },
      collectStats: (req) => index.collectStats(req),
      put: (doc) => index.put(doc),
      remove: (id) => index.remove(id),
      has: (id) => index.has(id),
      get size() {
        return index.size
      },
    }
  }

  /** Applies every pending change; concurrent callers share one refresh at a time. */
  private async applyPending() {
    while (this.hasPending) {
      await (this.running ??= this.refresh(this.deps).finally(() => (this.running = null)))
    }
  }

  through(io: SearchIo): SearchService {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const service = this
    return {
      ready: () => service.readyThrough(io),
      get loaded() {
        return service.loaded
      },
      writeSnapshot: () => service.writeSnapshotThrough(io),
      flush: async () => {
        if (service.index && service.sinceSnapshot > 0) await service.writeSnapshotThrough(io)
      },
      stop: () => service.stop(),
      through: (other) => service.through(other),
    }
  }

  /**
   * ready() for one request that may not wait on another's I/O: it loads or refreshes by itself
   * (concurrent requests may repeat work; what is pending stays pending until a refresh that
   * started after the change has applied it), and phrases are checked through its own I/O.
   */
  private async readyThrough(io: SearchIo): Promise<SearchIndex> {
    if (!this.index) await this.load(io)
    while (this.hasPending) await this.refresh(io)
    return this.withUsage(this.index!, io, false, this.phraseChecker(io))
  }

  get loaded() {
    return this.index !== null
  }

  /**
   * Whether a snapshot is due: the index was built from the datasets, or enough of it was
   * re-indexed since the last one. For owners that write snapshots themselves (perRequest: a
   * Durable Object, through `through(io).writeSnapshot()`).
   */
  get snapshotDue(): boolean {
    if (!this.index || this.opts.snapshots === false || this.stopped) return false
    return (this.unsnapshotted && this.index.size > 0) || this.sinceSnapshot >= Math.max(SNAPSHOT_AFTER, this.index.size / SNAPSHOT_SHARE)
  }

  private ctx(io: SearchIo): ActionContext {
    return systemContext({ ...io, search: this.through(io) })
  }

  private async documentOptions(io: SearchIo): Promise<DocumentOptions> {
    if (!this.vocabularies) {
      const rows = await io.read('SELECT id, name FROM vocabulary')
      this.vocabularies = new Map(rows.map((r) => [String(r.id), String(r.name)]))
    }
    const vocab = this.vocabularies
    return {
      siteId: io.config.str('service.site_id'),
      vocabularyName: (id) => vocab.get(id),
      extraResourceFields: io.config.list('service.extra_resource_fields'),
      textFields: (type) => io.schemas?.dataset(type)?.textFields,
    }
  }

  private async refresh(io: SearchIo) {
    const seq = io.changes.lastSeq
    const taken = { ids: new Map(this.pending), groups: new Map(this.pendingGroups), vocabularies: new Map(this.pendingVocabularies) }
    const ids = new Set(taken.ids.keys())
    const groups = [...taken.groups.keys()]
    const vocabularies = [...taken.vocabularies.keys()]
    if (groups.length) {
      const marks = groups.map(() => '?').join(',')
      const rows = await io.read(
        `SELECT table_id AS id FROM member WHERE table_name = 'package' AND group_id IN (${marks})
         UNION SELECT id FROM package WHERE owner_org IN (${marks})`,
        [...groups, ...groups],
      )
      for (const r of rows) ids.add(String(r.id))
    }
    if (vocabularies.length) {
      const rows = await io.read(
        `SELECT DISTINCT pt.package_id AS id FROM package_tag pt JOIN tag t ON t.id = pt.tag_id
         WHERE t.vocabulary_id IN (${vocabularies.map(() => '?').join(',')})`,
        vocabularies,
      )
      for (const r of rows) ids.add(String(r.id))
    }
    await this.reindex(io, [...ids].filter((id) => this.mine(id)))
    // Done with what was taken, unless a newer change named it again meanwhile.
    const settle = (pending: Map<string, number>, done: Map<string, number>) => {
      for (const [k, gen] of done) if (pending.get(k) === gen) pending.delete(k)
    }
    settle(this.pending, taken.ids)
    settle(this.pendingGroups, taken.groups)
    settle(this.pendingVocabularies, taken.vocabularies)
    const index = this.index!
    if (index.text.dirt > Math.max(1000, index.size / 5)) this.compact()
    this.coveredSeq = Math.max(this.coveredSeq, seq)
    this.sinceSnapshot += ids.size
    if (this.sinceSnapshot >= Math.max(SNAPSHOT_AFTER, index.size / SNAPSHOT_SHARE)) this.scheduleSnapshot()
    else if (this.sinceSnapshot > 0 && !this.idleTimer) this.scheduleIdleSnapshot()
  }

  /** Re-reads these datasets and puts (or removes) their documents. */
  private async reindex(io: SearchIo, ids: string[]) {
    const opts = await this.documentOptions(io)
    for (let i = 0; i < ids.length; i += BATCH) {
      const slice = ids.slice(i, i + BATCH)
      const stamp = ++this.stamp
      const dicts = await packageDicts(this.ctx(io), slice, { cache: false })
      const index = this.index!
      for (const id of slice) {
        if (this.opts.perRequest) {
          // A concurrent refresh that read this dataset later has put the newer version.
          if ((this.putStamps.get(id) ?? 0) > stamp) continue
          this.putStamps.set(id, stamp)
        }
        const d = dicts.get(id)
        // deleted datasets stay, with their state: package_search finds them only with include_deleted
        if (!d) index.remove(id)
        else index.put(indexDocument(d, opts))
      }
    }
  }

  /**
   * Rebuilds the index from its own snapshot form: the text is frozen (replaced documents'
   * postings dropped) and the exact fields are rebuilt without their value sets.
   */
  private compact() {
    const index = this.index!
    this.index = MemoryIndex.restore(index.snapshot(), this.sharedChecker())
  }

  /** The checker an index keeps: only where concurrent callers share I/O (Node). */
  private sharedChecker(): PhraseChecker | undefined {
    return this.opts.perRequest ? undefined : this.phraseChecker(this.deps)
  }

  private async load(io: SearchIo) {
    this.loads++
    try {
      await this.loadIndex(io)
    } finally {
      this.loads--
    }
  }

  private async loadIndex(io: SearchIo) {
    const checker = this.sharedChecker()
    // Changes from here on reach `pending` through the feed; the tail below covers the rest.
    const skip = this.skipSnapshot
    this.skipSnapshot = false
    const snapshot = skip ? null : await this.readSnapshot(io)
    const tail = snapshot
      ? await io.read(
          `SELECT DISTINCT entity_type, entity_id FROM change_log
           WHERE seq > ? AND (entity_type IN ('package', 'group', 'vocabulary')
             OR (entity_type = 'config' AND entity_id = ?))`,
          [snapshot.seq, SCHEMING_KEY],
        )
      : []
    // a snapshot made under schemas changed since is not used (see onChanges)
    const usable = snapshot && !tail.some((r) => r.entity_type === 'config') && (await this.logCovers(io, snapshot.seq))
    if (snapshot && usable) {
      this.index = MemoryIndex.restore(snapshot.data, checker)
      this.loadedFrom = 'snapshot'
      this.coveredSeq = snapshot.seq
      this.onChanges(tail.map((r) => ({ seq: 0, entity_type: String(r.entity_type), entity_id: String(r.entity_id), op: '' })))
      return
    }
    const [head] = await io.read('SELECT COALESCE(MAX(seq), 0) AS seq FROM change_log')
    const opts = await this.documentOptions(io)
    // each batch of datasets goes into the index being built and is dropped: the build holds the
    // index, not every dataset's dict and tokens, nor (a shard) every id of the catalogue, so a
    // shard's object needs the memory of its own part only
    const builder = MemoryIndex.builder(checker)
    const ids: string[] = []
    const stamp = ++this.stamp
    let after: [string, string] = ['', '']
    for (;;) {
      const page = await io.read(
        `SELECT id, metadata_created FROM package WHERE (metadata_created, id) > (?, ?)
         ORDER BY metadata_created, id LIMIT ${ID_PAGE}`,
        after,
      )
      if (!page.length) break
      const last = page[page.length - 1]!
      after = [String(last.metadata_created), String(last.id)]
      const mine = page.map((r) => String(r.id)).filter((id) => this.mine(id))
      for (let i = 0; i < mine.length; i += BUILD_BATCH) {
        const dicts = await packageDicts(this.ctx(io), mine.slice(i, i + BUILD_BATCH), { cache: false })
        for (const d of dicts.values()) builder.add(indexDocument(d, opts))
      }
      ids.push(...mine)
      if (page.length < ID_PAGE) break
    }
    const built = ids.length
    if (this.index) return // a concurrent load finished first
    this.index = builder.finish()
    if (this.opts.perRequest) for (const id of ids) this.putStamps.set(id, stamp)
    this.coveredSeq = Number(head?.seq ?? 0)
    this.unsnapshotted = true
    this.loadedFrom = 'datasets'
    if (built) this.scheduleSnapshot()
  }

  /**
   * Whether the change log still holds every row after `seq`: a snapshot older than what was
   * pruned (a shard's own, which the pruning does not wait for) would miss changes, and the index
   * is then built from the datasets instead.
   */
  private async logCovers(io: SearchIo, seq: number): Promise<boolean> {
    const [r] = await io.read(
      `SELECT (SELECT seq FROM change_log ORDER BY seq LIMIT 1) AS first,
              (SELECT seq FROM sqlite_sequence WHERE name = 'change_log') AS last`,
    )
    const first = r?.first === null || r?.first === undefined ? null : Number(r.first)
    return first === null ? Number(r?.last ?? 0) <= seq : first <= seq + 1
  }

  private async readSnapshot(io: SearchIo): Promise<{ seq: number; data: ReturnType<typeof decodeSnapshot> } | null> {
    if (this.opts.snapshots === false) return null
    const store = this.opts.snapshotStore
    if (store) {
      const got = await store.read(io)
      if (!got) return null
      try {
        return { seq: got.seq, data: decodeSnapshot(got.bytes) }
      } catch {
        return null // an older format: rebuild from the datasets
      }
    }
    // One chunk per read: a libSQL server limits the size of a response (sqld answers
    // RESPONSE_TOO_LARGE past 10 MB), so the whole snapshot is never asked for at once. A snapshot
    // replaced meanwhile (another seq or time on a chunk, or a chunk gone) is read again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const heads = await io.read('SELECT chunk, seq, created, LENGTH(data) AS n FROM search_snapshot ORDER BY chunk')
      if (!heads.length) return null
      const seq = Number(heads[0]!.seq)
      const created = String(heads[0]!.created)
      if (heads.some((r, i) => Number(r.chunk) !== i || Number(r.seq) !== seq || String(r.created) !== created)) continue
      // one buffer, filled chunk by chunk (the snapshot is held once while it loads)
      const bytes = new Uint8Array(heads.reduce((n, r) => n + Number(r.n), 0))
      let at = 0
      for (const h of heads) {
        const [r] = await io.read('SELECT seq, created, data FROM search_snapshot WHERE chunk = ?', [Number(h.chunk)])
        const part = r && Number(r.seq) === seq && String(r.created) === created ? toBytes(r.data) : null
        if (!part || part.length !== Number(h.n)) break
        bytes.set(part, at)
        at += part.length
      }
      if (at < bytes.length) continue
      try {
        return { seq, data: decodeSnapshot(bytes) }
      } catch {
        return null // an older format: rebuild from the datasets
      }
    }
    return null
  }

  private scheduleSnapshot() {
    // Per-request runtimes have no background work that outlives a request.
    if (this.opts.snapshots === false || this.opts.perRequest || this.snapshotting) return
    this.snapshotting = true
    setTimeout(() => {
      this.writeSnapshot()
        // the encoded snapshot (155 MB at 100,000 datasets) and the replaced text segment are
        // garbage now: collected at once rather than held until the heap next fills up
        .then(() => this.opts.afterBulkWork?.())
        .catch((err) => console.error('search snapshot failed', err))
        .finally(() => (this.snapshotting = false))
    }, 0)
  }

  /** No more snapshots, and the change feed lets go of this index (its memory can be freed). */
  stop() {
    this.unsubscribe()
    this.stopped = true
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = null
  }

  async flush() {
    if (this.index && this.sinceSnapshot > 0 && this.opts.snapshots !== false) await this.writeSnapshot()
  }

  /** Serialises the index (as of the seq it covers) into the database, replacing the last one. */
  async writeSnapshot() {
    await this.ready()
    await this.storeSnapshot(this.deps)
  }

  private async writeSnapshotThrough(io: SearchIo) {
    await this.readyThrough(io)
    await this.storeSnapshot(io)
  }

  private async storeSnapshot(io: SearchIo) {
    if (this.stopped) return
    const seq = this.coveredSeq
    const bytes = encodeSnapshot(this.index!.snapshot())
    this.sinceSnapshot = 0
    this.unsnapshotted = false
    if (this.opts.snapshotStore) return this.opts.snapshotStore.write(io, seq, bytes)
    const created = new Date().toISOString()
    const stmts = [{ sql: 'DELETE FROM search_snapshot', args: [] as unknown[] }]
    for (let i = 0, chunk = 0; i < bytes.length; i += CHUNK, chunk++) {
      stmts.push({
        sql: 'INSERT INTO search_snapshot (chunk, seq, created, data) VALUES (?, ?, ?, ?)',
        args: [chunk, seq, created, bytes.subarray(i, i + CHUNK)],
      })
    }
    // the log keeps service.changes.retention_days of rows, and whatever this snapshot does not cover
    stmts.push(pruneStatement(io.config.int('service.changes.retention_days') || 90))
    await io.db.$client.batch(stmts as never, 'write')
  }

  /** Checks phrases and fielded terms against the datasets (see PhraseChecker). */
  private phraseChecker(io: SearchIo): PhraseChecker {
    return async (ids, field, leaf) => {
      const out = new Set<string>()
      const opts = await this.documentOptions(io)
      const dicts = await packageDicts(this.ctx(io), ids)
      const queries = { english: analyzeQueryTokens(leaf.text), generic: analyzeGenericQueryTokens(leaf.text) }
      for (const [id, d] of dicts) {
        for (const src of phraseSources(d as Dict, field, opts)) {
          const doc = (src.generic ? analyzeGenericIndexTokens : analyzeIndexTokens)(src.text)
          const query = src.generic ? queries.generic : queries.english
          if (leaf.type === 'term' || leaf.slop > 0 ? containsAll(doc, query) : containsPhrase(doc, query)) {
            out.add(id)
            break
          }
        }
      }
      return out
    }
  }
}

function containsAll(doc: Token[], query: Token[]): boolean {
  const terms = new Set(doc.map((t) => t.term))
  return query.every((q) => terms.has(q.term))
}

function containsPhrase(doc: Token[], query: Token[]): boolean {
  if (!query.length) return false
  const at = new Map<string, Set<number>>()
  for (const t of doc) {
    let s = at.get(t.term)
    if (!s) at.set(t.term, (s = new Set()))
    s.add(t.position)
  }
  const first = query[0]!
  for (const p of at.get(first.term) ?? []) {
    if (query.every((q) => at.get(q.term)?.has(p + q.position - first.position))) return true
  }
  return false
}

function toBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v
  if (v instanceof ArrayBuffer) return new Uint8Array(v)
  throw new Error('unexpected blob value')
}
