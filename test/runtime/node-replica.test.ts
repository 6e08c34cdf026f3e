// The replica client (src/runtime/node-replica.ts) on scripted clients: where statements go, torn read batches, joined syncs.
import type { Client, InStatement, ResultSet } from '@libsql/client'
import { describe, expect, it } from 'vitest'
import { ReplicaSync, isWriteActionRequest, replicaClient } from '../../src/runtime/node-replica'

const tick = () => new Promise((r) => setTimeout(r, 1))
const rs = (rows: unknown[][] = []) => ({ rows, columns: ['seq'] }) as unknown as ResultSet

/** A client that records what runs on it; statements and syncs each take a timer tick. */
function scripted(name: string, log: string[], head = { seq: 0 }) {
  return {
    async execute(stmt: InStatement) {
      const sql = typeof stmt === 'string' ? stmt : stmt.sql
      log.push(`${name}: ${sql}`)
      await tick()
      return rs(sql.includes('FROM change_log') ? [[head.seq]] : [])
    },
    async batch(stmts: InStatement[]) {
      log.push(`${name} batch: ${stmts.map((s) => (typeof s === 'string' ? s : s.sql)).join('; ')}`)
      await tick()
      return stmts.map(() => rs())
    },
    async sync() {
      log.push(`${name}: sync`)
      await tick()
      return undefined
    },
    close() {},
  } as unknown as Client
}

describe('replica client', () => {
  it('reads a batch again when a sync applied a logged write in the middle of it', async () => {
    const log: string[] = []
    const head = { seq: 4 }
    const replica = scripted('replica', log, head)
    const plain = replica.execute.bind(replica)
    let reads = 0
    // the background sync lands between the first pass's two statements
    replica.execute = (async (stmt: InStatement) => {
      const r = await plain(stmt)
      if (typeof stmt !== 'string' && stmt.sql === 'SELECT 1' && ++reads === 1) head.seq = 5
      return r
    }) as Client['execute']
    const client = replicaClient(replica, scripted('primary', log), new ReplicaSync(replica), () => {})
    await client.batch([{ sql: 'SELECT 1', args: [] }, { sql: 'SELECT 2', args: [] }])
    expect(log.filter((l) => !l.includes('change_log'))).toEqual([
      'replica: SELECT 1',
      'replica: SELECT 2',
      'replica: SELECT 1',
      'replica: SELECT 2',
    ])
  })

  it('joins callers to a sync that has not started, and runs another after one that has', async () => {
    const log: string[] = []
    const syncs = new ReplicaSync(scripted('replica', log))
    const first = syncs.sync()
    const joined = syncs.sync()
    expect(joined).toBe(first)
    await tick() // the first one is under way now
    const later = syncs.sync()
    expect(later).not.toBe(first)
    await Promise.all([first, later])
    expect(log).toEqual(['replica: sync', 'replica: sync'])
  })

  it('gives a sync up, without starting it, when the primary does not answer the probe', async () => {
    const log: string[] = []
    const syncs = new ReplicaSync(scripted('replica', log), async () => {
      throw new Error('no answer')
    })
    await expect(syncs.sync()).rejects.toThrow('no answer')
    expect(log).toEqual([])
  })

  it('catches up with the primary before a write action only when the primary is ahead', async () => {
    const log: string[] = []
    const local = { seq: 3 }
    let remote = 3
    const syncs = new ReplicaSync(scripted('replica', log, local), async () => remote)
    await syncs.catchUpWithPrimary()
    expect(log.filter((l) => l.endsWith('sync'))).toEqual([])
    remote = 4
    await syncs.catchUpWithPrimary()
    expect(log.filter((l) => l.endsWith('sync'))).toEqual(['replica: sync'])
  })

  it('sends writes to the primary and syncs before answering', async () => {
    const log: string[] = []
    const replica = scripted('replica', log)
    let probes = 0
    const syncs = new ReplicaSync(replica, async () => ++probes)
    const client = replicaClient(replica, scripted('primary', log), syncs, () => {})
    await client.batch([{ sql: 'SELECT 1', args: [] }, { sql: 'INSERT INTO t VALUES (1)', args: [] }])
    await client.execute({ sql: 'UPDATE t SET a = 1', args: [] })
    await client.execute('SELECT 2')
    expect(log.filter((l) => !l.includes('change_log'))).toEqual([
      'primary batch: SELECT 1; INSERT INTO t VALUES (1)',
      'replica: sync',
      'primary: UPDATE t SET a = 1',
      'replica: sync',
      'replica: SELECT 2',
    ])
    // the write's answer stands for the probe: the primary answered a moment ago
    expect(probes).toBe(0)
  })

  it('still answers a committed write when the sync after it fails', async () => {
    const log: string[] = []
    const replica = scripted('replica', log)
    replica.sync = async () => {
      throw new Error('primary gone')
    }
    const errors: unknown[] = []
    const client = replicaClient(replica, scripted('primary', log), new ReplicaSync(replica), (e) => errors.push(e))
    await expect(client.execute({ sql: 'INSERT INTO t VALUES (1)', args: [] })).resolves.toBeDefined()
    expect(errors).toHaveLength(1)
  })
})

describe('isWriteActionRequest', () => {
  it('tells write actions from read actions and other routes', () => {
    const req = (path: string) => new Request(`http://x${path}`, { method: 'POST' })
    expect(isWriteActionRequest(req('/api/3/action/package_create'))).toBe(true)
    expect(isWriteActionRequest(req('/api/action/dataset_purge'))).toBe(true)
    expect(isWriteActionRequest(req('/api/3/action/package_show'))).toBe(false)
    expect(isWriteActionRequest(req('/api/3/action/no_such_action'))).toBe(false)
    expect(isWriteActionRequest(req('/datastore/dump/abc'))).toBe(false)
  })
})
