// Keeps this process's search index in step with the change log; loads and writes snapshots.
import { systemContext, type ActionContext, type Deps } from '../context'
import type { Change } from '../model/changes'
import { packageDicts } from '../model/package'
import { analyzeGenericIndexTokens, analyzeGenericQueryTokens, analyzeIndexTokens, analyzeQueryTokens, type Token } from './analysis'
import { indexDocument, phraseSources, type DocumentOptions, type IndexDoc } from './document'
import type { PhraseChecker, SearchIndex, SearchService } from './index'
import { MemoryIndex } from './minisearch'
import { decodeSnapshot, encodeSnapshot } from './snapshot'

const BATCH = 500
const CHUNK = 4 * 1024 * 1024
/** Write a new snapshot once this many datasets were re-indexed since the last one. */
const SNAPSHOT_AFTER = 1000

type Dict = Record<string, unknown>

export interface SearchServiceOptions {
  /** Write snapshots (off for tests that count queries; on by default). */
  snapshots?: boolean
}

/**
 * One per process (isolate). Before a search, `ready()` re-reads every dataset the change log
 * named since the last search, so a search sees every write committed before it started.
 */
export class MemorySearchService implements SearchService {
  private index: MemoryIndex | null = null
  private loading: Promise<void> | null = null
  private running: Promise<void> | null = null
  private pending = new Set<string>()
  private pendingGroups = new Set<string>()
  private pendingVocabularies = new Set<string>()
  private vocabularies: Map<string, string> | null = null
  private sinceSnapshot = 0
  private snapshotting = false
  /** The change-log seq the index covers (every change up to it applied). */
  private coveredSeq = 0

  constructor(
    private readonly deps: Omit<Deps, 'search'>,
    private readonly opts: SearchServiceOptions = {},
  ) {
    deps.changes.subscribe((changes) => this.onChanges(changes))
  }

  private onChanges(changes: Change[]) {
    for (const c of changes) {
      if (c.entity_type === 'package') this.pending.add(c.entity_id)
      else if (c.entity_type === 'group') this.pendingGroups.add(c.entity_id)
      else if (c.entity_type === 'vocabulary') {
        this.pendingVocabularies.add(c.entity_id)
        this.vocabularies = null
      }
    }
  }

  /** The index with every change the feed has delivered applied. */
  async ready(): Promise<SearchIndex> {
    if (!this.index) await (this.loading ??= this.load().finally(() => (this.loading = null)))
    while (this.pending.size || this.pendingGroups.size || this.pendingVocabularies.size) {
      await (this.running ??= this.refresh().finally(() => (this.running = null)))
    }
    return this.index!
  }

  get loaded() {
    return this.index !== null
  }

  private ctx(): ActionContext {
    return systemContext({ ...this.deps, search: this })
  }

  private async documentOptions(): Promise<DocumentOptions> {
    if (!this.vocabularies) {
      const rows = await this.deps.read('SELECT id, name FROM vocabulary')
      this.vocabularies = new Map(rows.map((r) => [String(r.id), String(r.name)]))
    }
    const vocab = this.vocabularies
    return {
      siteId: this.deps.config.str('service.site_id'),
      vocabularyName: (id) => vocab.get(id),
      extraResourceFields: this.deps.config.list('service.extra_resource_fields'),
    }
  }

  private async refresh() {
    const seq = this.deps.changes.lastSeq
    const ids = new Set(this.pending)
    this.pending.clear()
    const groups = [...this.pendingGroups]
    const vocabularies = [...this.pendingVocabularies]
    this.pendingGroups.clear()
    this.pendingVocabularies.clear()
    if (groups.length) {
      const marks = groups.map(() => '?').join(',')
      const rows = await this.deps.read(
        `SELECT table_id AS id FROM member WHERE table_name = 'package' AND group_id IN (${marks})
         UNION SELECT id FROM package WHERE owner_org IN (${marks})`,
        [...groups, ...groups],
      )
      for (const r of rows) ids.add(String(r.id))
    }
    if (vocabularies.length) {
      const rows = await this.deps.read(
        `SELECT DISTINCT pt.package_id AS id FROM package_tag pt JOIN tag t ON t.id = pt.tag_id
         WHERE t.vocabulary_id IN (${vocabularies.map(() => '?').join(',')})`,
        vocabularies,
      )
      for (const r of rows) ids.add(String(r.id))
    }
    await this.reindex([...ids])
    const index = this.index!
    if (index.text.dirt > Math.max(1000, index.size / 5)) this.compact()
    this.coveredSeq = Math.max(this.coveredSeq, seq)
    this.sinceSnapshot += ids.size
    if (this.sinceSnapshot >= SNAPSHOT_AFTER) this.scheduleSnapshot()
  }

