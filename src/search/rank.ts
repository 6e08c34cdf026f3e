// Sorting the matches (top-k, never a full sort of every hit) and counting facet values over them.
import { countAnd, forEachBit, type Bits } from './bits'
import { fieldKind } from './document'
import type { MemoryIndex } from './minisearch'
import type { SortKey } from './sort'

type Compare = (a: number, b: number) => number

function comparator(idx: MemoryIndex, keys: SortKey[], scores: Float64Array | null): Compare {
  const parts: Compare[] = []
  for (const { field, direction } of keys) {
    const sign = direction === 'asc' ? 1 : -1
    if (field === 'score') {
      if (scores) parts.push((a, b) => sign * (scores[a]! - scores[b]!))
      continue
    }
    const kind = fieldKind(field)
    const arr = kind === 'date' || kind === 'number' ? idx.numbers.get(field) : undefined
    if (arr) {
      // missing values sort last in either direction
      parts.push((a, b) => {
        const x = arr[a] ?? NaN
        const y = arr[b] ?? NaN
        if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1
        if (Number.isNaN(y)) return -1
        return sign * (x - y)
      })
      continue
    }
    const exact = idx.exact.get(field === 'title' ? 'title_string' : field)
    if (!exact) continue
    // values by their rank in sorted order (a number compare instead of two string reads)
    const rank = exact.firstRank()
    parts.push((a, b) => {
      const x = rank(a)
      const y = rank(b)
      if (x === undefined) return y === undefined ? 0 : 1
      if (y === undefined) return -1
      return sign * (x - y)
    })
  }
  // ties: dataset id, so every process pages the same way
  const ids = idx.ids
  parts.push((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0))
  return (a, b) => {
    for (const p of parts) {
      const c = p(a, b)
      if (c !== 0) return c
    }
    return 0
  }
}

/** A document's sort values, as a cursor keeps them: one per sort clause (null: none), then its id. */
export type SortTuple = (number | string | null)[]

function keyReaders(idx: MemoryIndex, keys: SortKey[], scores: Float64Array | null) {
  return keys.map(({ field, direction }) => {
    const sign = direction === 'asc' ? 1 : -1
    if (field === 'score') return { sign, read: scores ? (d: number) => scores[d]! : () => null }
    const kind = fieldKind(field)
    const arr = kind === 'date' || kind === 'number' ? idx.numbers.get(field) : undefined
    if (arr) return { sign, read: (d: number) => { const x = arr[d] ?? NaN; return Number.isNaN(x) ? null : x } }
    const exact = idx.exact.get(field === 'title' ? 'title_string' : field)
    return { sign, read: exact ? (d: number) => exact.first(d) ?? null : () => null }
  })
}

/** The sort values of document `d` (see SortTuple). */
export function sortTuple(idx: MemoryIndex, keys: SortKey[], scores: Float64Array | null, d: number): SortTuple {
  return [...keyReaders(idx, keys, scores).map((k) => k.read(d)), idx.ids[d] ?? '']
}

/**
 * Whether a document sorts strictly after `tuple` in the order of `keys` (missing values last in
 * either direction, ties by id, as the comparator above): the keyset filter of a cursor.
 */
export function afterTuple(idx: MemoryIndex, keys: SortKey[], scores: Float64Array | null, tuple: SortTuple): (d: number) => boolean {
  const readers = keyReaders(idx, keys, scores)
  const cmpValue = (x: number | string | null, y: number | string | null, sign: number) => {
    if (x === null) return y === null ? 0 : 1
    if (y === null) return -1
    return x === y ? 0 : sign * (x < y ? -1 : 1)
  }
  const lastId = String(tuple[readers.length] ?? '')
  return (d) => {
    for (let i = 0; i < readers.length; i++) {
      const c = cmpValue(readers[i]!.read(d), (tuple[i] ?? null) as number | string | null, readers[i]!.sign)
      if (c !== 0) return c > 0
    }
    const id = idx.ids[d] ?? ''
    return id > lastId
  }
}

