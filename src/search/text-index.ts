// The analysed text fields: a frozen, compact segment (sorted terms, varint postings in one byte
// array: what the snapshot stores and loads without conversion), a second, smaller frozen segment
// of the documents added since that one was written, and a small live MiniSearch for the documents
// added since the last freeze. A freeze rewrites only the small frozen segment; it is merged into
// the big one once it is an eighth of its size, so a growing index rewrites each byte a few times,
// not at every freeze. The engine reads postings directly (no per-hit callbacks).
import MiniSearch from 'minisearch'
import { TEXT_FIELDS, type TextField } from './document'

/** What is added to MiniSearch: the document number and pre-analysed terms per field. */
interface TextDoc {
  n: number
  text: Record<TextField, string[]>
}

/** Per MiniSearch field: short id → term frequency. */
type Postings = Map<number, number>
type FieldTermData = Map<number, Postings>

/**
 * A term's postings in the three segments: its index in the big frozen segment's terms and in the
 * small one's (-1: none), its live data.
 */
export interface TermRef {
  f: number
  d: number
  live: FieldTermData | undefined
}

export const FIELD_ID: Record<TextField, number> = Object.fromEntries(TEXT_FIELDS.map((f, i) => [f, i])) as Record<
  TextField,
  number
>
const N_FIELDS = TEXT_FIELDS.length

const OPTIONS = {
  idField: 'n',
  fields: [...TEXT_FIELDS],
  extractField: (doc: TextDoc, field: string) =>
    field === 'n' ? doc.n : doc.text[field as TextField].join(' '),
  tokenize: (s: string) => (s ? s.split(' ') : []),
  processTerm: (t: string) => t,
  // Discarded documents' postings are skipped through shortToDoc and dropped when the live
  // segment is frozen.
  autoVacuum: false,
}

/** Live documents (added since the last freeze) after which the live segment is frozen. */
const LIVE_MAX = 500

/** The live segment: MiniSearch with its inverted index readable. */
class LiveText extends MiniSearch<TextDoc> {
  constructor(nextId: number) {
    super(OPTIONS)
    this._nextId = nextId
  }
  get index() {
    return this._index
  }
  shortOf(doc: number): number | undefined {
    return this._idToShortId.get(doc)
  }
  lengthsOf(short: number): number[] | undefined {
    return this._fieldLength.get(short)
  }
  get dirt() {
    return this._dirtCount
  }
  get added() {
    return this._idToShortId.size
  }
  get nextId() {
    return this._nextId
  }
}

/**
 * The frozen segment. Terms are sorted (UTF-16 code unit order); term i's entry starts at byte
 * `at[i]` of `bytes`: field count, then per field (ascending): field id, varint n, varint last
 * short id, varint byte length, then n postings in ascending short id, each
 * varint(gap × 2 + (tf > 1)) [+ varint(tf) if tf > 1]. A freeze that drops nothing appends the new
 * postings to a list after its bytes as they are.
 */
interface Frozen {
  terms: string[]
  at: Uint32Array
  bytes: Uint8Array
}

export interface TextSnapshot {
  nextId: number
  /** Per live document: short id, document number, then one length per field. */
  docs: Uint32Array
  terms: string[]
  at: Uint32Array
  bytes: Uint8Array
}

const EMPTY: Frozen = { terms: [], at: new Uint32Array(1), bytes: new Uint8Array(0) }

export class TextIndex {
  private frozen: Frozen = EMPTY
  /** The small frozen segment: short ids from `deltaStart` on (the big one has those below). */
  private delta: Frozen = EMPTY
  private deltaStart = 0
  private live = new LiveText(0)
  /** short id → document number (-1: discarded). */
  private shortToDoc = new Int32Array(1024).fill(-1)
  /** document number → short id (-1: none). */
  private docToShort = new Int32Array(1024).fill(-1)
  /** Field lengths (distinct terms) by short id, one array per field. */
  private lengths: Uint32Array[] = TEXT_FIELDS.map(() => new Uint32Array(1024))
  private totals = new Float64Array(N_FIELDS)
  private count = 0
  /** Discarded documents whose postings are still in the big / small frozen segment. */
  private frozenDead = 0
  private deltaDead = 0

  /** `deltaMinBytes`: the small frozen segment is merged into the big one only past this size. */
  constructor(private readonly opts: { deltaMinBytes?: number } = {}) {}

