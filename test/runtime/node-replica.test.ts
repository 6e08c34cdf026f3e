// The replica's sync discipline (src/runtime/node-replica.ts) on a scripted client: no sync inside a read batch, joined syncs.
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

describe('ReplicaSync', () => {
  it('lets no sync land between the statements of a read batch', async () => {
    const log: string[] = []
    const replica = scripted('replica', log)
    const state = new ReplicaSync(replica)
    const client = replicaClient(replica, scripted('primary', log), state, () => {})
    const reading = client.batch(['SELECT 1', 'SELECT 2', 'SELECT 3'])
    await tick()
    const syncing = state.sync()
    await Promise.all([reading, syncing])
    expect(log.filter((l) => !l.includes('change_log'))).toEqual([
      'replica: SELECT 1',
      'replica: SELECT 2',
      'replica: SELECT 3',
      'replica: sync',
    ])
  })

  it('joins callers to a sync that has not started, and runs another after one that has', async () => {
    const log: string[] = []
    const head = { seq: 7 }
    const state = new ReplicaSync(scripted('replica', log, head))
    const first = state.sync()
    const joined = state.sync()
    expect(joined).toBe(first)
    await tick() // the first one is under way now
    head.seq = 9
    const later = state.sync()
    expect(later).not.toBe(first)
    await Promise.all([first, later])
    expect(log.filter((l) => l.endsWith('sync'))).toHaveLength(2)
    expect(state.head).toBe(9)
  })

  it('sends writes to the primary and syncs before answering', async () => {
    const log: string[] = []
    const replica = scripted('replica', log)
    const client = replicaClient(replica, scripted('primary', log), new ReplicaSync(replica), () => {})
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
