// An exact-value field: value ids, each document's values (facets, sorting), and per value the set
// of its documents (built on first use: most fields of a restored index are never queried).

/** A document's value ids: one id, or a list for multi-valued fields. */
type Forward = number | number[] | undefined

export class ExactField {
  private readonly ids = new Map<string, number>()
  readonly values: string[] = []
  /** Document number → value id(s), distinct, first value first. */
  readonly forward: Forward[] = []
  private postings: Set<number>[] | null = []

  idOf(value: string): number | undefined {
    return this.ids.get(value)
  }

  private intern(value: string): number {
    let id = this.ids.get(value)
    if (id === undefined) {
      id = this.values.length
      this.ids.set(value, id)
      this.values.push(value)
      this.postings?.push(new Set())
    }
    return id
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
    if (this.postings) for (const id of ids) this.postings[id]!.add(doc)
  }

  remove(doc: number) {
    const f = this.forward[doc]
    if (f === undefined) return
    if (this.postings) for (const id of typeof f === 'number' ? [f] : f) this.postings[id]!.delete(doc)
    this.forward[doc] = undefined
  }

  private sets(): Set<number>[] {
    if (!this.postings) {
      const sets = this.values.map(() => new Set<number>())
      this.forward.forEach((f, doc) => {
        if (f === undefined) return
        if (typeof f === 'number') sets[f]!.add(doc)
        else for (const id of f) sets[id]!.add(doc)
      })
      this.postings = sets
    }
    return this.postings
  }

  /** The documents holding this exact value. */
  docs(value: string): Set<number> | undefined {
    const id = this.ids.get(value)
    return id === undefined ? undefined : this.sets()[id]
  }

  /** The first value of a document (sorting). */
  first(doc: number): string | undefined {
    const f = this.forward[doc]
    if (f === undefined) return undefined
    return this.values[typeof f === 'number' ? f : f[0]!]
  }

  /** Every (value, documents) pair whose value passes the test. */
  *matching(test: (value: string) => boolean): Iterable<Set<number>> {
    const sets = this.sets()
    for (let id = 0; id < this.values.length; id++) {
      if (sets[id]!.size && test(this.values[id]!)) yield sets[id]!
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
    f.postings = null
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
