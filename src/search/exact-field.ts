// An exact-value field: value ids, each document's values (facets, sorting), and per value its
// documents (built on first use: most fields are never filtered on). Everything is kept in typed
// arrays: a restored field's values are one sorted string with offsets, found by binary search (no
// string or Map entry per value: 55,000 URLs at 10,000 datasets), and the documents of each value
// are one array as of their last build plus the documents changed since.

const NONE = -1

/** An exact field as a snapshot holds it (see ExactField.dump). */
export interface ExactDump {
  blob: string
  ends: Uint32Array
  forward: Uint32Array
}

/**
 * Per document its value ids, in typed arrays: `head[doc]` is -1 (no value), a value id (one
 * value), or -2 - offset of a list in `pool` (its length, then its ids). A replaced list stays in
 * the pool as garbage until half of the pool is (see clear).
 */
class Forward {
  head = new Int32Array(16).fill(NONE)
  pool = new Uint32Array(16)
  used = 0
  /** Pool entries of replaced lists. */
  garbage = 0

  ensure(doc: number) {
    if (doc < this.head.length) return
    let n = this.head.length
    while (n <= doc) n *= 2
    const grown = new Int32Array(n).fill(NONE)
    grown.set(this.head)
    this.head = grown
  }

  set(doc: number, ids: number[]) {
    this.ensure(doc)
    this.clear(doc)
    if (ids.length === 1) {
      this.head[doc] = ids[0]!
      return
    }
    const need = this.used + ids.length + 1
    if (need > this.pool.length) {
      const grown = new Uint32Array(Math.max(need, this.pool.length * 2))
      grown.set(this.pool.subarray(0, this.used))
      this.pool = grown
    }
    this.head[doc] = -2 - this.used
    this.pool[this.used++] = ids.length
    for (const id of ids) this.pool[this.used++] = id
  }

  clear(doc: number) {
    if (doc >= this.head.length) return
    const h = this.head[doc]!
    this.head[doc] = NONE
    if (h >= NONE) return
    // a replaced list stays in the pool as garbage; the pool is rewritten once it is half garbage
    this.garbage += this.pool[-2 - h]! + 1
    if (this.garbage > 4096 && this.garbage * 2 > this.used) this.compactPool()
  }

  private compactPool() {
    const { head, pool } = this
    const out = new Uint32Array(Math.max(16, this.used - this.garbage))
    let used = 0
    for (let doc = 0; doc < head.length; doc++) {
      const h = head[doc]!
      if (h >= NONE) continue
      const at = -2 - h
      const n = pool[at]!
      out.set(pool.subarray(at, at + n + 1), used)
      head[doc] = -2 - used
      used += n + 1
    }
    this.pool = out
    this.used = used
    this.garbage = 0
  }

  /** Whether a document has this value id. */
  contains(doc: number, id: number): boolean {
    const h = doc < this.head.length ? this.head[doc]! : NONE
    if (h >= 0) return h === id
    if (h === NONE) return false
    const at = -2 - h
    for (let i = at + 1, end = at + 1 + this.pool[at]!; i < end; i++) if (this.pool[i] === id) return true
    return false
  }

  /** Calls fn(doc, id) for every value id of every document. */
  each(fn: (doc: number, id: number) => void) {
    const { head, pool } = this
    for (let doc = 0; doc < head.length; doc++) {
      const h = head[doc]!
      if (h >= 0) fn(doc, h)
      else if (h !== NONE) {
        const at = -2 - h
        for (let i = at + 1, end = at + 1 + pool[at]!; i < end; i++) fn(doc, pool[i]!)
      }
    }
  }

  /** The value ids of a document (empty: none). */
  of(doc: number): number[] {
    const h = doc < this.head.length ? this.head[doc]! : NONE
    if (h >= 0) return [h]
    if (h === NONE) return []
    const at = -2 - h
    return Array.from(this.pool.subarray(at + 1, at + 1 + this.pool[at]!))
  }
}

