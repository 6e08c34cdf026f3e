// The last line of defence: an unexpected exception becomes CKAN's 500 envelope with a short
// request id, logged once (id and stack) and counted; the response never carries a stack or SQL.
// A full disk becomes a 503 that says so.
import { toHex } from '../lib/hex'
import { asciiJson } from '../lib/json'
import { isStorageFull, StorageFull } from '../errors'

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
 * the operator's to fix, not a fault of the code: a 503 saying so (logged, not counted).
 */
export function internalError(err: unknown, help?: string): Response {
  if (isStorageFull(err)) {
    console.error('write refused, out of storage space:', err instanceof Error ? err.message : String(err))
    const full = new StorageFull()
    const error = { message: full.message, __type: full.type }
    const body = help === undefined ? { success: false, error } : { help, error, success: false }
    return new Response(asciiJson(body), {
      status: full.status,
      headers: { 'content-type': 'application/json;charset=utf-8', 'retry-after': '60' },
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
