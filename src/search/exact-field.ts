// An exact-value field: value ids, each document's values (facets, sorting), and per value its
// documents (built on first use: most fields of a restored index are never queried). Most values
// belong to one document (ids, names, titles, URLs): that document is kept in a typed array, and
// only values with more get a Set.

/** A document's value ids: one id, or a list for multi-valued fields. */
type Forward = number | number[] | undefined

const NONE = -1
const MANY = -2

export class ExactField {
  private readonly ids = new Map<string, number>()
  readonly values: string[] = []
  /** Document number → value id(s), distinct, first value first. */
  readonly forward: Forward[] = []
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
    const f = this.forward[doc]
    return f === undefined ? [] : typeof f === 'number' ? [f] : f
  }

  set(doc: number, values: string[]) {
    this.remove(doc)
    if (!values.length) return
    const ids: number[] = []
    for (const v of values) {
      const id = this.intern(v)
      if (!ids.includes(id)) ids.push(id)
    }
    this.forward[doc] = ids.length === 1 ? ids[0] : ids
    if (this.one) for (const id of ids) this.add(id, doc)
  }

  remove(doc: number) {
    const f = this.forward[doc]
    if (f === undefined) return
    if (this.one) for (const id of typeof f === 'number' ? [f] : f) this.delete(id, doc)
    this.forward[doc] = undefined
  }

  private postings(): Int32Array {
    if (!this.one) {
      this.one = new Int32Array(Math.max(16, this.values.length)).fill(NONE)
      this.forward.forEach((f, doc) => {
        if (f === undefined) return
        if (typeof f === 'number') this.add(f, doc)
        else for (const id of f) this.add(id, doc)
      })
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
    const f = this.forward[doc]
    if (f === undefined) return undefined
    return this.values[typeof f === 'number' ? f : f[0]!]
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
    const out = new Uint32Array(docs + this.forwardEntries(docs))
    let at = 0
    for (let d = 0; d < docs; d++) {
      const f = this.forward[d]
      if (f === undefined) out[at++] = 0
      else if (typeof f === 'number') {
        out[at++] = 1
        out[at++] = f
      } else {
        out[at++] = f.length
        for (const id of f) out[at++] = id
      }
    }
    return { values: this.values, forward: out }
  }

  private forwardEntries(docs: number): number {
    let n = 0
    for (let d = 0; d < docs; d++) {
      const f = this.forward[d]
      if (f !== undefined) n += typeof f === 'number' ? 1 : f.length
    }
    return n
  }

  static load(data: { values: string[]; forward: Uint32Array }): ExactField {
    const f = new ExactField()
    f.one = null
    for (const v of data.values) f.intern(v)
    const fw = data.forward
    for (let at = 0, doc = 0; at < fw.length; doc++) {
      const n = fw[at++]!
      if (n === 1) f.forward[doc] = fw[at]!
      else if (n > 1) f.forward[doc] = Array.from(fw.subarray(at, at + n))
      at += n
    }
    return f
  }
}
