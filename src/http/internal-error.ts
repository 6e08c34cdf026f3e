// The last line of defence: an unexpected exception becomes CKAN's 500 envelope with a short
// request id, logged once (id and stack) and counted; the response never carries a stack or SQL.
// A full disk or an unreachable database server becomes a 503 that says so.
import { toHex } from '../lib/hex'
import { asciiJson } from '../lib/json'
import { DatabaseUnavailable, isDatabaseUnreachable, isStorageFull, StorageFull } from '../errors'

/** Unexpected exceptions turned into 500s since the process started (tests assert it stays 0). */
export const serverErrors = { count: 0 }

function shortId(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(6)))
}

/** Counts `err` and logs it once with its stack under a new short request id, which it returns. */
export function logInternalError(err: unknown): string {
  serverErrors.count++
  const id = shortId()
  const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err)
  console.error(`internal error (request ${id}): ${detail}`)
  return id
}

/**
 * The 500 response for `err`; `help` is the action's help URL when there is one. A full disk is
 * the operator's to fix, not a fault of the code, and so is a database server out of reach: a 503
 * saying so (logged, not counted).
 */
export function internalError(err: unknown, help?: string): Response {
  const outage = isStorageFull(err) ? new StorageFull() : isDatabaseUnreachable(err) ? new DatabaseUnavailable() : null
  if (outage) {
    const why = outage instanceof StorageFull ? 'out of storage space' : 'the database is unreachable'
    console.error(`request refused, ${why}:`, err instanceof Error ? err.message : String(err))
    const error = { message: outage.message, __type: outage.type }
    const body = help === undefined ? { success: false, error } : { help, error, success: false }
    return new Response(asciiJson(body), {
      status: outage.status,
      headers: { 'content-type': 'application/json;charset=utf-8', 'retry-after': outage instanceof StorageFull ? '60' : '5' },
    })
  }
  const id = logInternalError(err)
  // protocol.md §6: "Any other exception" → __type and message exactly as CKAN's, plus the id
  const error = {
    __type: 'Internal Server Error',
    message: 'Internal Server Error',
    request_id: id,
  }
  const body = help === undefined ? { success: false, error } : { help, error, success: false }
  return new Response(asciiJson(body), {
    status: 500,
    headers: { 'content-type': 'application/json;charset=utf-8', 'x-request-id': id },
  })
}
