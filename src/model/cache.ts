// Per-process caches of derived dicts, kept right by the change log (see changes.ts).
import type { UserRow } from '../context'
import type { Change } from './changes'
import type { ResourceRow } from './resource'
import { cachedAsciiJson } from '../lib/json'

/** A bounded map of derived values. */
export interface BoundedCache<V> {
  get(k: string): V | undefined
  set(k: string, v: V): void
  delete(k: string): void
  clear(): void
  values(): IterableIterator<V>
}

/**
 * Bounded map, least recently used first out: at most `max` entries and, with `weigh`, at most
 * `maxWeight` (bytes, estimated) of them together.
 */
class Lru<V> implements BoundedCache<V> {
  private map = new Map<string, { v: V; w: number }>()
  private weight = 0
  constructor(
    private readonly max: number,
    private readonly weigh?: (v: V) => number,
    private readonly maxWeight = Infinity,
  ) {}
  get(k: string) {
    const e = this.map.get(k)
    if (!e) return undefined
    // a hit becomes the newest entry
    this.map.delete(k)
    this.map.set(k, e)
    return e.v
  }
  set(k: string, v: V) {
    this.delete(k)
    const w = this.weigh ? this.weigh(v) : 0
    if (w > this.maxWeight) return
    while (this.map.size && (this.map.size >= this.max || this.weight + w > this.maxWeight)) {
      this.delete(this.map.keys().next().value!)
    }
    this.map.set(k, { v, w })
    this.weight += w
  }
  delete(k: string) {
    const e = this.map.get(k)
    if (!e) return
    this.weight -= e.w
    this.map.delete(k)
  }
  clear() {
    this.map.clear()
    this.weight = 0
  }
  *values() {
    for (const e of this.map.values()) yield e.v
  }
  /** Estimated bytes held (0 without `weigh`). */
  get bytes() {
    return this.weight
  }
  get size() {
    return this.map.size
  }
}

/**
 * Estimated bytes of a cached dataset dict: its JSON text (kept for responses, see lib/json.ts)
 * and the object, measured at about twice the text in V8.
 */
const dictBytes = (c: CachedPackage) => 3 * cachedAsciiJson(c.dict).length

export interface CachedPackage {
  id: string
  name: string
  /** The package_show dict (shared: callers must not mutate it). */
  dict: Record<string, unknown>
}

/** This process's caches of derived data; `apply` drops what a batch of changes made stale. */
export interface Caches {
  /** package_show dicts by dataset id. */
  readonly packages: BoundedCache<CachedPackage>
  /** dataset name → id. */
  readonly packageNames: BoundedCache<string>
  /** API key → user row (null = no such key). */
  readonly usersByKey: BoundedCache<UserRow | null>
  /** user id → (organization/group id → capacity), hierarchy cascade applied. */
  readonly capacities: BoundedCache<Map<string, string>>
  /**
   * Active resource rows by id for read-only actions, each with the packageGeneration it was
   * read in: an entry of an older generation is stale (see datastore/access.ts findResourceToRead).
   */
  readonly resources: BoundedCache<{ generation: number; row: ResourceRow }>
  /** user id → (dataset id → collaborator capacity); see model/collaborator.ts. */
  readonly collaborations: BoundedCache<Map<string, string>>
  /** Bumped by every collaborator change: a read that raced one is not cached. */
  collaborationGeneration: number
  /** Bumped whenever cached dataset dicts may have gone stale (see packageDicts). */
  packageGeneration: number
  apply(changes: Change[]): void
}

/**
 * The in-process caches: LRU maps; the dataset dicts (by far the largest entries, about 12 kB
 * each for a dataset with a few resources) are bounded by bytes, `datasetMb`
 * (service.cache.datasets_mb).
 */
export class LruCaches implements Caches {
  readonly packages: Lru<CachedPackage>
  constructor(datasetMb = 128) {
    this.packages = new Lru<CachedPackage>(100_000, dictBytes, datasetMb * 1e6)
  }
  /** dataset name → id. */
  readonly packageNames = new Lru<string>(20000)
  /** API key → user row (null = no such key). */
  readonly usersByKey = new Lru<UserRow | null>(5000)
  /** user id → (organization/group id → capacity), hierarchy cascade applied. */
  readonly capacities = new Lru<Map<string, string>>(5000)
  readonly resources = new Lru<{ generation: number; row: ResourceRow }>(20000)
  readonly collaborations = new Lru<Map<string, string>>(5000)
  collaborationGeneration = 0

  /** Bumped whenever cached dataset dicts may have gone stale (see packageDicts). */
  packageGeneration = 0

  apply(changes: Change[]) {
    // changes that never touch dataset dicts ('other': a write nothing derived depends on, logged
    // so that ETags move; see model/write-batcher.ts logged())
    const keyOnly = ['user', 'config', 'api_token', 'package_member', 'resource', 'datastore', 'other']
    if (changes.some((c) => !keyOnly.includes(c.entity_type))) this.packageGeneration++
    for (const c of changes) {
      switch (c.entity_type) {
        case '*': // the log was pruned past this process: anything may have changed
          this.packages.clear()
          this.packageNames.clear()
          this.usersByKey.clear()
          this.capacities.clear()
          this.resources.clear()
          this.collaborations.clear()
          this.collaborationGeneration++
          break
        case 'package': {
          const cached = this.packages.get(c.entity_id)
          if (cached) this.packageNames.delete(cached.name)
          this.packages.delete(c.entity_id)
          break
        }
        case 'group':
          // Organization/group titles and memberships appear inside dataset dicts and capacities.
          this.packages.clear()
          this.packageNames.clear()
          this.capacities.clear()
          break
        case 'user':
          this.usersByKey.clear()
          this.capacities.clear()
          break
        case 'package_member':
          // A user's collaborations changed (entity_id: the user).
          this.collaborations.delete(c.entity_id)
          this.collaborationGeneration++
          break
        case 'api_token':
          // A revoked token must stop working, and a new one may be cached as unknown.
          this.usersByKey.clear()
          break
        case 'tag':
        case 'vocabulary':
          this.packages.clear()
          break
      }
    }
  }
}
