// The in-memory engine: MiniSearch for analysed text, id sets for exact values, arrays for numbers.
import { andInto, andNotInto, count, forEachBit, fromDocs, newBits, orInto, type Bits } from './bits'
import type { IndexDoc } from './document'
import { ExactField, type ExactDump } from './exact-field'
import { Evaluator } from './evaluate'
import { Budget, UNLIMITED } from './budget'
import { GeoField, type GeoDump } from './geo-field'

/** Memory for the cached filter results (one bitset per field value asked for). */
const BITS_CACHE_BYTES = 16 * 2 ** 20
/** 32-bit words of a bitset over `capacity` documents. */
const b0 = (capacity: number) => (capacity + 31) >>> 5
import type { PhraseChecker, SearchHits, SearchIndex, SearchRequest } from './index'
import { afterTuple, facetCounts, sortTuple, topDocs } from './rank'
import { TextBuilder, TextIndex, type TextSnapshot } from './text-index'

const LABELS = '\u0000labels'

export interface IndexSnapshot {
  ids: (string | null)[]
  exact: Record<string, ExactDump>
  numbers: Record<string, Float64Array>
  text: TextSnapshot
  /** The `spatial` geometries (absent: none). */
  geo?: GeoDump
}

/**
 * Documents are numbered densely (numbers of removed datasets are reused) so that sets of
 * documents are small bitsets; queries combine those instead of filtering MiniSearch's hits.
 */
export class MemoryIndex implements SearchIndex {
  text: TextIndex
  readonly exact = new Map<string, ExactField>()
  readonly numbers = new Map<string, Float64Array>()
  /** The datasets' `spatial` geometries, for ext_bbox. */
  geo = new GeoField()
  /** Document number → dataset id. */
  readonly ids: (string | undefined)[] = []
  private readonly docOf = new Map<string, number>()
  private free: number[] = []
  /** Bumped by every change; cached bitsets of older versions are dropped. */
  private version = 0
  private bitsCache = new Map<string, Bits>()
  private cacheVersion = 0
  private puts = 0
  private scorePool: Float64Array[] = []

  constructor(
    private readonly phraseChecker?: PhraseChecker,
    text?: TextIndex,
  ) {
    this.text = text ?? new TextIndex()
  }

  get size() {
    return this.docOf.size
  }

  /** One past the highest document number: the size of bitsets. */
  get capacity() {
    return this.ids.length
  }

  has(id: string) {
    return this.docOf.has(id)
  }

  docNumber(id: string): number | undefined {
    return this.docOf.get(id)
  }

  put(doc: IndexDoc) {
    this.text.put(this.putFields(doc), doc.text)
  }

  /** An index of many documents, its text built in bulk (see TextBuilder). */
  static build(docs: Iterable<IndexDoc>, phraseChecker?: PhraseChecker): MemoryIndex {
    const b = MemoryIndex.builder(phraseChecker)
    for (const d of docs) b.add(d)
    return b.finish()
  }

  /**
   * MemoryIndex.build a document at a time: a document can be dropped once added (a full rebuild
   * holds the index being made, not every document's tokens). Each id once.
   */
  static builder(phraseChecker?: PhraseChecker): { add(doc: IndexDoc): void; finish(): MemoryIndex } {
    const idx = new MemoryIndex(phraseChecker)
    let text: TextBuilder | null = new TextBuilder()
    return {
      add: (doc) => text!.add(idx.putFields(doc), doc.text),
      finish() {
        idx.text = text!.finish()
        text = null // its postings stream can go before the fields are compacted
        idx.compactFields()
        return idx
      },
    }
  }