  put(doc: number, text: Record<TextField, string[]>) {
    this.drop(doc)
    if (this.live.added >= LIVE_MAX) this.freeze()
    this.live.add({ n: doc, text })
    const short = this.live.shortOf(doc)!
    const lengths = this.live.lengthsOf(short)
    this.link(short, doc)
    for (let f = 0; f < N_FIELDS; f++) this.setLength(short, f, lengths?.[f] ?? 0)
  }

  drop(doc: number) {
    const short = doc < this.docToShort.length ? this.docToShort[doc]! : -1
    if (short < 0) return
    this.shortToDoc[short] = -1
    this.docToShort[doc] = -1
    this.count--
    for (let f = 0; f < N_FIELDS; f++) this.totals[f]! -= this.lengths[f]![short]!
    if (this.live.shortOf(doc) === short) this.live.discard(doc)
    else if (short >= this.deltaStart) this.deltaDead++
    else this.frozenDead++
  }

  private setLength(short: number, f: number, n: number) {
    this.lengths[f]![short] = n
    this.totals[f]! += n
  }

  private link(short: number, doc: number) {
    if (short >= this.shortToDoc.length) {
      const size = Math.max(short + 1, this.shortToDoc.length * 2)
      const grown = new Int32Array(size).fill(-1)
      grown.set(this.shortToDoc)
      this.shortToDoc = grown
      this.lengths = this.lengths.map((old) => {
        const l = new Uint32Array(size)
        l.set(old)
        return l
      })
    }
    if (doc >= this.docToShort.length) {
      const grown = new Int32Array(Math.max(doc + 1, this.docToShort.length * 2)).fill(-1)
      grown.set(this.docToShort)
      this.docToShort = grown
    }
    this.shortToDoc[short] = doc
    this.docToShort[doc] = short
    this.count++
  }

  /** Discarded documents whose postings are still in the index. */
  get dirt() {
    return this.frozenDead + this.deltaDead + this.live.dirt
  }

  /** The document number of a short id, or -1 for a discarded document. */
  docOf(short: number): number {
    return short < this.shortToDoc.length ? this.shortToDoc[short]! : -1
  }

  termData(term: string): TermRef | undefined {
    const f = find(this.frozen, term)
    const d = find(this.delta, term)
    const live = this.live.index.get(term)
    return f < 0 && d < 0 && !live ? undefined : { f, d, live }
  }

  /** Every indexed term starting with `prefix`, with its data. */
  *withPrefix(prefix: string): Iterable<[string, TermRef]> {
    const out = new Map<string, TermRef>()
    for (const [seg, key] of [[this.frozen, 'f'], [this.delta, 'd']] as const) {
      const { terms } = seg
      for (let i = lowerBound(terms, prefix); i < terms.length && terms[i]!.startsWith(prefix); i++) {
        const t = terms[i]!
        let ref = out.get(t)
        if (!ref) out.set(t, (ref = { f: -1, d: -1, live: undefined }))
        ref[key] = i
      }
    }
    for (const [t, data] of this.live.index.atPrefix(prefix).entries()) {
      const ref = out.get(t)
      if (ref) ref.live = data
      else out.set(t, { f: -1, d: -1, live: data })
    }
    yield* out
  }

  /** Every indexed term within `maxDistance` edits of `term`. */
  fuzzy(term: string, maxDistance: number): Iterable<[string, TermRef]> {
    const out = new Map<string, TermRef>()
    for (const [seg, key] of [[this.frozen, 'f'], [this.delta, 'd']] as const) {
      for (const i of fuzzySorted(seg.terms, term, maxDistance)) {
        const t = seg.terms[i]!
        let ref = out.get(t)
        if (!ref) out.set(t, (ref = { f: -1, d: -1, live: undefined }))
        ref[key] = i
      }
    }
    for (const [t, [data]] of this.live.index.fuzzyGet(term, maxDistance)) {
      const ref = out.get(t)
      if (ref) ref.live = data
      else out.set(t, { f: -1, d: -1, live: data })
    }
    return out
  }

  /** Number of postings of the term in this field (discarded documents included). */
  df(ref: TermRef, field: number): number {
    let n = ref.live?.get(field)?.size ?? 0
    if (ref.f >= 0) {
      const at = fieldAt(this.frozen, ref.f, field)
      if (at >= 0) n += readVarint(this.frozen.bytes, at).value
    }
    if (ref.d >= 0) {
      const at = fieldAt(this.delta, ref.d, field)
      if (at >= 0) n += readVarint(this.delta.bytes, at).value
    }
    return n
  }