/**
 * A numeric key for the first sort clause when it is numeric (score, a date or a count): smaller
 * is better, missing values last. Lets top-k skip most documents with one comparison.
 */
function primaryKey(idx: MemoryIndex, keys: SortKey[], scores: Float64Array | null): ((d: number) => number) | null {
  const first = keys.find((k) => k.field !== 'score' || scores)
  if (!first) return null
  const sign = first.direction === 'asc' ? 1 : -1
  if (first.field === 'score') return (d) => sign * scores![d]!
  const kind = fieldKind(first.field)
  const arr = kind === 'date' || kind === 'number' ? idx.numbers.get(first.field) : undefined
  if (!arr) {
    // a text field sorts by its values' ranks, as the comparator does
    const exact = idx.exact.get(first.field === 'title' ? 'title_string' : first.field)
    if (!exact) return null
    const rank = exact.firstRank()
    return (d) => {
      const x = rank(d)
      return x === undefined ? Infinity : sign * x
    }
  }
  return (d) => {
    const x = arr[d] ?? NaN
    return Number.isNaN(x) ? Infinity : sign * x
  }
}

/** The first `k` matching document numbers in sort order (a bounded heap, not a full sort). */
export function topDocs(idx: MemoryIndex, matched: Bits, keys: SortKey[], k: number, scores: Float64Array | null, after?: (d: number) => boolean) {
  const cmp = comparator(idx, keys, scores)
  const key = primaryKey(idx, keys, scores)
  // max-heap on cmp: the worst kept document sits on top
  const heap: number[] = []
  let worst = Infinity
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1
      if (cmp(heap[i]!, heap[p]!) <= 0) break
      ;[heap[i], heap[p]] = [heap[p]!, heap[i]!]
      i = p
    }
  }
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heap.length && cmp(heap[l]!, heap[m]!) > 0) m = l
      if (r < heap.length && cmp(heap[r]!, heap[m]!) > 0) m = r
      if (m === i) return
      ;[heap[i], heap[m]] = [heap[m]!, heap[i]!]
      i = m
    }
  }
  const offer = (d: number) => {
    if (heap.length < k) {
      heap.push(d)
      up(heap.length - 1)
      if (heap.length === k && key) worst = Math.min(worst, key(heap[0]!))
    } else if ((!key || key(d) <= worst) && cmp(d, heap[0]!) < 0) {
      heap[0] = d
      down(0)
      if (key) worst = key(heap[0]!)
    }
  }
  // With a numeric first key and many matches, the k-th best key is found first (one pass and a
  // selection) and only the documents at or before it reach the heap. Without it a key that
  // follows the document order (metadata_modified desc: newer datasets have higher numbers) would
  // make every document displace the heap's worst (a deep page of 2,000 at 100,000 datasets spent
  // ~20-40 ms there). Relevance scores rarely follow the document order: for a first page the
  // heap alone is cheaper.
  const byScore = keys.find((x) => x.field !== 'score' || scores)?.field === 'score'
  const pre = key && k > 0 && (k >= 64 || !byScore) ? candidates(matched, key, k, after) : null
  if (pre) {
    worst = pre.bound
    for (let i = 0; i < pre.n; i++) if (pre.vals[i]! <= pre.bound) offer(pre.docs[i]!)
  } else
    forEachBit(matched, (d) => {
      if (!after || after(d)) offer(d)
    })
  return heap.sort(cmp)
}

/** Matches below this many times k are ranked by the heap alone. */
const SELECT_FACTOR = 8

/**
 * The matches (in document order) with their primary keys, and the k-th smallest key (ties
 * included: at least k documents have a key at or below it); null when there are too few matches
 * for a selection to pay.
 */