  /** Re-reads these datasets and puts (or removes) their documents. */
  private async reindex(ids: string[]) {
    const index = this.index!
    const opts = await this.documentOptions()
    for (let i = 0; i < ids.length; i += BATCH) {
      const slice = ids.slice(i, i + BATCH)
      const dicts = await packageDicts(this.ctx(), slice)
      for (const id of slice) {
        const d = dicts.get(id)
        if (!d || d.state === 'deleted') index.remove(id)
        else index.put(indexDocument(d, opts))
      }
    }
  }

  /**
   * Rebuilds the index from its own snapshot form: posting lists become compact arrays (see
   * LazyPostings) and the postings of replaced documents are dropped.
   */
  private compact() {
    const index = this.index!
    this.index = MemoryIndex.restore(index.snapshot(), this.phraseChecker())
  }

  private async load() {
    const checker = this.phraseChecker()
    // Changes from here on reach `pending` through the feed; the tail below covers the rest.
    const snapshot = await this.readSnapshot()
    if (snapshot) {
      this.index = MemoryIndex.restore(snapshot.data, checker)
      this.coveredSeq = snapshot.seq
      const rows = await this.deps.read(
        `SELECT DISTINCT entity_type, entity_id FROM change_log
         WHERE seq > ? AND entity_type IN ('package', 'group', 'vocabulary')`,
        [snapshot.seq],
      )
      this.onChanges(rows.map((r) => ({ seq: 0, entity_type: String(r.entity_type), entity_id: String(r.entity_id), op: '' })))
      return
    }
    const [head] = await this.deps.read('SELECT COALESCE(MAX(seq), 0) AS seq FROM change_log')
    const rows = await this.deps.read(`SELECT id FROM package WHERE state != 'deleted' ORDER BY metadata_created`)
    const ids = rows.map((r) => String(r.id))
    const opts = await this.documentOptions()
    const docs: IndexDoc[] = []
    for (let i = 0; i < ids.length; i += BATCH) {
      const dicts = await packageDicts(this.ctx(), ids.slice(i, i + BATCH))
      for (const d of dicts.values()) if (d.state !== 'deleted') docs.push(indexDocument(d, opts))
    }
    this.index = MemoryIndex.build(docs, checker)
    this.coveredSeq = Number(head?.seq ?? 0)
    if (docs.length) this.scheduleSnapshot()
  }

  private async readSnapshot(): Promise<{ seq: number; data: ReturnType<typeof decodeSnapshot> } | null> {
    if (this.opts.snapshots === false) return null
    const rows = await this.deps.read('SELECT chunk, seq, data FROM search_snapshot ORDER BY chunk')
    if (!rows.length) return null
    const seq = Number(rows[0]!.seq)
    const parts = rows.map((r) => toBytes(r.data))
    if (rows.some((r) => Number(r.seq) !== seq)) return null
    const total = parts.reduce((n, p) => n + p.length, 0)
    const bytes = new Uint8Array(total)
    let at = 0
    for (const p of parts) {
      bytes.set(p, at)
      at += p.length
    }
    try {
      return { seq, data: decodeSnapshot(bytes) }
    } catch {
      return null // an older format: rebuild from the datasets
    }
  }

  private scheduleSnapshot() {
    if (this.opts.snapshots === false || this.snapshotting) return
    this.snapshotting = true
    setTimeout(() => {
      this.writeSnapshot()
        .catch((err) => console.error('search snapshot failed', err))
        .finally(() => (this.snapshotting = false))
    }, 0)
  }

  /** Serialises the index (as of the seq it covers) into the database, replacing the last one. */
  async writeSnapshot() {
    await this.ready()
    const seq = this.coveredSeq
    const bytes = encodeSnapshot(this.index!.snapshot())
    this.sinceSnapshot = 0
    const created = new Date().toISOString()
    const stmts = [{ sql: 'DELETE FROM search_snapshot', args: [] as unknown[] }]
    for (let i = 0, chunk = 0; i < bytes.length; i += CHUNK, chunk++) {
      stmts.push({
        sql: 'INSERT INTO search_snapshot (chunk, seq, created, data) VALUES (?, ?, ?, ?)',
        args: [chunk, seq, created, bytes.subarray(i, i + CHUNK)],
      })
    }
    await this.deps.db.$client.batch(stmts as never, 'write')
  }

  /** Checks phrases and fielded terms against the datasets (see PhraseChecker). */
  private phraseChecker(): PhraseChecker {
    return async (ids, field, leaf) => {
      const out = new Set<string>()
      const opts = await this.documentOptions()
      const dicts = await packageDicts(this.ctx(), ids)
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
