// An exact-value field: value ids, each document's values (facets, sorting), and per value its
// documents (built on first use: most fields of a restored index are never queried). Most values
// belong to one document (ids, names, titles, URLs): that document is kept in a typed array, and
// only values with more get a Set.

const NONE = -1
const MANY = -2

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

export class ExactField {
  private readonly ids = new Map<string, number>()
  readonly values: string[] = []
  /** Document number → value id(s), distinct, first value first. */
  private readonly forward = new Forward()
  /** Per value id: its only document, NONE, or MANY (see `many`); null until first needed. */
  private one: Int32Array | null = new Int32Array(16).fill(NONE)
  private many = new Map<number, Set<number>>()

  idOf(value: string): number | undefined {
    return this.ids.get(value)
  }

  private intern(value: string): number {
    let id = this.ids.get(value)
    if (id === undefined) {
      id = this.values.length
      this.ids.set(value, id)
      this.values.push(value)
      if (this.one && id >= this.one.length) {
        const grown = new Int32Array(this.one.length * 2).fill(NONE)
        grown.set(this.one)
        this.one = grown
      }
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
      this.one = new Int32Array(Math.max(16, this.values.length)).fill(NONE)
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
    const id = this.ids.get(value)
    return id === undefined ? undefined : this.docsOf(id)
  }

  /** The first value of a document (sorting). */
  first(doc: number): string | undefined {
    const { head, pool } = this.forward
    const h = doc < head.length ? head[doc]! : NONE
    if (h === NONE) return undefined
    return this.values[h >= 0 ? h : pool[-2 - h + 1]!]
  }

  /** Every (value, documents) pair whose value passes the test. */
  *matching(test: (value: string) => boolean): Iterable<Iterable<number>> {
    const one = this.postings()
    for (let id = 0; id < this.values.length; id++) {
      if (one[id] !== NONE && test(this.values[id]!)) yield this.docsOf(id)
    }
  }

  /** Serialisable form: the values, and per document its value count then its value ids. */
  dump(docs: number): { values: string[]; forward: Uint32Array } {
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
        out[at++] = h
      } else {
        const from = -2 - h
        const n = pool[from]!
        out.set(pool.subarray(from, from + n + 1), at)
        at += n + 1
      }
    }
    return { values: this.values, forward: out }
  }

  static load(data: { values: string[]; forward: Uint32Array }): ExactField {
    const f = new ExactField()
    f.one = null
    for (const v of data.values) f.intern(v)
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