  /** Numbers the document and stores everything but its text; returns its number. */
  private putFields(doc: IndexDoc): number {
    let n = this.docOf.get(doc.id)
    if (n === undefined) {
      n = this.free.pop() ?? this.ids.length
      this.docOf.set(doc.id, n)
      this.ids[n] = doc.id
    }
    this.version++
    const seen = new Set<string>()
    for (const [field, values] of Object.entries(doc.exact)) {
      this.field(field).set(n, values)
      seen.add(field)
    }
    this.field(LABELS).set(n, doc.labels)
    seen.add(LABELS)
    for (const [field, f] of this.exact) if (!seen.has(field)) f.remove(n)
    // values added by writes are sorted into each field's string now and then
    if ((++this.puts & 1023) === 0) for (const f of this.exact.values()) f.compactValues()
    for (const [field, arr] of this.numbers) {
      if (!(field in doc.numbers) && n < arr.length) arr[n] = NaN
    }
    for (const [field, value] of Object.entries(doc.numbers)) this.numberArray(field, n)[n] = value
    this.geo.set(n, doc.geometry)
    return n
  }

  /** Bumped by every change to the documents or their values (see setNumbers). */
  get changes(): number {
    return this.version
  }

  /**
   * Sets a number field for every live document: `values` by dataset id, `fallback` for the rest
   * (the usage figures, which change without the datasets: src/search/usage-overlay.ts).
   */
  setNumbers(field: string, values: ReadonlyMap<string, number>, fallback: number) {
    const cap = this.capacity
    if (cap === 0) return
    const arr = this.numberArray(field, cap - 1)
    for (let n = 0; n < cap; n++) arr[n] = this.ids[n] === undefined ? NaN : fallback
    for (const [id, v] of values) {
      const n = this.docOf.get(id)
      if (n !== undefined) arr[n] = v
    }
    this.version++
  }

  remove(id: string) {
    const n = this.docOf.get(id)
    if (n === undefined) return
    this.version++
    this.text.drop(n)
    for (const f of this.exact.values()) f.remove(n)
    for (const arr of this.numbers.values()) if (n < arr.length) arr[n] = NaN
    this.geo.remove(n)
    this.docOf.delete(id)
    this.ids[n] = undefined
    this.free.push(n)
  }

  private field(name: string): ExactField {
    let f = this.exact.get(name)
    if (!f) this.exact.set(name, (f = new ExactField()))
    return f
  }

  private numberArray(field: string, n: number): Float64Array {
    let arr = this.numbers.get(field)
    if (!arr || n >= arr.length) {
      const grown = new Float64Array(Math.max(1024, n + 1, (arr?.length ?? 0) * 2)).fill(NaN)
      if (arr) grown.set(arr)
      this.numbers.set(field, (arr = grown))
    }
    return arr
  }

  /** Every live document. */
  all(): Bits {
    return this.cached('\u0000all', () => fromDocs(this.capacity, this.docOf.values()))
  }

  /** The documents with this exact value (a shared bitset: do not modify). */
  exactBits(field: string, value: string): Bits {
    return this.cached(`${field}\u0000${value}`, () => {
      const docs = this.exact.get(field)?.docs(value)
      return docs ? fromDocs(this.capacity, docs) : newBits(this.capacity)
    })
  }

  labelBits(labels: string[]): Bits {
    const b = newBits(this.capacity)
    for (const l of labels) orInto(b, this.exactBits(LABELS, l))
    return b
  }

  private cached(key: string, make: () => Bits): Bits {
    if (this.cacheVersion !== this.version) {
      this.bitsCache.clear()
      this.cacheVersion = this.version
    }
    let b = this.bitsCache.get(key)
    if (!b) {
      // at most 5,000 sets and about BITS_CACHE_BYTES together (a set is capacity / 8 bytes)
      if (this.bitsCache.size >= Math.min(5000, Math.max(16, BITS_CACHE_BYTES / (b0(this.capacity) * 4)))) {
        this.bitsCache.clear()
      }
      this.bitsCache.set(key, (b = make()))
    }
    return b
  }

  /**
   * A zeroed relevance array of at least `capacity` entries, from a small pool: one per scored
   * query would be 800 kB at 100,000 datasets, each straight into V8's old generation (too big for
   * the young one), and collected only by full GCs.
   */
  takeScores(): Float64Array {
    const cap = this.capacity
    for (let a = this.scorePool.pop(); a; a = this.scorePool.pop()) {
      if (a.length >= cap) return a.fill(0)
    }
    return new Float64Array(Math.max(1024, cap + (cap >> 3)))
  }

