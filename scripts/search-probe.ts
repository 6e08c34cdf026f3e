import { searchDicts } from '../bench/lib/search-corpus'
import { indexDocument } from '../src/search/document'
import { MemoryIndex } from '../src/search/minisearch'
import { decodeSnapshot, encodeSnapshot } from '../src/search/snapshot'
import { parseQ, parseFilter } from '../src/search/query'
import { parseSort } from '../src/search/sort'
const N = Number(process.argv[2] ?? 10000)
let t = performance.now()
const dicts = searchDicts(N)
console.log('gen', (performance.now() - t).toFixed(0))
t = performance.now()
const opts = { siteId: 'x', vocabularyName: () => undefined, extraResourceFields: [] }
const docs = dicts.map((d) => indexDocument(d, opts))
console.log('analyse', (performance.now() - t).toFixed(0))
t = performance.now()
const idx = MemoryIndex.build(docs)
console.log('build', (performance.now() - t).toFixed(0))
dicts.length = 0
docs.length = 0
;(globalThis as any).gc?.()
console.log('heapMB', (process.memoryUsage().heapUsed / 1e6).toFixed(0))
const vis = { states: ['active'], includePrivate: false, labels: ['public'] }
const sort = parseSort('score desc, metadata_modified desc')
const queries: [string, string[], string[]][] = [
  ['data', [], []], ['water quality', [], []], ['*:*', [], ['tags', 'organization', 'res_format', 'license_id']],
  ['title:survey', [], []], ['report', ['organization:org-5'], []], ['health', [], ['tags', 'organization', 'res_format', 'license_id']],
  ['barcor', ['res_format:CSV'], ['tags']], ['"annual report"', [], []],
]
for (const [q, fq, facets] of queries) {
  const times: number[] = []
  let res
  for (let i = 0; i < 30; i++) {
    const s = performance.now()
    res = await idx.search({ q: parseQ(q), filters: fq.map((f) => parseFilter(f)), visibility: vis, sort, start: 0, rows: 10, facet: facets.length ? { fields: facets, limit: 50, mincount: 1 } : undefined })
    times.push(performance.now() - s)
  }
  times.sort((a, b) => a - b)
  console.log(q, fq, facets.length, 'count', res!.count, 'p50', times[15]!.toFixed(2), 'max', times[29]!.toFixed(2))
}
t = performance.now()
const snap = encodeSnapshot(idx.snapshot())
console.log('snapshot MB', (snap.length / 1e6).toFixed(1), 'ms', (performance.now() - t).toFixed(0))
t = performance.now()
const back = MemoryIndex.restore(decodeSnapshot(snap))
console.log('restore ms', (performance.now() - t).toFixed(0), back.size)
