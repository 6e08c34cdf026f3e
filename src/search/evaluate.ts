// Runs a query plan against the in-memory index: every node becomes a bitset; scoring leaves add BM25.
import {
  analyzeGenericMultiTerm,
  analyzeGenericQuery,
  analyzeMultiTerm,
  analyzeQuery,
  ngramQuery,
} from './analysis'
import { andInto, andNotInto, count, forEachBit, newBits, orInto, setBit, type Bits } from './bits'
import { CATCH_ALL, fieldKind, KV_SEP, type FieldKind } from './document'
import type { PhraseChecker } from './index'
import type { MemoryIndex } from './minisearch'
import { DEFAULT_FIELDS, minShouldMatch, QueryParseError, type QueryNode, type QueryPlan } from './query'
import { FIELD_ID, type TermRef } from './text-index'
import { UNLIMITED, type Budget } from './budget'
import { luceneRegexpMatcher, wildcardMatcher } from './patterns'

type Leaf = Exclude<QueryNode, { type: 'all' } | { type: 'bool' }>

/**
 * Leaves with more candidates than this are not checked against the datasets: a phrase then
 * matches where all its terms do, a field without its own postings where the catch-all does.
 */
const CHECK_LIMIT = 5000
const K1 = 1.2
const B = 0.75

const TEXT_KINDS = new Set<FieldKind>(['title', 'text', 'kv-english', 'kv-generic', 'checked-english', 'checked-generic'])
const isChecked = (k: FieldKind) => k === 'checked-english' || k === 'checked-generic'

/**
 * The collection statistics BM25 reads, for an index split into shards: phase one records each
 * shard's own (`record`), the caller sums them over the shards, and phase two scores every shard
 * with the sums (`global`), so that a shard scores as the whole index would. Keys: `N` (documents),
 * `C` (documents with text), `L:<field>` (terms in the field), `D:<field>:<term>` (documents with
 * the term), `X:<leaf>:<field>` (documents an exact leaf matches), `K:<leaf>:<field>` (a phrase
 * check's candidates).
 */
export interface ScoreStats {
  record?: Record<string, number>
  global?: Record<string, number>
}

export class Evaluator {
  /** Relevance per document number (only when the caller asked for scoring). */
  scores: Float64Array | null = null
  private plan!: QueryPlan
  private readonly checked = new Map<QueryNode, Map<string, Bits>>()
  /** Each leaf's number in the plan (the same on every shard: the plan's own order). */
  private leafNo = new Map<QueryNode, number>()
  private tag = 'q'

  constructor(
    private readonly idx: MemoryIndex,
    private readonly checker?: PhraseChecker,
    private readonly budget: Budget = UNLIMITED,
    private readonly stats?: ScoreStats,
  ) {}

  /** A statistic: recorded for phase one, and the whole index's value in phase two. */
  private stat(key: string, local: number): number {
    // (the same key read twice in one evaluation has the same local value: kept once)
    if (this.stats?.record) this.stats.record[key] = local
    return this.stats?.global?.[key] ?? local
  }

  private numberLeaves(node: QueryNode) {
    if (node.type === 'all') return
    if (node.type === 'bool') {
      for (const c of [...node.must, ...node.should, ...node.mustNot]) this.numberLeaves(c)
      return
    }
    if (!this.leafNo.has(node)) this.leafNo.set(node, this.leafNo.size)
  }

  private get size() {
    return this.idx.capacity
  }

  /** The documents matching the plan (a new bitset the caller owns). */
  /** `tag` names the plan among the request's (q, f0, f1…) in the keys of its statistics. */
  async run(plan: QueryPlan, scoring: boolean, tag = 'q'): Promise<Bits> {
    this.plan = plan
    this.tag = tag
    this.leafNo = new Map()
    this.numberLeaves(plan.root)
    if (scoring) this.scores ??= this.idx.takeScores()
    await this.checkLeaves(plan.root)
    return this.match(plan.root, scoring ? 1 : 0) ?? newBits(this.size)
  }

