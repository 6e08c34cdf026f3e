// MiniSearch holding the analysed text fields; the engine reads its postings directly (no per-hit callbacks).
import MiniSearch from 'minisearch'
import { TEXT_FIELDS, type TextField } from './document'

/** What is added to MiniSearch: the document number and pre-analysed terms per field. */
interface TextDoc {
  n: number
  text: Record<TextField, string[]>
}

/** Per MiniSearch field: short id → term frequency. */
export type Postings = Map<number, number>
type FieldTermData = Map<number, Postings>

/**
 * Postings loaded from a snapshot: kept as the snapshot's (short id, tf) pairs until MiniSearch
 * changes them (a document with the term is added or removed), when they become a real Map.
 * The engine reads the pairs directly (`eachPosting`), so most terms never become Maps: loading
 * is fast and memory stays compact.
 */
export class LazyPostings extends Map<number, number> {
  constructor(
    public pairs: Uint32Array | null,
    private count: number,
  ) {
    super()
  }
  private fill() {
    const p = this.pairs
    if (!p) return
    this.pairs = null
    for (let i = 0; i < p.length; i += 2) super.set(p[i]!, p[i + 1]!)
  }
  override get size() {
    return this.pairs ? this.count : super.size
  }
  override get(k: number) {
    this.fill()
    return super.get(k)
  }
  override has(k: number) {
    this.fill()
    return super.has(k)
  }
  override set(k: number, v: number) {
    this.fill()
    return super.set(k, v)
  }
  override delete(k: number) {
    this.fill()
    return super.delete(k)
  }
  override clear() {
    this.pairs = null
    super.clear()
  }
  override forEach(fn: (v: number, k: number, m: Map<number, number>) => void, self?: unknown) {
    this.fill()
    super.forEach(fn, self)
  }
  override entries() {
    this.fill()
    return super.entries()
  }
  override keys() {
    this.fill()
    return super.keys()
  }
  override values() {
    this.fill()
    return super.values()
  }
  override [Symbol.iterator]() {
    this.fill()
    return super[Symbol.iterator]()
  }
}

/** Calls fn(short id, tf) for every posting, without materialising lazy postings. */
export function eachPosting(postings: Postings, fn: (short: number, tf: number) => void) {
  const pairs = postings instanceof LazyPostings ? postings.pairs : null
  if (pairs) {
    for (let i = 0; i < pairs.length; i += 2) fn(pairs[i]!, pairs[i + 1]!)
  } else {
    for (const [short, tf] of postings) fn(short, tf)
  }
}

export const FIELD_ID: Record<TextField, number> = Object.fromEntries(TEXT_FIELDS.map((f, i) => [f, i])) as Record<
  TextField,
  number
>

const OPTIONS = {
  idField: 'n',
  fields: [...TEXT_FIELDS],
  extractField: (doc: TextDoc, field: string) =>
    field === 'n' ? doc.n : doc.text[field as TextField].join(' '),
  tokenize: (s: string) => (s ? s.split(' ') : []),
  processTerm: (t: string) => t,
  // Discarded documents' postings are skipped through shortToDoc; vacuuming would also turn every
  // lazy posting list into a Map. The service compacts instead (snapshot + restore in memory).
  autoVacuum: false,
}

export interface TextSnapshot {
  documentCount: number
  nextId: number
  avgFieldLength: number[]
  /** Per live document: short id, document number, then one length per field. */
  docs: Uint32Array
  terms: string[]
  /** Per term, in `terms` order: field count, then per field: field id, n, n × (short id, tf). */
  postings: Uint32Array
}

/**
 * MiniSearch with the analysis done beforehand (terms are added as they come) and read access
 * to its inverted index, so that the engine can score and combine postings itself.
 */
export class TextIndex extends MiniSearch<TextDoc> {
  /** short id → document number (-1: discarded). */
  private shortToDoc = new Int32Array(1024).fill(-1)
  /** Field lengths by short id, one array per field (BM25 without Map lookups). */
  private lengths: Uint32Array[] = TEXT_FIELDS.map(() => new Uint32Array(1024))