  private giveScores(a: Float64Array | null) {
    if (a && this.scorePool.length < 4) this.scorePool.push(a)
  }

  /**
   * Answers of recent searches at the index's current version (as Solr's queryResultCache keeps
   * them): the same request again, until any change to the documents or their values, is a lookup.
   */
  private answers = new Map<string, SearchHits>()
  private answersVersion = -1

  async search(req: SearchRequest): Promise<SearchHits> {
    const key = answerKey(req)
    if (this.answersVersion !== this.version) {
      this.answers.clear()
      this.answersVersion = this.version
    }
    const kept = this.answers.get(key)
    if (kept) {
      // the most recently used last
      this.answers.delete(key)
      this.answers.set(key, kept)
      return copyHits(kept)
    }
    const version = this.version
    const budget = req.deadline === undefined ? UNLIMITED : new Budget(req.deadline)
    const stats = req.globalStats ? { global: req.globalStats } : undefined
    const evaluator = new Evaluator(this, req.phraseChecker ?? this.phraseChecker, budget, stats)
    try {
      const hits = await this.run(req, evaluator, budget)
      // kept only if nothing changed while it ran (a phrase check awaits the database)
      // (and only small answers: a facet of every value of a field is not worth keeping)
      if (this.version === version && this.answersVersion === version && answerSize(hits) <= ANSWER_ITEMS_MAX) {
        if (this.answers.size >= ANSWERS_MAX) this.answers.delete(this.answers.keys().next().value!)
        this.answers.set(key, copyHits(hits))
      }
      return hits
    } finally {
      this.giveScores(evaluator.scores)
    }
  }

  /**
   * Phase one of a search over shards: this shard's collection statistics for the request's
   * scored query (see evaluate.ts ScoreStats); empty when the request is not sorted by score.
   */
  async collectStats(req: SearchRequest): Promise<Record<string, number>> {
    const record: Record<string, number> = {}
    const budget = req.deadline === undefined ? UNLIMITED : new Budget(req.deadline)
    const evaluator = new Evaluator(this, undefined, budget, { record })
    try {
      await evaluator.run(req.q, req.sort.some((k) => k.field === 'score') && req.q.root.type !== 'all')
      for (const [i, f] of req.filters.entries()) await evaluator.run(f, false, `f${i}`)
    } finally {
      this.giveScores(evaluator.scores)
    }
    return record
  }

  private async run(req: SearchRequest, evaluator: Evaluator, budget: Budget): Promise<SearchHits> {
    const scoring = req.sort.some((k) => k.field === 'score') && req.q.root.type !== 'all'
    const matched = await evaluator.run(req.q, scoring)
    for (const [i, f] of req.filters.entries()) {
      const b = await evaluator.run(f, false, `f${i}`)
      andInto(matched, b)
    }
    const v = req.visibility
    const vis = v.states ? newBits(this.capacity) : this.all().slice()
    if (v.states) for (const s of v.states) orInto(vis, this.exactBits('state', s))
    for (const s of v.excludeStates ?? []) andNotInto(vis, this.exactBits('state', s))
    if (!v.includePrivate) andInto(vis, this.exactBits('capacity', 'public'))
    if (v.labels) andInto(vis, this.labelBits(v.labels))
    for (const t of v.excludeTypes ?? []) andNotInto(vis, this.exactBits('dataset_type', t))
    andInto(matched, vis)
    if (req.spatial) {
      const box = req.spatial.box
      this.geo.filter(matched, box)
      // ckanext-spatial's solr-bbox backend: the overlap ratio is added to the score
      if (req.sort.some((k) => k.field === 'score')) {
        const scores = (evaluator.scores ??= this.takeScores())
        forEachBit(matched, (n) => (scores[n]! += this.geo.overlap(n, box)))
      }
    }
    budget.check()
    const total = count(matched)
    const after = req.after ? afterTuple(this, req.sort, evaluator.scores, req.after) : undefined
    const start = after ? 0 : req.start
    const docs = req.rows > 0 && start < total ? topDocs(this, matched, req.sort, start + req.rows, evaluator.scores, after).slice(start) : []
    const ids = docs
      .map((n) => this.ids[n])
      // a refresh may have removed a document while a phrase check awaited the database
      .filter((id): id is string => id !== undefined)
    const last = docs.length === req.rows && req.rows > 0 ? sortTuple(this, req.sort, evaluator.scores, docs[docs.length - 1]!) : undefined
    const tuples = req.withTuples
      ? docs.filter((n) => this.ids[n] !== undefined).map((n) => sortTuple(this, req.sort, evaluator.scores, n))
      : undefined
    const facets: SearchHits['facets'] = {}
    if (req.facet) {
      for (const field of req.facet.fields) {
        budget.check()
        facets[field] = facetCounts(this, matched, field, req.facet, total)
      }
    }
    return { count: total, ids, facets, ...(last ? { last } : {}), ...(tuples ? { tuples } : {}) }
  }