  /** null: the node analysed to nothing and drops out of its parent (Solr does the same). */
  private match(node: QueryNode, weight: number): Bits | null {
    this.budget.check()
    if (node.type === 'all') return this.idx.all().slice()
    if (node.type === 'bool') return this.bool(node, weight * (node.boost ?? 1))
    const w = weight * ('boost' in node ? (node.boost ?? 1) : 1)
    let out: Bits | null = null
    for (const { field, boost } of this.fieldsOf(node)) {
      const b = this.leaf(field, node, w * boost)
      if (b) out = out ? orInto(out, b) : b
    }
    return out
  }

  private fieldsOf(node: Leaf) {
    return node.field === DEFAULT_FIELDS ? this.plan.qf : [{ field: node.field, boost: 1 }]
  }

  private bool(node: Extract<QueryNode, { type: 'bool' }>, w: number): Bits | null {
    const must = node.must.map((c) => this.match(c, w)).filter((b): b is Bits => b !== null)
    const should = node.should.map((c) => this.match(c, w)).filter((b): b is Bits => b !== null)
    const mustNot = node.mustNot.map((c) => this.match(c, 0)).filter((b): b is Bits => b !== null)
    if (!must.length && !should.length && !mustNot.length) return null
    let out: Bits | null = null
    for (const b of must) out = out ? andInto(out, b) : b
    if (should.length) {
      let need = node.mm && should.length < node.should.length ? minShouldMatch(node.mm, should.length) : node.minShould
      if (!must.length) need = Math.max(need, 1)
      if (need > 0) {
        const s = atLeast(should, need, this.size)
        out = out ? andInto(out, s) : s
      }
    }
    out ??= this.idx.all().slice()
    for (const b of mustNot) andNotInto(out, b)
    return out
  }

  // ---- leaves ----

  private leaf(field: string, node: Leaf, w: number): Bits | null {
    const kind = fieldKind(field)
    if (TEXT_KINDS.has(kind)) return this.textLeaf(field, kind, node, w)
    if (kind === 'number' || kind === 'date') return this.numberLeaf(field, kind, node)
    if (kind === 'ngram') return this.ngramLeaf(field, node)
    return this.exactLeaf(field, node, w)
  }

  private exactLeaf(field: string, node: Leaf, w: number): Bits {
    const f = this.idx.exact.get(field)
    if (!f) return newBits(this.size)
    let out: Bits
    switch (node.type) {
      case 'term':
      case 'phrase':
        if (node.type === 'term' && node.fuzzy) {
          const target = node.value
          const max = node.fuzzy
          out = this.union(f.matching(this.budget.counted((v) => editDistance(v, target, max) <= max)))
        } else out = this.idx.exactBits(field, node.value).slice()
        break
      case 'prefix':
        out = this.union(f.matching(this.budget.counted((v) => v.startsWith(node.value))))
        break
      case 'wildcard': {
        const matches = wildcardMatcher(node.pattern)
        out = this.union(f.matching(this.budget.counted(matches)))
        break
      }
      case 'regexp': {
        const matches = luceneRegexpMatcher(node.pattern)
        out = this.union(f.matching(this.budget.counted(matches)))
        break
      }
      case 'range':
        out = this.union(f.matching(this.budget.counted((v) => inRange(v, node))))
        break
      case 'exists':
        out = this.union(f.matching(this.budget.counted(() => true)))
        break
    }
    if (w && this.scores) {
      const n = this.stat(`X:${this.tag}${this.leafNo.get(node)}:${field}`, count(out))
      if (n) {
        const s = w * idf(this.stat('N', this.idx.size), n)
        const scores = this.scores
        forEachBit(out, (d) => (scores[d]! += s))
      }
    }
    return out
  }

  private union(sets: Iterable<Iterable<number>>): Bits {
    const b = newBits(this.size)
    for (const s of sets) for (const d of s) setBit(b, d)
    return b
  }