  constructor() {
    super(OPTIONS)
  }

  put(doc: number, text: Record<TextField, string[]>) {
    this.drop(doc)
    this.add({ n: doc, text })
    const short = this._idToShortId.get(doc)!
    this.link(short, doc)
    const lengths = this._fieldLength.get(short)
    for (let f = 0; f < this.lengths.length; f++) this.lengths[f]![short] = lengths?.[f] ?? 0
  }

  drop(doc: number) {
    const short = this._idToShortId.get(doc)
    if (short === undefined) return
    this.shortToDoc[short] = -1
    this.discard(doc)
  }

  private link(short: number, doc: number) {
    if (short >= this.shortToDoc.length) {
      const grown = new Int32Array(Math.max(short + 1, this.shortToDoc.length * 2)).fill(-1)
      grown.set(this.shortToDoc)
      this.shortToDoc = grown
      this.lengths = this.lengths.map((old) => {
        const l = new Uint32Array(grown.length)
        l.set(old)
        return l
      })
    }
    this.shortToDoc[short] = doc
  }

  /** Discarded documents whose postings are still in the index. */
  get dirt() {
    return this._dirtCount
  }

  /** The document number of a short id, or -1 for a discarded document. */
  docOf(short: number): number {
    return short < this.shortToDoc.length ? this.shortToDoc[short]! : -1
  }

  termData(term: string): FieldTermData | undefined {
    return this._index.get(term)
  }

  /** Every indexed term starting with `prefix`, with its data. */
  *withPrefix(prefix: string): Iterable<[string, FieldTermData]> {
    yield* this._index.atPrefix(prefix).entries()
  }

  fuzzy(term: string, maxDistance: number): Iterable<[string, FieldTermData]> {
    const out: [string, FieldTermData][] = []
    for (const [t, [data]] of this._index.fuzzyGet(term, maxDistance)) out.push([t, data])
    return out
  }

  /** Number of terms of a field in a document (BM25 length normalisation). */
  fieldLength(short: number, field: number): number {
    return this.lengths[field]![short] ?? 0
  }

  avgFieldLength(field: number): number {
    return this._avgFieldLength[field] || 1
  }

  get liveCount(): number {
    return this._documentCount
  }

  /** Short ids of the documents with at least one term in this field. */
  *nonEmpty(field: number): Iterable<number> {
    for (const [short, lengths] of this._fieldLength) if ((lengths[field] ?? 0) > 0) yield short
  }

  dump(): TextSnapshot {
    const nFields = TEXT_FIELDS.length
    const docs: number[] = []
    for (const [short, lengths] of this._fieldLength) {
      const doc = this.docOf(short)
      if (doc < 0) continue
      docs.push(short, doc)
      for (let f = 0; f < nFields; f++) docs.push(lengths[f] ?? 0)
    }
    const terms: string[] = []
    const out = new Growable()
    for (const [term, data] of this._index) {
      const start = out.length
      out.push(0)
      for (const [field, freqs] of data) {
        const at = out.length
        out.push(field, 0)
        let n = 0
        eachPosting(freqs, (short, tf) => {
          if (this.docOf(short) < 0) return
          out.push2(short, tf)
          n++
        })
        if (n === 0) out.length = at
        else {
          out.set(at + 1, n)
          out.set(start, out.get(start) + 1)
        }
      }
      if (out.get(start) === 0) out.length = start
      else terms.push(term)
    }
    return {
      documentCount: docs.length / (2 + nFields),
      nextId: this._nextId,
      avgFieldLength: this._avgFieldLength,
      docs: Uint32Array.from(docs),
      terms,
      postings: out.array(),
    }
  }

