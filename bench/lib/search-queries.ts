// The package_search query mix of the search benchmark, drawn from the generator's vocabulary and tags.
import { corpus, rng } from './generate'

export interface BenchQuery {
  cls: QueryClass
  body: Record<string, unknown>
}

export const QUERY_CLASSES = [
  'one-word common',
  'one-word rare',
  'two-word',
  'fielded',
  'fq-filtered',
  'faceted',
  'deep page',
  'sorted',
] as const
export type QueryClass = (typeof QUERY_CLASSES)[number]

const FACETS = ['tags', 'organization', 'res_format', 'license_id']
const FORMATS = ['CSV', 'JSON', 'XLSX', 'PDF', 'XML', 'GeoJSON', 'ZIP', 'HTML']
const SORTS = ['metadata_modified desc', 'title_string asc', 'name desc', 'metadata_created asc']
const LICENSES = ['cc-by', 'cc-by-sa', 'odc-odbl', 'cc-zero', 'other-open', 'notspecified']

/**
 * `perClass` queries of each class, interleaved. The generator picks words Zipf-like by index,
 * so words 0–19 are in 20–100% of the datasets, words 200–2,000 in a few percent, and words past
 * 12,000 in a few per ten thousand. `corpusSeed` must be the seed the datasets were made with.
 */
export function queryMix(perClass: number, opts: { seed: number; corpusSeed?: number; orgCount?: number }): BenchQuery[] {
  const c = corpus(opts.corpusSeed ?? 7)
  const next = rng(opts.seed)
  const orgCount = opts.orgCount ?? 200
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!
  const word = (from: number, to: number) => c.words[from + Math.floor(next() * (to - from))]!
  const common = () => word(0, 40)
  const mid = () => word(40, 2000)
  const rare = () => word(12000, c.words.length)
  // Tags are picked Zipf-like too: the first few hundred are the used ones.
  const tag = () => c.tags[Math.floor(Math.pow(next(), 2) * 400)]!
  const quoted = (t: string) => (/^[a-z0-9]+$/.test(t) ? t : `"${t}"`)
  const filter = () => {
    switch (Math.floor(next() * 4)) {
      case 0:
        return `organization:org-${Math.floor(next() * orgCount)}`
      case 1:
        return `res_format:${pick(FORMATS)}`
      case 2:
        return `license_id:${pick(LICENSES)}`
      default:
        return `organization:org-${Math.floor(next() * orgCount)} AND res_format:${pick(FORMATS)}`
    }
  }
  const make: Record<QueryClass, () => Record<string, unknown>> = {
    'one-word common': () => ({ q: common() }),
    'one-word rare': () => ({ q: rare() }),
    'two-word': () => ({ q: next() < 0.5 ? `${common()} ${mid()}` : `${mid()} ${mid()}` }),
    fielded: () => (next() < 0.5 ? { q: `title:${next() < 0.5 ? common() : mid()}` } : { q: `tags:${quoted(tag())}` }),
    'fq-filtered': () => ({ q: next() < 0.3 ? '' : next() < 0.5 ? common() : mid(), fq: filter() }),
    faceted: () => ({ q: next() < 0.3 ? '' : next() < 0.6 ? common() : mid(), 'facet.field': FACETS }),
    // a page past the thousandth result (a harvester or a crawler walking the catalogue)
    'deep page': () => ({ q: next() < 0.5 ? '' : common(), start: 1000 + 10 * Math.floor(next() * 100), rows: 10 }),
    // an explicit sort instead of relevance
    sorted: () => ({ q: next() < 0.5 ? '' : next() < 0.5 ? common() : mid(), sort: pick(SORTS) }),
  }
  const out: BenchQuery[] = []
  for (let i = 0; i < perClass; i++) for (const cls of QUERY_CLASSES) out.push({ cls, body: make[cls]() })
  return out
}
