// CKAN's response envelope: success and error bodies, status codes and JSONP.
import { ActionError, BadRequest } from '../errors'
import { asciiJson, cachedAsciiJson } from '../lib/json'
import { internalError } from './internal-error'

const JSON_TYPE = 'application/json;charset=utf-8'

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

export function ok(
  help: string,
  result: unknown,
  callback?: string,
  changed?: Map<string, Set<string>>,
): Response {
  // ckan 2.12: the types and ids of the objects the call changed, after the result
  const changes = changed?.size
    ? `,"changed_entities":${asciiJson(Object.fromEntries([...changed].map(([k, ids]) => [k, [...ids].sort()])))}`
    : ''
  const body = `{"help":${asciiJson(help)},"success":true,"result":${cachedAsciiJson(result)}${changes}}`
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
  if (!(err instanceof ActionError)) return internalError(err, help)
  const status = err.status
  const error = { ...err.body(), __type: err.type }
  return new Response(asciiJson({ help, error, success: false }), {
    status,
    headers: { 'content-type': JSON_TYPE },
  })
}