  private numberLeaf(field: string, kind: 'number' | 'date', node: Leaf): Bits {
    const arr = this.idx.numbers.get(field)
    const b = newBits(this.size)
    if (!arr) return b
    const parse = (v: string | null): number | null =>
      v === null ? null : kind === 'date' ? Date.parse(v) : v.trim() === '' ? NaN : Number(v)
    let test: (x: number) => boolean
    switch (node.type) {
      case 'term':
      case 'phrase': {
        const t = parse(node.value)
        test = (x) => x === t
        break
      }
      case 'range': {
        const lo = parse(node.lower)
        const hi = parse(node.upper)
        if (Number.isNaN(lo) || Number.isNaN(hi)) return b
        test = (x) =>
          (lo === null || (node.includeLower ? x >= lo : x > lo)) &&
          (hi === null || (node.includeUpper ? x <= hi : x < hi))
        break
      }
      case 'exists':
        test = () => true
        break
      case 'prefix':
        test = (x) => String(x).startsWith(node.value)
        break
      case 'wildcard': {
        const matches = wildcardMatcher(node.pattern)
        test = (x) => matches(String(x))
        break
      }
      case 'regexp': {
        const matches = luceneRegexpMatcher(node.pattern)
        test = (x) => matches(String(x))
        break
      }
    }
    const n = Math.min(arr.length, this.size)
    for (let d = 0; d < n; d++) {
      const x = arr[d]!
      this.budget.tick()
      if (!Number.isNaN(x) && this.idx.ids[d] !== undefined && test(x)) setBit(b, d)
    }
    return b
  }

  /** `name_ngram` / `title_ngram`: each query word is a substring of the lower-cased value. */
  private ngramLeaf(field: string, node: Leaf): Bits | null {
    if (node.type !== 'term' && node.type !== 'phrase') return this.exactLeaf(field, node, 0)
    const words = ngramQuery(node.value).filter((w) => w.length >= 2 && w.length <= 10)
    if (!words.length) return null
    const source = this.idx.exact.get(field === 'name_ngram' ? 'name' : 'title_string')
    if (!source) return newBits(this.size)
    return this.union(
      source.matching((v) => {
        const lower = v.toLowerCase()
        return words.every((w) => lower.includes(w))
      }),
    )
  }

  private textLeaf(field: string, kind: FieldKind, node: Leaf, w: number): Bits | null {
    const generic = kind === 'kv-generic'
    const fids =
      kind === 'text'
        ? CATCH_ALL.map((f) => FIELD_ID[f])
        : [FIELD_ID[kind === 'title' ? 'title' : isChecked(kind) ? 'all' : 'kv']]
    const prefix = kind === 'kv-english' || kind === 'kv-generic' ? field + KV_SEP : ''
    const multi = generic ? analyzeGenericMultiTerm : analyzeMultiTerm
    switch (node.type) {
      case 'term':
      case 'phrase': {
        const checked = this.checked.get(node)?.get(field)
        const terms = (generic ? analyzeGenericQuery : analyzeQuery)(node.value)
        if (!terms.length) return null
        const fuzzy = node.type === 'term' ? node.fuzzy : undefined
        let out: Bits | null = null
        for (const t of terms) {
          const b = newBits(this.size)
          if (fuzzy) {
            for (const [key, data] of this.idx.text.fuzzy(prefix + t, fuzzy)) {
              this.budget.tick()
              this.addPostings(data, fids, b, w, key)
            }
          } else this.addPostings(this.idx.text.termData(prefix + t), fids, b, w, prefix + t)
          out = out ? andInto(out, b) : b
        }
        return checked ? andInto(out!, checked) : out
      }
      case 'prefix':
        return this.terms(prefix, fids, multi(node.value), () => true)
      case 'wildcard': {
        const pattern = multi(node.pattern)
        return this.terms(prefix, fids, literalPrefix(pattern), wildcardMatcher(pattern))
      }
      case 'regexp': {
        return this.terms(prefix, fids, '', luceneRegexpMatcher(node.pattern))
      }
      case 'range': {
        const lower = node.lower === null ? null : multi(node.lower)
        const upper = node.upper === null ? null : multi(node.upper)
        return this.terms(prefix, fids, '', (t) => inRange(t, { ...node, lower, upper }))
      }
      case 'exists': {
        if (prefix) return this.terms(prefix, fids, '', () => true)
        const b = newBits(this.size)
        for (const fid of fids) {
          for (const short of this.idx.text.nonEmpty(fid)) {
            const d = this.idx.text.docOf(short)
            if (d >= 0) setBit(b, d)
          }
        }
        return b
      }
    }
  }

