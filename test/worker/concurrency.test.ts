// One isolate under concurrent writes and reads: every acknowledged write is there, every 500 left nothing, no hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callWorker, startWorker, type Reply, type WorkerEnv } from './harness'

let w: WorkerEnv
beforeAll(async () => {
  w = await startWorker()
  const r = await callWorker(w.mf, 'organization_create', { name: 'burst-org' }, w.sysadmin)
  expect(r.status).toBe(200)
}, 120_000)
afterAll(async () => {
  await w?.close()
})

/** A request that gives up after `ms`, so a hung isolate fails the test instead of stalling it. */
const bounded = (p: Promise<Reply>, ms = 20_000) =>
  Promise.race([
    p,
    new Promise<Reply>((resolve) => setTimeout(() => resolve({ status: 0, body: null, text: 'hung' }), ms)),
  ])

describe('one isolate under a burst of writes and reads', () => {
  for (const round of [1, 2, 3, 4, 5]) {
    it(`commits exactly the acknowledged writes (round ${round})`, async () => {
      const admin = w.sysadmin
      const n = 50
      const names = Array.from({ length: n }, (_, i) => `burst-${round}-${i}`)
      const writes = names.map((name, i) =>
        bounded(
          i % 5 === 4
            ? callWorker(w.mf, 'group_create', { name }, admin)
            : callWorker(w.mf, 'package_create', { name, owner_org: 'burst-org', tags: [{ name: `t${i % 3}` }] }, admin),
        ),
      )
      const reads = Array.from({ length: 20 }, (_, i) =>
        bounded(
          i % 2
            ? callWorker(w.mf, 'package_search', { q: `name:burst-${round}-*` })
            : callWorker(w.mf, 'package_list'),
        ),
      )
      const replies = await Promise.all(writes)
      const readReplies = await Promise.all(reads)
      expect(replies.filter((r) => r.status === 0).length, 'hung writes').toBe(0)
      expect(readReplies.filter((r) => r.status === 0).length, 'hung reads').toBe(0)
      expect(readReplies.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([])

      const packages = new Set<string>(await callWorker(w.mf, 'package_list').then((r) => r.body.result))
      const groups = new Set<string>(await callWorker(w.mf, 'group_list').then((r) => r.body.result))
      names.forEach((name, i) => {
        const stored = i % 5 === 4 ? groups.has(name) : packages.has(name)
        const acked = replies[i]!.status === 200
        expect({ name, stored, status: replies[i]!.status }).toEqual({
          name,
          stored: acked,
          status: replies[i]!.status,
        })
      })
      expect(replies.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([])
      // the isolate still answers
      expect((await bounded(callWorker(w.mf, 'status_show'))).status).toBe(200)
    }, 120_000)
  }
})
