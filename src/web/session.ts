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
export const readCookies = (req: Request): Map<string, string> =>
  new Map(Object.entries(parseCookies(req.headers.get('cookie') ?? '')))

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
export async function sessionUser(deps: Deps, req: Request): Promise<UserRow | null> {
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
 * Whether a form post carries the CSRF cookie's token (compared in constant time) and, when the
 * browser says where the form came from (Origin), comes from this site.
 */
export function csrfOk(req: Request, field: unknown, siteUrl: string): boolean {
  const expected = readCookies(req).get(CSRF_COOKIE)
  if (!expected || typeof field !== 'string' || field.length !== expected.length) return false
  let diff = 0
  for (let i = 0; i < field.length; i++) diff |= field.charCodeAt(i) ^ expected.charCodeAt(i)
  if (diff !== 0) return false
  const origin = req.headers.get('origin')
  if (!origin) return true
  // behind a proxy the request's own URL may be http://internal while the site is https://public
  const site = /^https?:\/\//.test(siteUrl) ? new URL(siteUrl).origin : ''
  return origin === new URL(req.url).origin || origin === site
}

/** The client address as the proxy in front says it, else "local". */
export function clientAddress(req: Request): string {
  return req.headers.get('cf-connecting-ip') ?? req.headers.get('x-forwarded-for')?.split(',')[0]?.trim() ?? 'local'
}

export { clearLoginFailures, loginBlockedFor, recordLoginFailure } from '../model/login-failure'
