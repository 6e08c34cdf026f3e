// Per-process caches of derived dicts, kept right by the change log (see changes.ts).
import type { UserRow } from '../context'
import type { Change } from './changes'
import type { ResourceRow } from './resource'

/** A bounded map of derived values. */
export interface BoundedCache<V> {
  get(k: string): V | undefined
  set(k: string, v: V): void
  delete(k: string): void
  clear(): void
  values(): IterableIterator<V>
}

/** Bounded map: drops the oldest entries once full. */
class Lru<V> implements BoundedCache<V> {
  private map = new Map<string, V>()
  constructor(private readonly max: number) {}
  get(k: string) {
    return this.map.get(k)
  }
  set(k: string, v: V) {
    if (this.map.size >= this.max) {
      const first = this.map.keys().next()
      if (!first.done) this.map.delete(first.value)
    }
    this.map.set(k, v)
  }
  delete(k: string) {
    this.map.delete(k)
  }
  clear() {
    this.map.clear()
  }
  values() {
    return this.map.values()
  }
}

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

/** The in-process caches: LRU maps sized for a catalogue of about 20,000 hot datasets. */
export class LruCaches implements Caches {
  readonly packages = new Lru<CachedPackage>(20000)
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
    // changes that never touch dataset dicts
    const keyOnly = ['user', 'config', 'api_token', 'package_member']
    if (changes.some((c) => !keyOnly.includes(c.entity_type))) this.packageGeneration++
    for (const c of changes) {
      switch (c.entity_type) {
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