  /** Calls fn(short id, tf) for every posting of the term in this field, in ascending short id. */
  eachPosting(ref: TermRef, field: number, fn: (short: number, tf: number) => void) {
    if (ref.f >= 0) {
      const at = fieldAt(this.frozen, ref.f, field)
      if (at >= 0) decodeList(this.frozen.bytes, at, fn)
    }
    if (ref.d >= 0) {
      const at = fieldAt(this.delta, ref.d, field)
      if (at >= 0) decodeList(this.delta.bytes, at, fn)
    }
    const live = ref.live?.get(field)
    if (live) for (const [short, tf] of live) fn(short, tf)
  }

  /** Number of terms of a field in a document (BM25 length normalisation). */
  fieldLength(short: number, field: number): number {
    return this.lengths[field]![short] ?? 0
  }

  avgFieldLength(field: number): number {
    return this.count ? this.totals[field]! / this.count || 1 : 1
  }

  /** The total number of terms of a field over every document (BM25's average, with count). */
  totalFieldLength(field: number): number {
    return this.totals[field]!
  }

  get liveCount(): number {
    return this.count
  }

  /** Short ids of the documents with at least one term in this field. */
  *nonEmpty(field: number): Iterable<number> {
    const l = this.lengths[field]!
    for (let s = 0; s < this.shortToDoc.length; s++) if (this.shortToDoc[s]! >= 0 && l[s]! > 0) yield s
  }

