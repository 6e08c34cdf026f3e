// The per-process caches: least recently used first out, dataset dicts bounded by bytes.
import { describe, expect, it } from 'vitest'
import { LruCaches } from '../../src/model/cache'
import { markImmutable } from '../../src/lib/json'
import { setup } from '../helpers/setup'

const dict = (id: string, notes: string) => markImmutable({ id, name: `n-${id}`, notes })

describe('LruCaches', () => {
  it('bounds the dataset dicts by their estimated bytes, oldest use out first', () => {
    const c = new LruCaches(1) // 1 MB
    const big = 'x'.repeat(100_000) // about 300 kB each as counted (text and object)
    for (const id of ['a', 'b', 'c']) c.packages.set(id, { id, name: id, dict: dict(id, big) })
    expect(c.packages.get('a')).toBeDefined() // a is now the most recently used
    c.packages.set('d', { id: 'd', name: 'd', dict: dict('d', big) })
    expect(c.packages.get('b')).toBeUndefined() // b was the least recently used
    expect(['a', 'c', 'd'].map((id) => c.packages.get(id) !== undefined)).toEqual([true, true, true])
    const held = (c.packages as unknown as { bytes: number }).bytes
    expect(held).toBeLessThanOrEqual(1e6)
    expect(held).toBeGreaterThan(900_000)
  })

  it('never keeps a dict larger than the whole budget', () => {
    const c = new LruCaches(1)
    c.packages.set('huge', { id: 'huge', name: 'huge', dict: dict('huge', 'y'.repeat(400_000)) })
    expect(c.packages.get('huge')).toBeUndefined()
  })

  it('deletes and clears keep the byte count right', () => {
    const c = new LruCaches(1)
    c.packages.set('a', { id: 'a', name: 'a', dict: dict('a', 'z'.repeat(1000)) })
    c.packages.set('a', { id: 'a', name: 'a', dict: dict('a', 'z'.repeat(2000)) })
    const bytes = () => (c.packages as unknown as { bytes: number }).bytes
    expect(bytes()).toBeGreaterThan(6000)
    expect(bytes()).toBeLessThan(7000)
    c.packages.delete('a')
    expect(bytes()).toBe(0)
    c.packages.set('b', { id: 'b', name: 'b', dict: dict('b', 'z') })
    c.packages.clear()
    expect(bytes()).toBe(0)
  })

  it('is sized by service.cache.datasets_mb in the app', async () => {
    const t = await setup({ 'service.cache.datasets_mb': '1' })
    const sys = await t.make.sysadmin()
    const notes = 'word '.repeat(30_000) // about 450 kB counted per dict
    const ids: string[] = []
    for (let i = 0; i < 4; i++) ids.push((await t.ok('package_create', { name: `cached-${i}`, notes }, sys)).id)
    for (const id of ids) await t.ok('package_show', { id })
    const cached = ids.filter((id) => t.deps.caches.packages.get(id) !== undefined)
    expect(cached.length).toBe(2) // two fit in 1 MB
    expect(cached).toEqual(ids.slice(2))
  })
})