  /** Documents holding any indexed term that starts with `start` and passes `test`. */
  private terms(prefix: string, fids: number[], start: string, test: (term: string) => boolean): Bits {
    const b = newBits(this.size)
    for (const [key, data] of this.idx.text.withPrefix(prefix + start)) {
      this.budget.tick()
      if (!prefix && key.includes(KV_SEP)) continue
      if (test(key.slice(prefix.length))) this.addPostings(data, fids, b, 0)
    }
    return b
  }

  private addPostings(ref: TermRef | undefined, fids: number[], b: Bits, w: number, term = '') {
    if (!ref) return
    const text = this.idx.text
    const scores = w && this.scores ? this.scores : null
    const n = scores ? this.stat('N', this.idx.size) : 0
    for (const fid of fids) {
      if (!scores) {
        text.eachPosting(ref, fid, (short) => {
          const d = text.docOf(short)
          if (d >= 0) b[d >>> 5]! |= 1 << (d & 31)
        })
        continue
      }
      const rawDf = text.df(ref, fid)
      if (!rawDf) continue
      if (text.dirt === 0) {
        // no discarded postings: their number is the live documents' (one pass, nothing kept)
        const weight = w * idf(n, this.stat(`D:${fid}:${term}`, rawDf)) * (K1 + 1)
        const avg = this.avgFieldLength(fid)
        text.eachPosting(ref, fid, (short, tf) => {
          const d = text.docOf(short)
          if (d < 0) return
          b[d >>> 5]! |= 1 << (d & 31)
          const norm = K1 * (1 - B + (B * text.fieldLength(short, fid)) / avg)
          scores[d]! += (weight * tf) / (tf + norm)
        })
        continue
      }
      // one pass over the postings keeps the live documents: their number is BM25's document
      // frequency (so relevance does not depend on the index's history: the postings of replaced
      // documents stay in the segments until a compaction), then they are scored
      let live = 0
      text.eachPosting(ref, fid, (short, tf) => {
        const d = text.docOf(short)
        if (d < 0) return
        if (live === scratch.docs.length) growScratch(live * 2)
        scratch.docs[live] = d
        scratch.shorts[live] = short
        scratch.tfs[live] = tf
        live++
      })
      if (!live) continue
      const df = this.stat(`D:${fid}:${term}`, live)
      const weight = w * idf(n, df) * (K1 + 1)
      const avg = this.avgFieldLength(fid)
      const { docs, shorts, tfs } = scratch
      for (let i = 0; i < live; i++) {
        const d = docs[i]!
        const tf = tfs[i]!
        b[d >>> 5]! |= 1 << (d & 31)
        const norm = K1 * (1 - B + (B * text.fieldLength(shorts[i]!, fid)) / avg)
        scores[d]! += (weight * tf) / (tf + norm)
      }
    }
  }

  /** BM25's average field length, over the whole index when scoring with global statistics. */
  private avgFieldLength(fid: number): number {
    const text = this.idx.text
    const docs = this.stat('C', text.liveCount)
    const terms = this.stat(`L:${fid}`, text.totalFieldLength(fid))
    return docs ? terms / docs || 1 : 1
  }

  // ---- phrases, and terms of fields without their own postings: checked against the datasets ----