  /**
   * Builds the index of many documents at once (a full rebuild): postings are gathered per term
   * and loaded like a snapshot, far faster than adding documents one by one. Short ids are the
   * document numbers.
   */
  static bulk(docs: { n: number; text: Record<TextField, string[]> }[]): TextIndex {
    const nFields = TEXT_FIELDS.length
    const termIds = new Map<string, number>()
    const terms: string[] = []
    const lists: number[][][] = []
    const meta: number[] = []
    const totals: number[] = TEXT_FIELDS.map(() => 0)
    let next = 0
    for (const { n, text } of docs) {
      next = Math.max(next, n + 1)
      meta.push(n, n)
      TEXT_FIELDS.forEach((field, f) => {
        const counts = new Map<string, number>()
        for (const t of text[field]) counts.set(t, (counts.get(t) ?? 0) + 1)
        meta.push(counts.size)
        totals[f]! += counts.size
        for (const [t, tf] of counts) {
          let id = termIds.get(t)
          if (id === undefined) {
            termIds.set(t, (id = terms.length))
            terms.push(t)
            lists.push([])
          }
          ;(lists[id]![f] ??= []).push(n, tf)
        }
      })
    }
    const out = new Growable()
    for (const perField of lists) {
      out.push(perField.filter(Boolean).length)
      perField.forEach((flat, f) => {
        if (!flat) return
        out.push2(f, flat.length / 2)
        for (let i = 0; i < flat.length; i += 2) out.push2(flat[i]!, flat[i + 1]!)
      })
    }
    return TextIndex.load({
      documentCount: docs.length,
      nextId: next,
      avgFieldLength: totals.map((t) => (docs.length ? t / docs.length : 0)),
      docs: Uint32Array.from(meta),
      terms,
      postings: out.array(),
    })
  }

  static load(s: TextSnapshot): TextIndex {
    const t = new TextIndex()
    const nFields = TEXT_FIELDS.length
    t._documentCount = s.documentCount
    t._nextId = s.nextId
    t._avgFieldLength = s.avgFieldLength
    const docs = s.docs
    for (let i = 0; i < docs.length; i += 2 + nFields) {
      const short = docs[i]!
      const doc = docs[i + 1]!
      t._documentIds.set(short, doc)
      t._idToShortId.set(doc, short)
      t._fieldLength.set(short, Array.from(docs.subarray(i + 2, i + 2 + nFields)))
      t.link(short, doc)
      for (let f = 0; f < nFields; f++) t.lengths[f]![short] = docs[i + 2 + f]!
    }
    const p = s.postings
    let at = 0
    for (const term of s.terms) {
      const data: FieldTermData = new Map()
      const fields = p[at++]!
      for (let f = 0; f < fields; f++) {
        const field = p[at++]!
        const n = p[at++]!
        data.set(field, new LazyPostings(p.subarray(at, at + 2 * n), n))
        at += 2 * n
      }
      t._index.set(term, data)
    }
    return t
  }
}

/** An append-only Uint32Array that doubles as it grows. */
export class Growable {
  private buf = new Uint32Array(1 << 16)
  length = 0
  push(...xs: number[]) {
    if (this.length + xs.length > this.buf.length) {
      const grown = new Uint32Array(Math.max(this.buf.length * 2, this.length + xs.length))
      grown.set(this.buf.subarray(0, this.length))
      this.buf = grown
    }
    for (const x of xs) this.buf[this.length++] = x
  }
  /** Appends two values (the hot path of dump()). */
  push2(a: number, b: number) {
    if (this.length + 2 > this.buf.length) {
      const grown = new Uint32Array(this.buf.length * 2)
      grown.set(this.buf.subarray(0, this.length))
      this.buf = grown
    }
    this.buf[this.length++] = a
    this.buf[this.length++] = b
  }
  get(i: number) {
    return this.buf[i]!
  }
  set(i: number, v: number) {
    this.buf[i] = v
  }
  array(): Uint32Array {
    return this.buf.slice(0, this.length)
  }
}