/** A lone surrogate, which UTF-8 cannot carry (the snapshot's text turns it into U+FFFD). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * The distinct values of a field, by id: those of a restored field sorted in one string (ids in
 * sort order, found by binary search), then those added since in an array and a Map.
 */
class Values {
  private blob = ''
  /** ends[i]: where value i ends in blob. */
  private ends: Uint32Array = new Uint32Array(0)
  private added: string[] = []
  private addedIds = new Map<string, number>()

  get size(): number {
    return this.ends.length + this.added.length
  }

  /** Values added since the sorted ones were made. */
  get addedCount(): number {
    return this.added.length
  }

  get(id: number): string {
    const base = this.ends.length
    if (id >= base) return this.added[id - base]!
    return this.blob.slice(id ? this.ends[id - 1]! : 0, this.ends[id]!)
  }

  idOf(value: string): number | undefined {
    let lo = 0
    let hi = this.ends.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const v = this.get(mid)
      if (v === value) return mid
      if (v < value) lo = mid + 1
      else hi = mid
    }
    return this.addedIds.get(value)
  }

  /** The id of `value`, added when new. */
  intern(value: string): number {
    let id = this.idOf(value)
    if (id === undefined) {
      id = this.size
      this.added.push(value)
      this.addedIds.set(value, id)
    }
    return id
  }

  /**
   * Every value sorted, as one string and its end offsets, and each old id's new id: the restored
   * values are sorted already, so only those added since are sorted and merged in.
   */
  sorted(): { blob: string; ends: Uint32Array; remap: Uint32Array } {
    const base = this.ends.length
    const n = this.size
    const remap = this.ranks()
    if (!remap) return { blob: this.blob, ends: this.ends, remap: Uint32Array.from({ length: n }, (_, id) => id) }
    // each value at its rank (ranks() sorts the added ones as they are stored: lone surrogates replaced)
    const inOrder = new Array<string>(n)
    for (let id = 0; id < n; id++) inOrder[remap[id]!] = id < base ? this.get(id) : this.added[id - base]!.replace(LONE_SURROGATE, '\ufffd')
    const ends = new Uint32Array(n)
    let length = 0
    for (let r = 0; r < n; r++) ends[r] = length += inOrder[r]!.length
    return { blob: inOrder.join(''), ends, remap }
  }

  /**
   * Each value id's position among all values in sorted order (what sorted() would renumber it
   * to), without building the sorted string; null when the ids are in sorted order already.
   */
  ranks(): Uint32Array | null {
    if (!this.added.length) return null
    const base = this.ends.length
    const added = this.added.map((v, i) => ({ v: v.replace(LONE_SURROGATE, '\ufffd'), id: base + i }))
    added.sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : 0))
    const rank = new Uint32Array(this.size)
    let i = 0
    let j = 0
    while (i < base || j < added.length) {
      const a = added[j]
      if (a === undefined || (i < base && this.get(i) <= a.v)) rank[i] = i++ + j
      else rank[a.id] = i + j++
    }
    return rank
  }

  static of(blob: string, ends: Uint32Array): Values {
    const v = new Values()
    v.blob = blob
    v.ends = ends
    return v
  }
}

export class ExactField {
  private values = new Values()
  /** Document number → value id(s), distinct, first value first. */
  private readonly forward = new Forward()
  /**
   * Per value id its documents as of the last build (value `id`'s are docs[off[id]..off[id+1]],
   * ascending); null until first needed and after the value ids change.
   */
  private postings: { off: Uint32Array; docs: Uint32Array } | null = null
  /** Documents set or removed since the postings were built, as a list and as a bitset. */
  private changed: number[] = []
  private changedBits = new Uint32Array(0)

  /** How many distinct values the field has had (value ids are below it). */
  get size(): number {
    return this.values.size
  }

  /** The value of a value id. */
  value(id: number): string {
    return this.values.get(id)
  }