  /**
   * Merges the live segment into the small frozen one, dropping the postings of discarded
   * documents, and that one into the big one once it is an eighth of its size. Short ids are
   * kept; the new live segment numbers on from the highest.
   */
  freeze() {
    if (this.live.index.size || this.deltaDead) {
      const live = [...this.live.index.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      this.delta = this.merge(
        this.delta,
        this.deltaDead === 0,
        live.map((e) => e[0]),
        (j, f, fn) => {
          const postings = live[j]![1].get(f)
          if (postings) for (const [short, tf] of postings) fn(short, tf)
        },
      )
      this.deltaDead = 0
      this.live = new LiveText(this.live.nextId)
    }
    if (this.delta.bytes.length > Math.max(this.opts.deltaMinBytes ?? 1 << 16, this.frozen.bytes.length >>> 3)) {
      this.mergeDelta()
    }
  }

  /** Merges the small frozen segment into the big one (the live one must be empty). */
  private mergeDelta() {
    if (!this.delta.terms.length && !this.frozenDead) return
    const delta = this.delta
    this.frozen = this.merge(this.frozen, this.frozenDead === 0, delta.terms, (j, f, fn) => {
      const at = fieldAt(delta, j, f)
      if (at >= 0) decodeList(delta.bytes, at, fn)
    })
    this.delta = EMPTY
    this.frozenDead = 0
    this.deltaDead = 0
    this.deltaStart = this.live.nextId
  }

  /**
   * A frozen segment with `old`'s postings and then, per term of `terms` (sorted) and field, those
   * `postings(j, field, fn)` gives (ascending short ids above old's), discarded documents left
   * out. `clean`: old has no discarded documents, so its lists are copied as they are.
   */
  private merge(
    old: Frozen,
    clean: boolean,
    terms: string[],
    postings: (j: number, field: number, fn: (short: number, tf: number) => void) => void,
  ): Frozen {
    const outTerms: string[] = []
    const at: number[] = []
    const out = new ByteWriter(Math.max(1 << 16, old.bytes.length + (old.bytes.length >>> 3)))
    const list = new ByteWriter(1 << 12)
    let i = 0
    let j = 0
    while (i < old.terms.length || j < terms.length) {
      const a = old.terms[i]
      const b = terms[j]
      let fi = -1
      let nj = -1
      if (b === undefined || (a !== undefined && a < b)) fi = i++
      else if (a === undefined || b < a) nj = j++
      else {
        fi = i++
        nj = j++
      }
      const term = fi >= 0 ? a! : b!
      if (clean && nj < 0) {
        // untouched since the last merge: its bytes as they are
        outTerms.push(term)
        at.push(out.length)
        out.bytes(old.bytes.subarray(old.at[fi]!, old.at[fi + 1]!))
        continue
      }
      const start = out.length
      out.byte(0)
      let written = 0
      for (let f = 0; f < N_FIELDS; f++) {
        const p = fi >= 0 ? fieldAt(old, fi, f) : -1
        list.length = 0
        let n = 0
        let prev = 0
        const add = (short: number, tf: number) => {
          if (this.docOf(short) < 0) return
          list.posting(short - prev, tf)
          prev = short
          n++
        }
        let kept: Uint8Array | null = null
        if (p >= 0 && clean) {
          // nothing dropped: the old list's bytes, then the new postings after its last
          const h0 = readVarint(old.bytes, p)
          const h1 = readVarint(old.bytes, h0.next)
          const h2 = readVarint(old.bytes, h1.next)
          kept = old.bytes.subarray(h2.next, h2.next + h2.value)
          n = h0.value
          prev = h1.value
        } else if (p >= 0) decodeList(old.bytes, p, add)
        if (nj >= 0) postings(nj, f, add)
        if (!n) continue
        out.byte(f)
        out.varint(n)
        out.varint(prev)
        out.varint((kept?.length ?? 0) + list.length)
        if (kept) out.bytes(kept)
        out.bytes(list.view())
        written++
      }
      if (!written) {
        out.length = start
        continue
      }
      out.setByte(start, written)
      outTerms.push(term)
      at.push(start)
    }
    at.push(out.length)
    return { terms: outTerms, at: Uint32Array.from(at), bytes: out.array() }
  }

  dump(): TextSnapshot {
    this.freeze()
    this.mergeDelta()
    const docs: number[] = []
    for (let short = 0; short < this.shortToDoc.length; short++) {
      const doc = this.shortToDoc[short]!
      if (doc < 0) continue
      docs.push(short, doc)
      for (let f = 0; f < N_FIELDS; f++) docs.push(this.lengths[f]![short]!)
    }
    const { terms, at, bytes } = this.frozen
    return { nextId: this.live.nextId, docs: Uint32Array.from(docs), terms, at, bytes }
  }

  static load(s: TextSnapshot): TextIndex {
    const t = new TextIndex()
    const docs = s.docs
    for (let i = 0; i < docs.length; i += 2 + N_FIELDS) {
      const short = docs[i]!
      t.link(short, docs[i + 1]!)
      for (let f = 0; f < N_FIELDS; f++) t.setLength(short, f, docs[i + 2 + f]!)
    }
    // views into a decoded snapshot's buffer are copied out, so that the rest of it can be freed
    const own = <A extends Uint8Array | Uint32Array>(a: A): A =>
      a.byteLength < a.buffer.byteLength ? (a.slice() as A) : a
    t.frozen = { terms: s.terms, at: own(s.at), bytes: own(s.bytes) }
    t.live = new LiveText(s.nextId)
    t.deltaStart = s.nextId
    return t
  }
}

/** Byte offset of frozen term i's list for this field (at its n), or -1. */
function fieldAt(frozen: Frozen, i: number, field: number): number {
  const bytes = frozen.bytes
  let p = frozen.at[i]!
  const fields = bytes[p++]!
  for (let k = 0; k < fields; k++) {
    const id = bytes[p++]!
    const start = p
    p = readVarint(bytes, p).next // n
    p = readVarint(bytes, p).next // last
    const len = readVarint(bytes, p)
    if (id === field) return start
    if (id > field) return -1
    p = len.next + len.value
  }
  return -1
}

/** The index of a term in a frozen segment, or -1. */
function find(seg: Frozen, term: string): number {
  const i = lowerBound(seg.terms, term)
  return i < seg.terms.length && seg.terms[i] === term ? i : -1
}

/** First index whose term is ≥ `key`. */
function lowerBound(terms: string[], key: string): number {
  let lo = 0
  let hi = terms.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (terms[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

function readVarint(bytes: Uint8Array, p: number): { value: number; next: number } {
  let b = bytes[p++]!
  let value = b & 127
  let mul = 128
  while (b & 128) {
    b = bytes[p++]!
    value += (b & 127) * mul
    mul *= 128
  }
  return { value, next: p }
}

/** Decodes the list at `p` (its n, byte length, postings). */
function decodeList(bytes: Uint8Array, p: number, fn: (short: number, tf: number) => void) {
  let b = bytes[p++]!
  let n = b & 127
  let mul = 128
  while (b & 128) {
    b = bytes[p++]!
    n += (b & 127) * mul
    mul *= 128
  }
  do b = bytes[p++]!
  while (b & 128) // last
  do b = bytes[p++]!
  while (b & 128) // byte length
  let short = 0
  for (let k = 0; k < n; k++) {
    b = bytes[p++]!
    let v = b & 127
    mul = 128
    while (b & 128) {
      b = bytes[p++]!
      v += (b & 127) * mul
      mul *= 128
    }
    let tf = 1
    if (v & 1) {
      b = bytes[p++]!
      tf = b & 127
      mul = 128
      while (b & 128) {
        b = bytes[p++]!
        tf += (b & 127) * mul
        mul *= 128
      }
    }
    short += Math.floor(v / 2)
    fn(short, tf)
  }
}

/**
 * Indexes of the sorted terms within `max` edits of `query` (Levenshtein): one DP row per
 * character, shared by terms with a common prefix, and a whole prefix range skipped once its
 * row exceeds `max`.
 */
export function fuzzySorted(terms: string[], query: string, max: number): number[] {
  const m = query.length
  const rows: Uint32Array[] = [Uint32Array.from({ length: m + 1 }, (_, k) => k)]
  const out: number[] = []
  let prev = ''
  let valid = 0 // rows[0..valid] are those of prev's first `valid` characters
  let i = 0
  outer: while (i < terms.length) {
    const t = terms[i]!
    let lcp = 0
    const lim = Math.min(valid, t.length, prev.length)
    while (lcp < lim && t.charCodeAt(lcp) === prev.charCodeAt(lcp)) lcp++
    for (let k = lcp + 1; k <= t.length; k++) {
      const above = rows[k - 1]!
      const row = (rows[k] ??= new Uint32Array(m + 1))
      row[0] = k
      let min = k
      const c = t.charCodeAt(k - 1)
      for (let x = 1; x <= m; x++) {
        const v = Math.min(above[x]! + 1, row[x - 1]! + 1, above[x - 1]! + (query.charCodeAt(x - 1) === c ? 0 : 1))
        row[x] = v
        if (v < min) min = v
      }
      if (min > max) {
        // no term starting with t[0..k) can come within max: skip them all
        prev = t
        valid = k - 1
        const stem = t.slice(0, k)
        i++
        while (i < terms.length && terms[i]!.startsWith(stem)) i++
        continue outer
      }
    }
    if (rows[t.length]![m]! <= max) out.push(i)
    prev = t
    valid = t.length
    i++
  }
  return out
}

/** An append-only byte array that doubles as it grows. */
class ByteWriter {
  private buf: Uint8Array
  length = 0
  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity)
  }
  private room(n: number) {
    if (this.length + n <= this.buf.length) return
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.length + n))
    grown.set(this.buf.subarray(0, this.length))
    this.buf = grown
  }
  byte(b: number) {
    this.room(1)
    this.buf[this.length++] = b
  }
  setByte(i: number, b: number) {
    this.buf[i] = b
  }
  varint(v: number) {
    this.room(8)
    while (v >= 128) {
      this.buf[this.length++] = (v % 128) | 128
      v = Math.floor(v / 128)
    }
    this.buf[this.length++] = v
  }
  posting(gap: number, tf: number) {
    this.varint(gap * 2 + (tf > 1 ? 1 : 0))
    if (tf > 1) this.varint(tf)
  }
  bytes(b: Uint8Array) {
    this.room(b.length)
    this.buf.set(b, this.length)
    this.length += b.length
  }
  view(): Uint8Array {
    return this.buf.subarray(0, this.length)
  }
  array(): Uint8Array {
    return this.buf.slice(0, this.length)
  }
}

