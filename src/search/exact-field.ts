// An exact-value field: value ids, a set of documents per value, and each document's values (facets, sorting).

export class ExactField {
  private readonly ids = new Map<string, number>()
  readonly values: string[] = []
  readonly postings: Set<number>[] = []
  /** Document number → value ids (distinct, first value first). */
  readonly forward: (number[] | undefined)[] = []

  idOf(value: string): number | undefined {
    return this.ids.get(value)
  }

  private intern(value: string): number {
    let id = this.ids.get(value)
    if (id === undefined) {
      id = this.values.length
      this.ids.set(value, id)
      this.values.push(value)
      this.postings.push(new Set())
    }
    return id
  }

  set(doc: number, values: string[]) {
    this.remove(doc)
    if (!values.length) return
    const ids: number[] = []
    for (const v of values) {
      const id = this.intern(v)
      if (ids.includes(id)) continue
      ids.push(id)
      this.postings[id]!.add(doc)
    }
    this.forward[doc] = ids
  }

  remove(doc: number) {
    const old = this.forward[doc]
    if (!old) return
    for (const id of old) this.postings[id]!.delete(doc)
    this.forward[doc] = undefined
  }

  /** The documents holding this exact value. */
  docs(value: string): Set<number> | undefined {
    const id = this.ids.get(value)
    return id === undefined ? undefined : this.postings[id]
  }

  /** The first value of a document (sorting). */
  first(doc: number): string | undefined {
    const f = this.forward[doc]
    return f && f.length ? this.values[f[0]!] : undefined
  }

  /** Every (value, documents) pair whose value passes the test. */
  *matching(test: (value: string) => boolean): Iterable<Set<number>> {
    for (let id = 0; id < this.values.length; id++) {
      if (this.postings[id]!.size && test(this.values[id]!)) yield this.postings[id]!
    }
  }

  /** Serialisable form: the values, and per document its value count then its value ids. */
  dump(docs: number): { values: string[]; forward: Uint32Array } {
    const out: number[] = []
    for (let d = 0; d < docs; d++) {
      const f = this.forward[d]
      if (!f) out.push(0)
      else out.push(f.length, ...f)
    }
    return { values: this.values, forward: Uint32Array.from(out) }
  }

  static load(data: { values: string[]; forward: Uint32Array }): ExactField {
    const f = new ExactField()
    for (const v of data.values) f.intern(v)
    const fw = data.forward
    for (let at = 0, doc = 0; at < fw.length; doc++) {
      const n = fw[at++]!
      if (!n) continue
      const ids = Array.from(fw.subarray(at, at + n))
      at += n
      f.forward[doc] = ids
      for (const id of ids) f.postings[id]!.add(doc)
    }
    return f
  }
}
