// Usage figures (CKAN's tracking, service.tracking_enabled): page views, API reads and downloads of
// datasets and resources, counted in this process's memory and written in one batch every
// service.tracking.flush_seconds, so a read never waits on a write. A visitor counts once a day
// per object and kind: hashes of their address and user agent with a salt made each day, as bits
// of a filter held only in memory (nothing about a visitor is stored).
import type { Config } from '../config/load'
import type { Deps } from '../context'
import { hashLanes } from '../lib/short-hash'

export type UsageKind = 'page' | 'api' | 'download'
export const USAGE_KINDS: readonly UsageKind[] = ['page', 'api', 'download']

/** What was used: a dataset (its own package id) or a resource of one. */
export interface UsageTarget {
  id: string
  packageId: string
  resource: boolean
}

interface Pending extends UsageTarget {
  kind: UsageKind
  day: string
  n: number
}

/**
 * Today's visitors of each object and kind, as a Bloom filter (2^24 bits, three probes: 2 MB that
 * the garbage collector never walks): about 1 in 20,000 new visits is taken for a repeat at
 * 200,000 a day; past VISITS_MAX it starts again (a few visitors count twice).
 */
const FILTER_WORDS = 1 << 19
const VISITS_MAX = 1_000_000

/** Today (UTC, YYYY-MM-DD), made again only when a day has ended (every count asks). */
let day = { text: '', until: 0 }
function today(): string {
  const now = Date.now()
  if (now >= day.until) {
    const start = now - (now % 86_400_000)
    day = { text: new Date(start).toISOString().slice(0, 10), until: start + 86_400_000 }
  }
  return day.text
}

export class UsageCounter {
  private pending = new Map<string, Pending>()
  private seen: Uint32Array | null = null
  private visits = 0
  private seenDay = ''
  private salt = ''
  private since = Date.now()

  /** Counts one use; `visitor` (address and user agent), when known, counts once a day. */
  count(kind: UsageKind, target: UsageTarget, visitor?: string) {
    const day = today()
    if (visitor !== undefined && this.repeated(`${visitor}\n${kind}\n${target.id}`, day)) return
    const k = `${target.id}\t${kind}\t${day}`
    const kept = this.pending.get(k)
    if (kept) kept.n++
    else {
      if (this.pending.size === 0) this.since = Date.now()
      this.pending.set(k, { ...target, kind, day, n: 1 })
    }
  }

  /** Whether the visit (salted: the filter says nothing about a visitor tomorrow) was seen today; marks it. */
  private repeated(visit: string, day: string): boolean {
    if (day !== this.seenDay || !this.seen || this.visits >= VISITS_MAX) {
      if (day !== this.seenDay) this.salt = crypto.randomUUID()
      this.seenDay = day
      this.seen = new Uint32Array(FILTER_WORDS)
      this.visits = 0
    }
    const seen = this.seen
    // the filter's probes are a + i·b (b odd, so that they differ)
    const [a, odd] = hashLanes(this.salt + visit)
    const b = (odd | 1) >>> 0
    let fresh = false
    for (let i = 0; i < 3; i++) {
      const bit = ((a + i * b) >>> 0) & (FILTER_WORDS * 32 - 1)
      const word = bit >>> 5
      const mask = 1 << (bit & 31)
      if (!(seen[word]! & mask)) {
        fresh = true
        seen[word]! |= mask
      }
    }
    if (fresh) this.visits++
    return !fresh
  }

  /** Counts waiting for a flush. */
  get size() {
    return this.pending.size
  }

  /** Whether counts have waited `ms` or more. */
  due(ms: number): boolean {
    return this.pending.size > 0 && Date.now() - this.since >= ms
  }

  /**
   * Writes the counts waiting through `run`, outside the change log (figures move no ETag and no
   * index), in transactions of FLUSH_CHUNK counts with a turn of the event loop between them (on
   * Node the embedded database writes on the main thread: a big flush must not hold every request
   * up). Resolves to how many counts it wrote. A failed transaction's counts, and those after it,
   * wait for the next flush. Flushes may overlap: each takes the counts waiting when it starts.
   */
  async flush(run: (stmts: { sql: string; args: (string | number)[] }[]) => Promise<unknown>): Promise<number> {
    if (this.pending.size === 0) return 0
    const taken = [...this.pending.values()]
    this.pending = new Map()
    let written = 0
    for (let i = 0; i < taken.length; i += FLUSH_CHUNK) {
      const part = taken.slice(i, i + FLUSH_CHUNK)
      if (i > 0) await new Promise((r) => setTimeout(r, 0))
      try {
        await run(usageStatements(part))
      } catch (e) {
        this.putBack(taken.slice(i))
        throw e
      }
      written += part.length
    }
    return written
  }

