// Which failures count as "the database could not be reached" (503 DatabaseUnavailable) or "the
// disk is full" (503 StorageFull), as libSQL, undici, workerd and embedded replicas word them.
import { describe, expect, it } from 'vitest'
import { isDatabaseUnreachable, isStorageFull } from '../../src/errors'

const withCause = (message: string, cause: unknown) => Object.assign(new Error(message), { cause })
const coded = (message: string, code: string) => Object.assign(new Error(message), { code })

describe('isDatabaseUnreachable', () => {
  it.each([
    ['a refused connection', coded('connect ECONNREFUSED 127.0.0.1:8080', 'ECONNREFUSED')],
    ['a timeout (the replica probe of the primary)', coded('the primary did not answer within 2000 ms', 'ETIMEDOUT')],
    ['workerd losing the connection', new Error('Network connection lost.')],
    ['undici under a libSQL error', withCause('SERVER_ERROR: fetch failed', withCause('fetch failed', coded('other side closed', 'UND_ERR_SOCKET')))],
    ["a replica's sync when the primary is gone", new Error('Replication(PrimaryHandshakeTimeout)')],
    [
      "a replica's sync cut off mid-way",
      new Error('Replication(Client(Status { code: Unknown, message: "connection closed before message completed", source: None }))'),
    ],
    ["a replica's sync refused", new Error('Replication(Client(Status { code: Unavailable, message: "tcp connect error" }))')],
  ])('counts %s', (_, err) => expect(isDatabaseUnreachable(err)).toBe(true))

  it.each([
    ['a constraint', coded('UNIQUE constraint failed: package.name', 'SQLITE_CONSTRAINT_UNIQUE')],
    ['bad SQL', coded('near "SELEC": syntax error', 'SQLITE_ERROR')],
    ['a replication error that is not about reaching the primary', new Error('Replication(InvalidLogHeader)')],
    ['a gRPC refusal of the request itself', new Error('Replication(Client(Status { code: PermissionDenied, message: "auth" }))')],
    ['nothing', undefined],
  ])('does not count %s', (_, err) => expect(isDatabaseUnreachable(err)).toBe(false))
})

describe('isStorageFull', () => {
  it('counts SQLite and the file system saying so, under a cause', () => {
    expect(isStorageFull(coded('database or disk is full', 'SQLITE_FULL'))).toBe(true)
    expect(isStorageFull(withCause('write failed', coded('ENOSPC: no space left on device, write', 'ENOSPC')))).toBe(true)
    expect(isStorageFull(coded('UNIQUE constraint failed', 'SQLITE_CONSTRAINT'))).toBe(false)
  })
})
