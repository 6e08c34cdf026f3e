// The SearchIndex interface: what package_search asks of a search engine (in memory today, FTS5 later).
import type { IndexDoc } from './document'
import type { QueryPlan } from './query'
import type { SortKey } from './sort'
import type { Deps } from '../context'
import type { QueryBox } from '../lib/geo/box'

export interface Visibility {
  /** Allowed dataset states; null = no state filter (the caller's own `+state:` filter decides). */
  states: string[] | null
  /** States left out even where `states` is null (deleted datasets, unless include_deleted). */
  excludeStates?: string[]
  includePrivate: boolean
  /** The caller's permission labels; null = every dataset (sysadmin). */
  labels: string[] | null
  /** Dataset types left out unless a filter asks for them (harvest sources). */
  excludeTypes?: string[]
}

export interface SearchRequest {
  q: QueryPlan
  /** fq and every fq_list item: all must match; they do not change scores. */
  filters: QueryPlan[]
  visibility: Visibility
  sort: SortKey[]
  start: number
  rows: number
  /** A cursor's sort values: only documents after them, in sort order (start is then 0). */
  after?: (number | string | null)[]
  facet?: { fields: string[]; limit: number; mincount: number }
  /**
   * ext_bbox: only datasets whose `spatial` geometry meets the box; a sort by score adds each
   * one's overlap ratio with the box to its score.
   */
  spatial?: { box: QueryBox }
  /** Checks phrases through this request's I/O, instead of the index's own checker. */
  phraseChecker?: PhraseChecker
  /** When the request's time is up (ms since the epoch): past it the search throws SearchTimeout. */
  deadline?: number
  /**
   * A shard of a split index: score with these statistics of the whole index (summed from every
   * shard's `collectStats`), so relevance is the whole index's (see evaluate.ts ScoreStats).
   */
  globalStats?: Record<string, number>
  /** Also answer the page's sort values (`tuples`), for merging shards' pages. */
  withTuples?: boolean
}

export interface SearchHits {
  count: number
  /** Dataset ids of the requested page, in order. */
  ids: string[]
  /** The sort values of the page's last document when the page is full (a cursor to go on from). */
  last?: (number | string | null)[]
  /** Per facet field: [value, count] pairs, highest counts first (ties by value). */
  facets: Record<string, [string, number][]>
  /** With `withTuples`: each page document's sort values, then its id (rank.ts SortTuple). */
  tuples?: (number | string | null)[][]
}

/**
 * Checks a term or phrase against the datasets themselves: given candidate dataset ids (where
 * the index found every term, possibly in another field), returns those whose `field` really
 * holds the term, or the phrase's terms adjacent. Engines that keep positions need none.
 */
export type PhraseChecker = (
  ids: string[],
  field: string,
  leaf: { type: 'term' | 'phrase'; text: string; slop: number },
) => Promise<Set<string>>

/**
 * The process's search: an index kept in step with the change log. `ready()` applies every
 * change the feed has delivered before it answers.
 */
export interface SearchService {
  ready(): Promise<SearchIndex>
  /** Whether the index is in memory yet. */
  readonly loaded: boolean
  /** Stores the index as a snapshot for cold starts. */
  writeSnapshot(): Promise<void>
  /** Writes a snapshot when the index holds datasets re-indexed since the last one (at shutdown). */
  flush(): Promise<void>
  /** No more snapshots: a pending one is cancelled (the process is closing its database). */
  stop(): void
  /**
   * A view for one request of a runtime that forbids sharing I/O between requests (workerd):
   * its reads go through `io` and it never waits on another request's work.
   */
  through(io: Omit<Deps, 'search'>): SearchService
}

export interface SearchIndex {
  search(req: SearchRequest): Promise<SearchHits>
  /** Phase one of a search over shards: this index's statistics (MemoryIndex.collectStats). */
  collectStats?(req: SearchRequest): Promise<Record<string, number>>
  /** Adds or replaces a dataset's document. */
  put(doc: IndexDoc): void
  remove(id: string): void
  has(id: string): boolean
  readonly size: number
}