  private putBack(rows: Pending[]) {
    if (this.pending.size === 0) this.since = Date.now()
    for (const p of rows) {
      const k = `${p.id}\t${p.kind}\t${p.day}`
      const kept = this.pending.get(k)
      if (kept) kept.n += p.n
      else this.pending.set(k, p)
    }
  }
}

/** service.tracking.flush_seconds in milliseconds (at least one second). */
export const flushIntervalMs = (config: Config) => Math.max(1, config.int('service.tracking.flush_seconds')) * 1000

/** Counts written per transaction of a flush (about 8 ms each on Node). */
const FLUSH_CHUNK = 500

const CHUNK = 150

/** The upserts that add `rows` to the daily and total figures, in multi-row chunks. */
export function usageStatements(rows: Pending[]): { sql: string; args: (string | number)[] }[] {
  const out: { sql: string; args: (string | number)[] }[] = []
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK)
    out.push({
      sql: `INSERT INTO usage_daily (object_id, kind, day, package_id, count) VALUES ${part.map(() => '(?, ?, ?, ?, ?)').join(', ')}
        ON CONFLICT (object_id, kind, day) DO UPDATE SET count = count + excluded.count`,
      args: part.flatMap((p) => [p.id, p.kind, p.day, p.packageId, p.n]),
    })
  }
  // totals: one row per object, its kinds added up first
  const byObject = new Map<string, { id: string; packageId: string; resource: boolean; page: number; api: number; download: number }>()
  for (const p of rows) {
    let o = byObject.get(p.id)
    if (!o) byObject.set(p.id, (o = { id: p.id, packageId: p.packageId, resource: p.resource, page: 0, api: 0, download: 0 }))
    o[p.kind] += p.n
  }
  const objects = [...byObject.values()]
  for (let i = 0; i < objects.length; i += CHUNK) {
    const part = objects.slice(i, i + CHUNK)
    out.push({
      sql: `INSERT INTO usage_total (object_id, package_id, is_resource, page, api, download, total) VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
        ON CONFLICT (object_id) DO UPDATE SET page = page + excluded.page, api = api + excluded.api,
          download = download + excluded.download, total = total + excluded.total`,
      args: part.flatMap((o) => [o.id, o.packageId, o.resource ? 1 : 0, o.page, o.api, o.download, o.page + o.api + o.download]),
    })
  }
  return out
}

/** Writes `deps.usage`'s waiting counts with the catalogue's client (not through the change log). */
export function flushUsage(deps: Pick<Deps, 'usage' | 'db'>): Promise<number> {
  if (!deps.usage) return Promise.resolve(0)
  return deps.usage.flush((stmts) => deps.db.$client.batch(stmts, 'write'))
}

/** CKAN's tracking_summary, with the figures by kind beside it. */
export interface TrackingSummary {
  total: number
  recent: number
  page_views: { total: number; recent: number }
  api_reads: { total: number; recent: number }
  downloads: { total: number; recent: number }
}

const empty = (): TrackingSummary => ({
  total: 0,
  recent: 0,
  page_views: { total: 0, recent: 0 },
  api_reads: { total: 0, recent: 0 },
  downloads: { total: 0, recent: 0 },
})

const KEY: Record<UsageKind, 'page_views' | 'api_reads' | 'downloads'> = { page: 'page_views', api: 'api_reads', download: 'downloads' }

/**
 * The figures of a dataset and its resources (by object id; those never used are absent), from
 * two index reads: the totals by package, and the days since `since` by package.
 */
export async function usageSummaries(read: Deps['read'], packageId: string, since: string): Promise<Map<string, TrackingSummary>> {
  const [totals, days] = await Promise.all([
    read('SELECT object_id, page, api, download, total FROM usage_total WHERE package_id = ?', [packageId]),
    read('SELECT object_id, kind, sum(count) AS n FROM usage_daily WHERE package_id = ? AND day >= ? GROUP BY object_id, kind', [packageId, since]),
  ])
  const out = new Map<string, TrackingSummary>()
  const of = (id: string) => {
    let s = out.get(id)
    if (!s) out.set(id, (s = empty()))
    return s
  }
  for (const r of totals) {
    const s = of(String(r.object_id))
    s.total = Number(r.total)
    s.page_views.total = Number(r.page)
    s.api_reads.total = Number(r.api)
    s.downloads.total = Number(r.download)
  }
  for (const r of days) {
    const s = of(String(r.object_id))
    const n = Number(r.n)
    s.recent += n
    const kind = KEY[String(r.kind) as UsageKind]
    if (kind) s[kind].recent = n
  }
  return out
}

