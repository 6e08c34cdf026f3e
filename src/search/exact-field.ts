// An exact-value field: value ids, each document's values (facets, sorting), and per value its
// documents (built on first use: most fields of a restored index are never queried). Most values
// belong to one document (ids, names, titles, URLs): that document is kept in a typed array, and
// only values with more get a Set. A restored field's values are one sorted string with offsets,
// found by binary search (no string or Map entry per value: 55,000 URLs at 10,000 datasets).

const NONE = -1
const MANY = -2

/** An exact field as a snapshot holds it (see ExactField.dump). */
export interface ExactDump {
  blob: string
  ends: Uint32Array
  forward: Uint32Array
}

/**
 * Per document its value ids, in typed arrays: `head[doc]` is -1 (no value), a value id (one
 * value), or -2 - offset of a list in `pool` (its length, then its ids). A replaced list stays in
 * the pool as garbage until the index is compacted (dump and load).
 */
class Forward {
  head = new Int32Array(16).fill(NONE)
  pool = new Uint32Array(16)
  used = 0

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
    if (doc < this.head.length) this.head[doc] = NONE
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
    const remap = new Uint32Array(n)
    if (!this.added.length) {
      for (let id = 0; id < n; id++) remap[id] = id
      return { blob: this.blob, ends: this.ends, remap }
    }
    const added = this.added.map((v, i) => ({ v: v.replace(LONE_SURROGATE, '\ufffd'), id: base + i }))
    added.sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : 0))
    const ends = new Uint32Array(n)
    const parts: string[] = []
    let length = 0
    let i = 0
    let j = 0
    const put = (v: string, id: number) => {
      remap[id] = i + j - 1
      parts.push(v)
      length += v.length
      ends[i + j - 1] = length
    }
    while (i < base || j < added.length) {
      const b = i < base ? this.get(i) : undefined
      const a = added[j]
      if (a === undefined || (b !== undefined && b <= a.v)) {
        i++
        put(b!, i - 1)
      } else {
        j++
        put(a.v, a.id)
      }
    }
    return { blob: parts.join(''), ends, remap }
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
  /** Per value id: its only document, NONE, or MANY (see `many`); null until first needed. */
  private one: Int32Array | null = new Int32Array(16).fill(NONE)
  private many = new Map<number, Set<number>>()

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

  private intern(value: string): number {
    const id = this.values.intern(value)
    if (this.one && id >= this.one.length) {
      const grown = new Int32Array(this.one.length * 2).fill(NONE)
      grown.set(this.one)
      this.one = grown
    }
    return id
  }

  private add(id: number, doc: number) {
    const one = this.one!
    const o = one[id]!
    if (o === NONE) one[id] = doc
    else if (o === MANY) this.many.get(id)!.add(doc)
    else if (o !== doc) {
      this.many.set(id, new Set([o, doc]))
      one[id] = MANY
    }
  }

  private delete(id: number, doc: number) {
    const one = this.one!
    const o = one[id]!
    if (o === doc) one[id] = NONE
    else if (o === MANY) {
      const set = this.many.get(id)!
      set.delete(doc)
      if (set.size <= 1) {
        this.many.delete(id)
        one[id] = set.size ? set.values().next().value! : NONE
      }
    }
  }

  /** The documents of a value id. */
  private docsOf(id: number): Iterable<number> {
    const o = this.postings()[id]!
    return o === NONE ? [] : o === MANY ? this.many.get(id)! : [o]
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
    this.remove(doc)
    if (!values.length) return
    const ids: number[] = []
    for (const v of values) {
      const id = this.intern(v)
      if (!ids.includes(id)) ids.push(id)
    }
    this.forward.set(doc, ids)
    if (this.one) for (const id of ids) this.add(id, doc)
  }

  remove(doc: number) {
    const ids = this.forward.of(doc)
    if (!ids.length) return
    if (this.one) for (const id of ids) this.delete(id, doc)
    this.forward.clear(doc)
  }

  private postings(): Int32Array {
    if (!this.one) {
      this.one = new Int32Array(Math.max(16, this.values.size)).fill(NONE)
      const { head, pool } = this.forward
      for (let doc = 0; doc < head.length; doc++) {
        const h = head[doc]!
        if (h >= 0) this.add(h, doc)
        else if (h !== NONE) {
          const at = -2 - h
          for (let i = 1; i <= pool[at]!; i++) this.add(pool[at + i]!, doc)
        }
      }
    }
    return this.one
  }

  /** The documents holding this exact value. */
  docs(value: string): Iterable<number> | undefined {
    const id = this.values.idOf(value)
    return id === undefined ? undefined : this.docsOf(id)
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
    const one = this.postings()
    for (let id = 0; id < this.values.size; id++) {
      if (one[id] !== NONE && test(this.values.get(id))) yield this.docsOf(id)
    }
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
    f.one = null
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