  private async checkLeaves(node: QueryNode): Promise<void> {
    if (node.type === 'all') return
    if (node.type === 'bool') {
      for (const c of [...node.must, ...node.should, ...node.mustNot]) await this.checkLeaves(c)
      return
    }
    if (!this.checker || (node.type !== 'phrase' && node.type !== 'term') || (node.type === 'term' && node.fuzzy)) {
      return
    }
    for (const { field } of this.fieldsOf(node)) {
      const kind = fieldKind(field)
      if (!TEXT_KINDS.has(kind)) continue
      const terms = (kind === 'kv-generic' ? analyzeGenericQuery : analyzeQuery)(node.value)
      if (!isChecked(kind) && (node.type !== 'phrase' || terms.length < 2)) continue
      this.checked.get(node)?.delete(field)
      const candidates = this.textLeaf(field, kind, node, 0)
      // (over the whole index: a shard checks exactly what the whole index would)
      if (!candidates || this.stat(`K:${this.tag}${this.leafNo.get(node)}:${field}`, count(candidates)) > CHECK_LIMIT) continue
      // phase one only counts: nothing it records depends on the checks
      if (this.stats?.record) continue
      const ids: string[] = []
      forEachBit(candidates, (d) => ids.push(this.idx.ids[d]!))
      const slop = node.type === 'phrase' ? (node.slop ?? 0) : 0
      const ok = await this.checker(ids, field, { type: node.type, text: node.value, slop })
      const b = newBits(this.size)
      for (const id of ok) {
        const d = this.idx.docNumber(id)
        if (d !== undefined) setBit(b, d)
      }
      let byField = this.checked.get(node)
      if (!byField) this.checked.set(node, (byField = new Map()))
      byField.set(field, b)
    }
  }
}

/**
 * Whether the plan has a leaf checked against the datasets (a phrase, or a term of a field
 * without its own postings): whether a split index must count its candidates over every shard
 * before a shard may decide to check it.
 */
export function hasCheckedLeaves(plan: QueryPlan): boolean {
  const walk = (node: QueryNode): boolean => {
    if (node.type === 'all') return false
    if (node.type === 'bool') return [...node.must, ...node.should, ...node.mustNot].some(walk)
    if (node.type !== 'phrase' && (node.type !== 'term' || node.fuzzy)) return false
    const fields = node.field === DEFAULT_FIELDS ? plan.qf : [{ field: node.field, boost: 1 }]
    return fields.some(({ field }) => {
      const kind = fieldKind(field)
      if (!TEXT_KINDS.has(kind)) return false
      const terms = (kind === 'kv-generic' ? analyzeGenericQuery : analyzeQuery)(node.value)
      return isChecked(kind) || (node.type === 'phrase' && terms.length >= 2)
    })
  }
  return walk(plan.root)
}

/** Postings of one term being scored (reused: a common term has as many as there are datasets). */
const scratch = { docs: new Int32Array(1024), shorts: new Int32Array(1024), tfs: new Float64Array(1024) }
function growScratch(size: number) {
  const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
    const b = make(size)
    b.set(a)
    return b
  }
  scratch.docs = grow(scratch.docs, (n) => new Int32Array(n))
  scratch.shorts = grow(scratch.shorts, (n) => new Int32Array(n))
  scratch.tfs = grow(scratch.tfs, (n) => new Float64Array(n))
}

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5))

/** Documents set in at least `need` of the bitsets. */
function atLeast(sets: Bits[], need: number, size: number): Bits {
  if (need <= 1) {
    const out = sets[0]!
    for (const b of sets.slice(1)) orInto(out, b)
    return out
  }
  if (need >= sets.length) {
    const out = sets[0]!
    for (const b of sets.slice(1)) andInto(out, b)
    return out
  }
  const counts = new Uint8Array(size)
  for (const b of sets) forEachBit(b, (d) => counts[d]!++)
  const out = newBits(size)
  for (let d = 0; d < size; d++) if (counts[d]! >= need) setBit(out, d)
  return out
}

function inRange(
  v: string,
  r: { lower: string | null; upper: string | null; includeLower: boolean; includeUpper: boolean },
): boolean {
  if (r.lower !== null && (r.includeLower ? v < r.lower : v <= r.lower)) return false
  if (r.upper !== null && (r.includeUpper ? v > r.upper : v >= r.upper)) return false
  return true
}

/** The part of a wildcard pattern before its first wildcard (backslashes removed). */
function literalPrefix(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*' || c === '?') break
    if (c === '\\') {
      i++
      if (i < pattern.length) out += pattern[i]
    } else out += c
  }
  return out
}

/** Levenshtein distance, giving up (returning max + 1) once it must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      cur.push(v)
      best = Math.min(best, v)
    }
    if (best > max) return max + 1
    prev = cur
  }
  return prev[b.length]!
}