function candidates(matched: Bits, key: (d: number) => number, k: number, after?: (d: number) => boolean) {
  let vals = new Float64Array(Math.max(1024, k * SELECT_FACTOR))
  let docs = new Uint32Array(vals.length)
  let n = 0
  forEachBit(matched, (d) => {
    if (after && !after(d)) return
    if (n === vals.length) {
      const v = new Float64Array(vals.length * 2)
      v.set(vals)
      vals = v
      const ds = new Uint32Array(docs.length * 2)
      ds.set(docs)
      docs = ds
    }
    docs[n] = d
    vals[n++] = key(d)
  })
  if (n < k * SELECT_FACTOR) return null
  return { docs, vals, n, bound: select(vals.slice(0, n), n, k - 1) }
}

/** The value that would sit at index `k` if vals[0..n) were sorted ascending (Hoare's selection; vals reordered). */
export function select(vals: Float64Array, n: number, k: number): number {
  let lo = 0
  let hi = n - 1
  while (hi > lo) {
    // median of three as the pivot
    const mid = (lo + hi) >> 1
    const a = vals[lo]!, b = vals[mid]!, c = vals[hi]!
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b
    let i = lo
    let j = hi
    while (i <= j) {
      while (vals[i]! < pivot) i++
      while (vals[j]! > pivot) j--
      if (i <= j) {
        const t = vals[i]!
        vals[i] = vals[j]!
        vals[j] = t
        i++
        j--
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else return vals[k]!
  }
  return vals[k]!
}

/**
 * The value ids that can be among a facet's `limit` highest counts (at least `mincount`, above 0):
 * every id above the limit's count, and every id at it (ties are settled by value afterwards),
 * found with a histogram of the counts instead of sorting every value.
 */
export function topValueIds(counts: Int32Array, opts: { limit: number; mincount: number }): number[] {
  const min = Math.max(1, opts.mincount)
  const ids: number[] = []
  let max = 0
  for (let id = 0; id < counts.length; id++) {
    const c = counts[id]!
    if (c >= min) {
      ids.push(id)
      if (c > max) max = c
    }
  }
  if (opts.limit < 0 || ids.length <= opts.limit) return ids
  if (opts.limit === 0) return []
  const hist = new Int32Array(max + 1)
  for (const id of ids) hist[counts[id]!]!++
  // the highest count `t` such that the ids counted at or above it reach the limit
  let t = max
  for (let above = 0; t > min; t--) {
    above += hist[t]!
    if (above >= opts.limit) break
  }
  return ids.filter((id) => counts[id]! >= t)
}

/**
 * Facet counts of one field over the matches: documents per value (a dataset with two CSV
 * resources counts once), at least `mincount`, the `limit` highest (negative: all), ties by value.
 */
export function facetCounts(
  idx: MemoryIndex,
  matched: Bits,
  field: string,
  opts: { limit: number; mincount: number },
  /** How many documents `matched` holds, when known (chooses how to count). */
  matchedCount?: number,
): [string, number][] {
  const pairs: [string, number][] = []
  const exact = idx.exact.get(field)
  if (exact) {
    const counts = new Int32Array(exact.size)
    // a field of few values (formats, licenses) over many matches: one AND and popcount of each
    // value's bitset (a word per 32 documents) costs less than visiting every match's values
    if (matchedCount !== undefined && exact.size * (idx.capacity >>> 5) < matchedCount)
      for (let id = 0; id < exact.size; id++) counts[id] = countAnd(matched, idx.exactBits(field, exact.value(id)))
    else exact.countValues((fn) => forEachBit(matched, fn), counts)
    for (const id of topValueIds(counts, opts)) pairs.push([exact.value(id), counts[id]!])
  } else {
    const arr = idx.numbers.get(field)
    if (arr) {
      const kind = fieldKind(field)
      const counts = new Map<string, number>()
      forEachBit(matched, (d) => {
        const x = arr[d]!
        if (Number.isNaN(x)) return
        const key = kind === 'date' ? new Date(x).toISOString() : String(x)
        counts.set(key, (counts.get(key) ?? 0) + 1)
      })
      for (const [v, c] of counts) if (c >= opts.mincount) pairs.push([v, c])
    }
  }
  pairs.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return opts.limit < 0 ? pairs : pairs.slice(0, opts.limit)
}
