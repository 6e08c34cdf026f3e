// CKAN's views_total / views_recent sort fields (service.tracking_enabled): the usage figures are
// not in the datasets' documents (a count must not re-index a dataset), so a search that sorts by
// them first writes the figures into the index's number arrays. The figures are read from the
// database at most once per service.tracking.flush_seconds (when new counts can have landed), and
// written into an index only when they or its documents changed since: every other search pays
// nothing.
import type { Deps } from '../context'
import type { MemoryIndex } from './minisearch'
import type { SearchRequest } from './index'
import { flushIntervalMs, recentSince } from '../model/usage'

type Io = Pick<Deps, 'read' | 'config'>

export const USAGE_FIELDS = ['views_total', 'views_recent'] as const

/** Whether a search needs the figures: it sorts by one of the fields. */
export const needsUsage = (req: Pick<SearchRequest, 'sort'>) => req.sort.some((k) => k.field === 'views_total' || k.field === 'views_recent')

interface Figures {
  at: number
  stamp: number
  total: Map<string, number>
  recent: Map<string, number>
}

export class UsageOverlay {
  private figures: Figures | null = null
  private loading: Promise<Figures> | null = null
  private stamps = 0
  /** Per index: the figures' stamp and the index's change count right after they were written. */
  private applied = new WeakMap<MemoryIndex, { stamp: number; changes: number }>()

  /** The datasets' figures, read again when older than the flush interval. */
  private async current(io: Io, own: boolean): Promise<Figures> {
    const maxAge = flushIntervalMs(io.config)
    const f = this.figures
    if (f && Date.now() - f.at < maxAge) return f
    // a request that may not share another's I/O (Workers) reads by itself
    if (!own) return (this.figures = await this.load(io))
    return (this.loading ??= this.load(io)
      .then((x) => (this.figures = x))
      .finally(() => (this.loading = null)))
  }

  private async load(io: Io): Promise<Figures> {
    const since = recentSince(io.config.int('service.tracking.recent_days'))
    const [totals, recents] = await Promise.all([
      io.read('SELECT object_id AS id, total FROM usage_total WHERE is_resource = 0'),
      io.read('SELECT object_id AS id, sum(count) AS n FROM usage_daily WHERE day >= ? AND object_id = package_id GROUP BY object_id', [since]),
    ])
    return {
      at: Date.now(),
      stamp: ++this.stamps,
      total: new Map(totals.map((r) => [String(r.id), Number(r.total)])),
      recent: new Map(recents.map((r) => [String(r.id), Number(r.n)])),
    }
  }

  /** Writes the current figures into `index` unless they are there already. */
  async apply(io: Io, index: MemoryIndex, own: boolean) {
    const f = await this.current(io, own)
    const was = this.applied.get(index)
    if (was && was.stamp === f.stamp && was.changes === index.changes) return
    index.setNumbers('views_total', f.total, 0)
    index.setNumbers('views_recent', f.recent, 0)
    this.applied.set(index, { stamp: f.stamp, changes: index.changes })
  }
}
