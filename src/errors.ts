// The errors actions throw; http/envelope.ts turns each into CKAN's error envelope.

export abstract class ActionError extends Error {
  abstract readonly type: string
  abstract readonly status: number
  /** The `error` object of the envelope, without `__type`. */
  body(): Record<string, unknown> {
    return { message: this.message }
  }
}

/** 403 Authorization Error. `detail` is appended to "Access denied". */
export class NotAuthorized extends ActionError {
  readonly type = 'Authorization Error'
  readonly status = 403
  constructor(detail?: string) {
    super(detail ? `Access denied: ${detail}` : 'Access denied')
  }
}

/** 404 Not Found Error. `detail` is appended to "Not found". */
export class NotFound extends ActionError {
  readonly type = 'Not Found Error'
  readonly status = 404
  constructor(detail?: string) {
    super(detail ? `Not found: ${detail}` : 'Not found')
  }
}

export type ErrorDict = Record<string, unknown>

/** 409 Validation Error: a field → messages mapping, flattened into the error object. */
export class ValidationError extends ActionError {
  readonly type = 'Validation Error'
  readonly status = 409
  constructor(readonly errors: ErrorDict) {
    super('Validation Error')
  }
  static message(text: string) {
    return new ValidationError({ message: text })
  }
  static field(field: string, ...messages: string[]) {
    return new ValidationError({ [field]: messages })
  }
  override body() {
    return { ...this.errors }
  }
}

/** 400 Search Query Error (bad package_search parameters or syntax). */
export class SearchQueryError extends ActionError {
  readonly type = 'Search Query Error'
  readonly status = 400
  constructor(detail: string) {
    super(`Search Query is invalid: ${detail}`)
  }
}

/** 409 Search Error (the engine could not run the query). */
export class SearchError extends ActionError {
  readonly type = 'Search Error'
  readonly status = 409
  constructor(detail: string) {
    super(`Search error: ${detail}`)
  }
}

/** 400 Integrity Error: a key that must hold a list of objects holds something else. */
export class IntegrityError extends ActionError {
  readonly type = 'Integrity Error'
  readonly status = 400
  constructor(
    message: string,
    readonly data: unknown,
  ) {
    super(message)
  }
  override body() {
    return { message: this.message, data: this.data }
  }
}

/** 413: a request body over service.max_request_body_mb (refused while it streams in). */
export class RequestTooLarge extends ActionError {
  readonly type = 'Request Entity Too Large'
  readonly status = 413
  constructor(limitMb: number) {
    super(`Request Entity Too Large: the request body exceeds ${limitMb} MB`)
  }
}

/**
 * 400 Bad Request: a POST authenticated only by the web session cookie without the pages' CSRF
 * token (CKAN 2.10's CSRFProtect; its message is flask-wtf's, e.g. "The CSRF token is missing.").
 */
export class CsrfRefused extends ActionError {
  readonly type = 'Bad Request'
  readonly status = 400
}

/**
 * 429 Too Many Requests (beyond CKAN, service.ratelimit.*): the caller used up a class's limit for
 * the current window; `retryAfter` seconds until it opens again.
 */
export class RateLimited extends ActionError {
  readonly type = 'Too Many Requests'
  readonly status = 429
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(message)
  }
}

/** 400 with a bare JSON string body, not the envelope (unknown action, bad body, GET on a write). */
export class BadRequest extends Error {
  constructor(detail: string) {
    super(`Bad request - ${detail}`)
  }
}

/**
 * 503: the server's disk (or its database server's) is full. The write failed as a whole (one
 * transaction, or a file written to a temporary name): nothing was stored, and reads go on.
 */
export class StorageFull extends ActionError {
  readonly type = 'Service Unavailable'
  readonly status = 503
  constructor() {
    super('Service Unavailable: the server is out of storage space, so nothing was written. Try again once space has been freed.')
  }
}

/** Whether `err` (or what caused it) says the disk is full: SQLite's SQLITE_FULL, the file system's ENOSPC/EDQUOT. */
export function isStorageFull(err: unknown): boolean {
  return causes(err).some(
    ({ code, message }) =>
      code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT' || /database or disk is full|no space left on device/i.test(message),
  )
}

/** `err` and what caused it (up to five deep), each as its code and message. */
function causes(err: unknown): { code: string; message: string }[] {
  const out: { code: string; message: string }[] = []
  for (let e = err; e && out.length < 5; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    out.push({ code: String(code ?? ''), message: String(message ?? '') })
  }
  return out
}

/** 503: the database server could not be reached (down, restarting, the connection dropped). */
export class DatabaseUnavailable extends ActionError {
  readonly type = 'Service Unavailable'
  readonly status = 503
  constructor() {
    super('Service Unavailable: the database could not be reached, so the request may not have been carried out. Try again shortly.')
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT'])

/** An embedded replica's sync that could not reach its primary, as libSQL words it (no code). */
const REPLICA_SYNC_UNREACHABLE = /^Replication\((PrimaryHandshakeTimeout|Client\(Status \{ code: (Unavailable|Unknown|DeadlineExceeded|Cancelled)\b)/

/**
 * Whether `err` (or what caused it) is a connection to a database server that failed: refused,
 * reset, lost (workerd's "Network connection lost."), as the libSQL client passes them on, or a
 * replica's sync that could not reach the primary.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  return causes(err).some(
    ({ code, message }) =>
      UNREACHABLE_CODES.has(code) ||
      /^(Network connection lost\.?|fetch failed|connect ECONNREFUSED|socket hang up|other side closed)/i.test(message) ||
      REPLICA_SYNC_UNREACHABLE.test(message),
  )
}
