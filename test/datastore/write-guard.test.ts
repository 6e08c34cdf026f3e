// writeGuarded: a read-then-write sequence retried while other writers change the table; when they
// never stop, the caller gets a Validation Error saying nothing was written (not a 500).
import { describe, expect, it } from 'vitest'
import { writeGuarded } from '../../src/datastore/registry'
import type { DatastoreDb } from '../../src/datastore/store'
import { ValidationError } from '../../src/errors'

const changed = () => Object.assign(new Error('SQLITE_CONSTRAINT: NOT NULL constraint failed: _ds_table.version'), { code: 'SQLITE_CONSTRAINT' })
const fakeDb = () => ({ exclusive: <T>(fn: () => Promise<T>) => fn() }) as unknown as DatastoreDb

describe('writeGuarded', () => {
  it('retries a sequence whose guard found the table changed, and returns its result', async () => {
    let tries = 0
    const r = await writeGuarded(fakeDb(), async () => {
      if (++tries < 3) throw changed()
      return 'done'
    })
    expect(r).toBe('done')
    expect(tries).toBe(3)
  })

  it('gives up with a Validation Error when the table keeps changing', async () => {
    let tries = 0
    const err = await writeGuarded(fakeDb(), async () => {
      tries++
      throw changed()
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ValidationError)
    expect((err as ValidationError).errors).toEqual({ resource_id: [expect.stringMatching(/changed by other writes 20 times .* nothing was written, try again/)] })
    expect(tries).toBe(20)
  })

  it('passes any other error through at once', async () => {
    let tries = 0
    const err = await writeGuarded(fakeDb(), async () => {
      tries++
      throw new Error('disk full')
    }).catch((e: unknown) => e)
    expect((err as Error).message).toBe('disk full')
    expect(tries).toBe(1)
  })
})