/** A growable array of unsigned integers in fixed chunks (growing never copies what is there). */
class Chunked {
  private readonly chunks: (Uint32Array | Uint16Array)[] = []
  length = 0
  constructor(private readonly make: (n: number) => Uint32Array | Uint16Array) {}
  push(v: number) {
    const at = this.length & CHUNK_MASK
    if (at === 0) this.chunks.push(this.make(CHUNK_SIZE))
    this.chunks[this.chunks.length - 1]![at] = v
    this.length++
  }
  get(i: number): number {
    return this.chunks[i >>> CHUNK_BITS]![i & CHUNK_MASK]!
  }
}
const CHUNK_BITS = 16
const CHUNK_SIZE = 1 << CHUNK_BITS
const CHUNK_MASK = CHUNK_SIZE - 1
/** Term frequencies from here up are kept beside the 16-bit array. */
const TF_ESCAPE = 0xffff

/**
 * Builds the text index of many documents at once (a full rebuild), one document at a time in
 * ascending document numbers (they become the short ids), far faster than adding them to a live
 * index one by one. Postings are kept as a stream of (term and field, term frequency) in typed
 * arrays, 6 bytes each, not as JS arrays per term (24 bytes a posting and more on Node): a full
 * rebuild needs little more memory than the index it makes. `finish` groups the stream by term (a counting sort, stable: document order).
 */
