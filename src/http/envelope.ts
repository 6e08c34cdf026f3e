// CKAN's response envelope: success and error bodies, status codes, JSONP and ASCII-escaped JSON.
import { ActionError, BadRequest } from '../errors'

const JSON_TYPE = 'application/json;charset=utf-8'

/** JSON with every non-ASCII character escaped as \uXXXX, as CKAN emits it. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'),
  )
}

export function helpUrl(siteUrl: string, action: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/api/3/action/help_show?name=${encodeURIComponent(action)}`
}

/** Python's html.escape(), which CKAN applies to JSONP callback names. */
export const escapeHtml = (s: string) =>
  s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;')

const frozen = new WeakSet<object>()
const serialized = new WeakMap<object, string>()

/**
 * Marks a result object as shared and never mutated (e.g. a cached dataset dict), so its JSON
 * text can be reused by every response that returns it.
 */
export function markImmutable<T extends object>(value: T): T {
  frozen.add(value)
  return value
}

/** Marks `value` immutable (see markImmutable) and returns its JSON text, computed once. */
export function immutableJson(value: object): string {
  frozen.add(value)
  return resultJson(value)
}

function resultJson(result: unknown): string {
  if (result === null || typeof result !== 'object' || !frozen.has(result)) return asciiJson(result)
  let text = serialized.get(result)
  if (text === undefined) serialized.set(result, (text = asciiJson(result)))
  return text
}

export function ok(help: string, result: unknown, callback?: string): Response {
  const body = `{"help":${asciiJson(help)},"success":true,"result":${resultJson(result)}}`
  if (callback !== undefined) {
    // ckan: JSONP only for successful GET requests
    return new Response(`${escapeHtml(callback)}(${body});`, {
      status: 200,
      headers: { 'content-type': 'application/javascript;charset=utf-8' },
    })
  }
  return new Response(body, { status: 200, headers: { 'content-type': JSON_TYPE } })
}

/** The response for any error thrown while serving an action. */
export function fail(help: string, err: unknown): Response {
  if (err instanceof BadRequest) {
    return new Response(asciiJson(err.message), { status: 400, headers: { 'content-type': JSON_TYPE } })
  }
  let status = 500
  let error: Record<string, unknown> = { __type: 'Internal Server Error', message: 'Internal Server Error' }
  if (err instanceof ActionError) {
    status = err.status
    error = { ...err.body(), __type: err.type }
  } else {
    console.error('internal error', err)
  }
  return new Response(asciiJson({ help, error, success: false }), {
    status,
    headers: { 'content-type': JSON_TYPE },
  })
}