  /**
   * Each exact field (and the geometries) in the form a snapshot restores, one at a time: what
   * puts leave behind (value lists grown by writes, pools with holes) is several times that size.
   */
  private compactFields() {
    for (const [k, f] of this.exact) this.exact.set(k, ExactField.load(f.dump(this.capacity)))
    if (this.geo.size) this.geo = GeoField.load(this.geo.dump(this.capacity))
    this.bitsCache.clear()
    this.version++
  }

  snapshot(): IndexSnapshot {
    const exact: IndexSnapshot['exact'] = {}
    for (const [k, f] of this.exact) exact[k] = f.dump(this.capacity)
    const numbers: IndexSnapshot['numbers'] = {}
    for (const [k, arr] of this.numbers) numbers[k] = arr.slice(0, this.capacity)
    const geo = this.geo.size ? { geo: this.geo.dump(this.capacity) } : {}
    return { ids: this.ids.map((x) => x ?? null), exact, numbers, text: this.text.dump(), ...geo }
  }

  static restore(s: IndexSnapshot, phraseChecker?: PhraseChecker): MemoryIndex {
    const idx = new MemoryIndex(phraseChecker, TextIndex.load(s.text))
    s.ids.forEach((id, n) => {
      idx.ids[n] = id ?? undefined
      if (id === null) idx.free.push(n)
      else idx.docOf.set(id, n)
    })
    for (const [k, f] of Object.entries(s.exact)) idx.exact.set(k, ExactField.load(f))
    for (const [k, values] of Object.entries(s.numbers)) {
      const arr = new Float64Array(Math.max(1024, values.length)).fill(NaN)
      arr.set(values)
      idx.numbers.set(k, arr)
    }
    if (s.geo) idx.geo = GeoField.load(s.geo)
    return idx
  }
}

/** Searches whose answers an index keeps (each a page of ids, a count and facet pairs). */
const ANSWERS_MAX = 256
/** Ids and facet pairs an answer may hold to be kept. */
const ANSWER_ITEMS_MAX = 2000

const answerSize = (h: SearchHits) => {
  let n = h.ids.length
  for (const pairs of Object.values(h.facets)) n += pairs.length
  return n
}

/**
 * What a search's answer depends on besides the index: the request without its deadline and
 * phrase checker (every other part is plain data: query plans, filters, visibility, sort, page,
 * facets, box, statistics).
 */
function answerKey(req: SearchRequest): string {
  return JSON.stringify(req, (k, v) => (k === 'deadline' || k === 'phraseChecker' ? undefined : v))
}

/** A copy a caller may change without changing the kept answer. */
function copyHits(h: SearchHits): SearchHits {
  const facets: SearchHits['facets'] = {}
  for (const [f, pairs] of Object.entries(h.facets)) facets[f] = pairs.map(([v, c]) => [v, c])
  return {
    ...h,
    ids: [...h.ids],
    facets,
    ...(h.last ? { last: [...h.last] } : {}),
    ...(h.tuples ? { tuples: h.tuples.map((t) => [...t]) } : {}),
  }
}