  idOf(value: string): number | undefined {
    return this.values.idOf(value)
  }

  /** Notes that a document's values changed after the postings were built. */
  private touch(doc: number) {
    if (!this.postings) return
    const bits = this.changedBits
    const w = doc >>> 5
    if (w >= bits.length) {
      const grown = new Uint32Array(Math.max(w + 1, bits.length * 2, 32))
      grown.set(bits)
      this.changedBits = grown
    }
    if (this.changedBits[w]! & (1 << (doc & 31))) return
    this.changedBits[w]! |= 1 << (doc & 31)
    this.changed.push(doc)
    // past this many, a rebuild (one pass over the values of every document) is cheaper than
    // checking the changed documents on every lookup
    if (this.changed.length > Math.max(512, this.forward.head.length >>> 5)) this.postings = null
  }

  private isChanged(doc: number): boolean {
    const w = doc >>> 5
    return w < this.changedBits.length && (this.changedBits[w]! & (1 << (doc & 31))) !== 0
  }

  /** Per value its documents, counted then filled from the documents' values. */
  private built(): { off: Uint32Array; docs: Uint32Array } {
    if (this.postings) return this.postings
    const n = this.values.size
    const off = new Uint32Array(n + 1)
    this.forward.each((_doc, id) => off[id + 1]!++)
    for (let id = 0; id < n; id++) off[id + 1]! += off[id]!
    const docs = new Uint32Array(off[n]!)
    const fill = off.slice(0, n)
    this.forward.each((doc, id) => (docs[fill[id]!++] = doc))
    this.changed = []
    this.changedBits = new Uint32Array(0)
    return (this.postings = { off, docs })
  }

  /** The documents of a value id, ascending from the build, then the changed ones. */
  private docsOf(id: number): number[] {
    const { off, docs } = this.built()
    const out: number[] = []
    if (id + 1 < off.length) {
      const from = off[id]!
      const to = off[id + 1]!
      if (!this.changed.length) for (let i = from; i < to; i++) out.push(docs[i]!)
      else for (let i = from; i < to; i++) if (!this.isChanged(docs[i]!)) out.push(docs[i]!)
    }
    for (const doc of this.changed) if (this.forward.contains(doc, id)) out.push(doc)
    return out
  }

  /** Value ids of a document. */
  valuesOf(doc: number): number[] {
    return this.forward.of(doc)
  }

  /**
   * Adds 1 to `counts[id]` for every value id of every document `each` visits (facet counts: a
   * document counts once per distinct value).
   */
  countValues(each: (fn: (doc: number) => void) => void, counts: Int32Array) {
    const { head, pool } = this.forward
    const size = head.length
    each((d) => {
      if (d >= size) return
      const h = head[d]!
      if (h >= 0) counts[h]!++
      else if (h !== NONE) {
        const at = -2 - h
        const end = at + 1 + pool[at]!
        for (let i = at + 1; i < end; i++) counts[pool[i]!]!++
      }
    })
  }

  set(doc: number, values: string[]) {
    if (!values.length) return this.remove(doc)
    this.touch(doc)
    const ids: number[] = []
    for (const v of values) {
      const id = this.values.intern(v)
      if (!ids.includes(id)) ids.push(id)
    }
    this.forward.set(doc, ids) // replaces what the document had
  }

  remove(doc: number) {
    this.touch(doc)
    this.forward.clear(doc)
  }

  /** The documents holding this exact value. */
  docs(value: string): Iterable<number> | undefined {
    const id = this.values.idOf(value)
    return id === undefined ? undefined : this.docsOf(id)
  }

  private rankCache: { size: number; ranks: Uint32Array | null } | null = null