export const noUsage = empty

/** The first day "recent" covers (UTC, YYYY-MM-DD): today and the days before it, `days` in all. */
export function recentSince(days: number, now = Date.now()): string {
  return new Date(now - (Math.max(1, days) - 1) * 86_400_000).toISOString().slice(0, 10)
}

/**
 * package_show's and resource_show's include_tracking: `tracking_summary` on the dataset and each
 * of its resources (CKAN's {total, recent}, then the figures by kind).
 */
export async function withTrackingSummaries<D extends { id?: unknown; resources?: unknown }>(
  deps: Pick<Deps, 'read' | 'config'>,
  packageId: string,
  dict: D,
): Promise<D & { tracking_summary: TrackingSummary }> {
  const figures = await usageSummaries(deps.read, packageId, recentSince(deps.config.int('service.tracking.recent_days')))
  const out = { ...dict, tracking_summary: figures.get(String(dict.id)) ?? empty() }
  if (Array.isArray(dict.resources))
    (out as { resources: unknown }).resources = (dict.resources as { id: string }[]).map((r) => ({ ...r, tracking_summary: figures.get(r.id) ?? empty() }))
  return out
}

/** One row of the usage page: a dataset or resource with its figures. */
export interface UsageRow {
  id: string
  package_id: string
  package_name: string
  title: string
  total: number
  recent: number
  page: number
  api: number
  download: number
}

/**
 * The sysadmin usage page's figures: the most used datasets and resources (by recent uses, then
 * all), and the uses per day and kind since `since`.
 */
export async function usageReport(read: Deps['read'], since: string, limit: number) {
  const recent = `SELECT object_id, sum(count) AS n FROM usage_daily WHERE day >= ? GROUP BY object_id`
  const rows = (sql: string) => read(sql, [since, limit])
  const [datasets, resources, days] = await Promise.all([
    rows(`SELECT t.object_id AS id, t.package_id, p.name AS package_name, coalesce(p.title, '') AS title, t.total, coalesce(r.n, 0) AS recent, t.page, t.api, t.download
      FROM usage_total t JOIN package p ON p.id = t.object_id LEFT JOIN (${recent}) r ON r.object_id = t.object_id
      WHERE t.is_resource = 0 ORDER BY recent DESC, t.total DESC, t.object_id LIMIT ?`),
    rows(`SELECT t.object_id AS id, t.package_id, p.name AS package_name, coalesce(nullif(res.name, ''), res.url, '') AS title, t.total, coalesce(r.n, 0) AS recent, t.page, t.api, t.download
      FROM usage_total t JOIN resource res ON res.id = t.object_id JOIN package p ON p.id = t.package_id LEFT JOIN (${recent}) r ON r.object_id = t.object_id
      WHERE t.is_resource = 1 ORDER BY recent DESC, t.total DESC, t.object_id LIMIT ?`),
    read('SELECT day, kind, sum(count) AS n FROM usage_daily WHERE day >= ? GROUP BY day, kind ORDER BY day DESC', [since]),
  ])
  const asRow = (r: Record<string, unknown>): UsageRow => ({
    id: String(r.id),
    package_id: String(r.package_id),
    package_name: String(r.package_name),
    title: String(r.title ?? ''),
    total: Number(r.total),
    recent: Number(r.recent),
    page: Number(r.page),
    api: Number(r.api),
    download: Number(r.download),
  })
  const byDay = new Map<string, Record<UsageKind, number>>()
  for (const r of days) {
    const day = String(r.day)
    let d = byDay.get(day)
    if (!d) byDay.set(day, (d = { page: 0, api: 0, download: 0 }))
    const kind = String(r.kind) as UsageKind
    if (kind in d) d[kind] = Number(r.n)
  }
  return { datasets: datasets.map(asRow), resources: resources.map(asRow), days: [...byDay].map(([day, n]) => ({ day, ...n })) }
}
