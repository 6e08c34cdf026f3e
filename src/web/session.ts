// Sign-in for the web pages: a signed session cookie (HS256 JWT naming the user; HttpOnly,
// SameSite=Lax, Secure on https and loopback), a CSRF token (a random cookie every form repeats
// in a hidden field), and a limit on failed sign-ins per user name and per client address.
import { sign, verify } from 'hono/jwt'
import { parse as parseCookies, serialize as serializeCookie } from 'hono/utils/cookie'
import type { Deps, UserRow } from '../context'
import { storedSecret } from '../model/site-secret'
import { activeUser } from '../model/user'
import { toHex } from '../lib/hex'

export const SESSION_COOKIE = 'ckan_session'
export const CSRF_COOKIE = 'ckan_csrf'
export const CSRF_FIELD = '_csrf_token'

/** The request's cookies (Hono's parser). */
export const readCookies = (req: { headers: Pick<Headers, 'get'> }): Map<string, string> =>
  new Map(Object.entries(parseCookies(req.headers.get('cookie') ?? '')))

/** Whether the request carries a session cookie at all (signed or not: it is not checked here). */
export const hasSessionCookie = (headers: Pick<Headers, 'get'>): boolean =>
  !!readCookies({ headers }).get(SESSION_COOKIE)

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])
/** Secure wherever a browser keeps Secure cookies: https, and loopback over http (development). */
const secure = (url: URL) => url.protocol === 'https:' || LOOPBACK.has(url.hostname)

export function cookie(url: URL, name: string, value: string, maxAge: number): string {
  return serializeCookie(name, value, { path: '/', httpOnly: true, sameSite: 'Lax', maxAge, secure: secure(url) })
}

async function sessionKey(deps: Deps): Promise<string> {
  const configured = deps.config.str('beaker.session.secret')
  if (configured) return configured.startsWith('string:') ? configured.slice(7) : configured
  return storedSecret(deps, 'web.session.secret')
}

const nowSeconds = (deps: Deps) => Math.floor(Date.parse(deps.now()) / 1000)

/** The Set-Cookie value that signs `user` in for service.who.timeout seconds. */
export async function sessionCookie(deps: Deps, url: URL, user: Pick<UserRow, 'id'>): Promise<string> {
  const ttl = Math.max(60, deps.config.int('who.timeout') || 604800)
  const iat = nowSeconds(deps)
  const token = await sign({ sub: user.id, iat, exp: iat + ttl }, await sessionKey(deps), 'HS256')
  return cookie(url, SESSION_COOKIE, token, ttl)
}

export const clearSessionCookie = (url: URL) => cookie(url, SESSION_COOKIE, '', 0)

/** The active user the request's session cookie names, or null (none, forged, expired, deleted). */
export async function sessionUser(deps: Deps, req: { headers: Pick<Headers, 'get'> }): Promise<UserRow | null> {
  const token = readCookies(req).get(SESSION_COOKIE)
  if (!token) return null
  let sub: unknown
  try {
    const claims = await verify(token, await sessionKey(deps), { alg: 'HS256', exp: false, iat: false, nbf: false })
    if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds(deps)) return null
    sub = claims.sub
  } catch {
    return null
  }
  if (typeof sub !== 'string') return null
  return activeUser(deps, sub)
}

/** A fresh CSRF token: 32 random bytes as hex. */
export const newCsrfToken = () => toHex(crypto.getRandomValues(new Uint8Array(32)))

/**
 * Why a post's CSRF token is refused, in flask-wtf's words (CKAN 2.10's CSRFProtect), or null
 * when it carries the CSRF cookie's token (compared in constant time) and, when the browser says
 * where the post came from (Origin), comes from this site.
 */
export function csrfProblem(req: Request, token: unknown, siteUrl: string): string | null {
  if (typeof token !== 'string' || !token) return 'The CSRF token is missing.'
  const expected = readCookies(req).get(CSRF_COOKIE)
  if (!expected) return 'The CSRF session token is missing.'
  let diff = token.length ^ expected.length
  for (let i = 0; i < expected.length; i++) diff |= (token.charCodeAt(i) || 0) ^ expected.charCodeAt(i)
  if (diff !== 0) return 'The CSRF tokens do not match.'
  const origin = req.headers.get('origin')
  if (!origin) return null
  // behind a proxy the request's own URL may be http://internal while the site is https://public
  const site = /^https?:\/\//.test(siteUrl) ? new URL(siteUrl).origin : ''
  return origin === new URL(req.url).origin || origin === site ? null : 'The referrer does not match the host.'
}

/** Whether a form post carries this site's CSRF token (csrfProblem finds nothing wrong). */
export const csrfOk = (req: Request, field: unknown, siteUrl: string): boolean => csrfProblem(req, field, siteUrl) === null

/** The client address as the proxy in front says it, else "local". */
export function clientAddress(req: Request): string {
  return req.headers.get('cf-connecting-ip') ?? req.headers.get('x-forwarded-for')?.split(',')[0]?.trim() ?? 'local'
}

export { clearLoginFailures, loginBlockedFor, recordLoginFailure } from '../model/login-failure'