  /**
   * A sort key for the first value of a document: its value's position in sorted order (smaller
   * sorts first), undefined without a value. Ranks are computed once per set of values.
   */
  firstRank(): (doc: number) => number | undefined {
    if (this.rankCache?.size !== this.values.size) this.rankCache = { size: this.values.size, ranks: this.values.ranks() }
    const ranks = this.rankCache.ranks
    const { head, pool } = this.forward
    return (doc) => {
      const h = doc < head.length ? head[doc]! : NONE
      if (h === NONE) return undefined
      const id = h >= 0 ? h : pool[-2 - h + 1]!
      return ranks ? ranks[id]! : id
    }
  }

  /** The first value of a document (sorting). */
  first(doc: number): string | undefined {
    const { head, pool } = this.forward
    const h = doc < head.length ? head[doc]! : NONE
    if (h === NONE) return undefined
    return this.values.get(h >= 0 ? h : pool[-2 - h + 1]!)
  }

  /** Every (value, documents) pair whose value passes the test. */
  *matching(test: (value: string) => boolean): Iterable<Iterable<number>> {
    for (let id = 0; id < this.values.size; id++) {
      if (test(this.values.get(id))) {
        const docs = this.docsOf(id)
        if (docs.length) yield docs
      }
    }
  }

  /**
   * Sorts the values added since the field was loaded into its sorted string, once they are many
   * (a field that grew by writes would otherwise keep a string and a Map entry per value).
   */
  compactValues(force = false) {
    const added = this.values.addedCount
    if (!added || (!force && (added < 1024 || added * 8 < this.values.size))) return
    const { blob, ends, remap } = this.values.sorted()
    this.values = Values.of(blob, ends)
    const { head, pool } = this.forward
    for (let doc = 0; doc < head.length; doc++) {
      const h = head[doc]!
      if (h >= 0) head[doc] = remap[h]!
      else if (h !== NONE) {
        const at = -2 - h
        for (let i = at + 1, end = at + 1 + pool[at]!; i < end; i++) pool[i] = remap[pool[i]!]!
      }
    }
    this.postings = null // keyed by the old ids
  }

  /**
   * Serialisable form: the values sorted, as one string and their end offsets, and per document
   * its value count then its value ids (in the sorted numbering).
   */
  dump(docs: number): ExactDump {
    const { blob, ends, remap } = this.values.sorted()
    const { head, pool } = this.forward
    let entries = 0
    for (let d = 0; d < docs && d < head.length; d++) {
      const h = head[d]!
      if (h >= 0) entries++
      else if (h !== NONE) entries += pool[-2 - h]!
    }
    const out = new Uint32Array(docs + entries)
    let at = 0
    for (let d = 0; d < docs; d++) {
      const h = d < head.length ? head[d]! : NONE
      if (h === NONE) out[at++] = 0
      else if (h >= 0) {
        out[at++] = 1
        out[at++] = remap[h]!
      } else {
        const from = -2 - h
        const n = pool[from]!
        out[at++] = n
        for (let i = 1; i <= n; i++) out[at++] = remap[pool[from + i]!]!
      }
    }
    return { blob, ends, forward: out }
  }

  static load(data: ExactDump): ExactField {
    const f = new ExactField()
    // the offsets are copied out of the snapshot's buffer, which can then be freed
    f.values = Values.of(data.blob, data.ends.slice())
    const fw = data.forward
    // the dump's layout is the pool's: lists are copied as they are, single values go to head
    let docs = 0
    let listed = 0
    for (let at = 0; at < fw.length; docs++) {
      const n = fw[at]!
      if (n > 1) listed += n + 1
      at += n + 1
    }
    const forward = f.forward
    forward.ensure(Math.max(0, docs - 1))
    forward.pool = new Uint32Array(Math.max(16, listed))
    for (let at = 0, doc = 0; at < fw.length; doc++) {
      const n = fw[at]!
      if (n === 1) forward.head[doc] = fw[at + 1]!
      else if (n > 1) {
        forward.head[doc] = -2 - forward.used
        forward.pool.set(fw.subarray(at, at + n + 1), forward.used)
        forward.used += n + 1
      }
      at += n + 1
    }
    return f
  }
}