export class TextBuilder {
  private readonly termIds = new Map<string, number>()
  private readonly termList: string[] = []
  /** Per posting: term id × 4 + field. */
  private readonly keys = new Chunked((n) => new Uint32Array(n))
  private readonly tfs = new Chunked((n) => new Uint16Array(n))
  private readonly bigTfs = new Map<number, number>()
  /** Per document: its first posting, and its number. */
  private readonly docStarts: number[] = []
  private readonly docNumbers: number[] = []
  private readonly meta: number[] = []
  private next = 0

  add(n: number, text: Record<TextField, string[]>) {
    if (n < this.next) throw new Error(`TextBuilder: document ${n} after ${this.next - 1}`)
    this.next = n + 1
    this.meta.push(n, n)
    this.docStarts.push(this.keys.length)
    this.docNumbers.push(n)
    TEXT_FIELDS.forEach((field, f) => {
      const counts = new Map<string, number>()
      for (const t of text[field]) counts.set(t, (counts.get(t) ?? 0) + 1)
      this.meta.push(counts.size)
      for (const [t, tf] of counts) {
        let id = this.termIds.get(t)
        if (id === undefined) {
          this.termIds.set(t, (id = this.termList.length))
          this.termList.push(t)
        }
        if (tf >= TF_ESCAPE) this.bigTfs.set(this.keys.length, tf)
        this.keys.push(id * 4 + f)
        this.tfs.push(Math.min(tf, TF_ESCAPE))
      }
    })
  }

  finish(): TextIndex {
    const { termList, keys } = this
    this.termIds.clear()
    const terms = termList.length
    const total = keys.length
    // postings grouped by term, each group in stream (= document) order
    const start = new Uint32Array(terms + 1)
    for (let i = 0; i < total; i++) start[(keys.get(i) >>> 2) + 1]!++
    for (let t = 0; t < terms; t++) start[t + 1]! += start[t]!
    const byTerm = new Uint32Array(total)
    const fill = start.slice(0, terms)
    for (let i = 0; i < total; i++) byTerm[fill[keys.get(i) >>> 2]!++] = i
    const docStarts = Uint32Array.from(this.docStarts)
    /** The document of posting `i`: the last document starting at or before it. */
    const docOf = (i: number) => {
      let lo = 0
      let hi = docStarts.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1
        if (docStarts[mid]! <= i) lo = mid
        else hi = mid - 1
      }
      return this.docNumbers[lo]!
    }
    const tfOf = (i: number) => {
      const tf = this.tfs.get(i)
      return tf === TF_ESCAPE ? this.bigTfs.get(i)! : tf
    }
    const order = termList.map((_, i) => i).sort((a, b) => (termList[a]! < termList[b]! ? -1 : 1))
    const out = new ByteWriter(1 << 16)
    const list = new ByteWriter(1 << 12)
    const at: number[] = []
    for (const id of order) {
      at.push(out.length)
      const from = start[id]!
      const to = start[id + 1]!
      let fields = 0
      for (let f = 0; f < TEXT_FIELDS.length; f++) {
        for (let k = from; k < to; k++) {
          if ((keys.get(byTerm[k]!) & 3) === f) {
            fields++
            break
          }
        }
      }
      out.byte(fields)
      for (let f = 0; f < TEXT_FIELDS.length; f++) {
        list.length = 0
        let prev = 0
        let count = 0
        for (let k = from; k < to; k++) {
          const i = byTerm[k]!
          if ((keys.get(i) & 3) !== f) continue
          const n = docOf(i)
          list.posting(n - prev, tfOf(i))
          prev = n
          count++
        }
        if (!count) continue
        out.byte(f)
        out.varint(count)
        out.varint(prev)
        out.varint(list.length)
        out.bytes(list.view())
      }
    }
    at.push(out.length)
    return TextIndex.load({
      nextId: this.next,
      docs: Uint32Array.from(this.meta),
      terms: order.map((i) => termList[i]!),
      at: Uint32Array.from(at),
      bytes: out.array(),
    })
  }
}
