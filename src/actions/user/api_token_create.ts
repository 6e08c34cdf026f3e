// api_token_create: a new API token (a signed JWT) for a user; the token itself is shown only here.
import { isoToMs, msToIso } from '../../lib/time'
import { z } from 'zod'
import { defineAction } from '../action'
import { apiTokens, changeLog } from '../../db/schema'
import { ValidationError } from '../../errors'
import { loadTokenOwner, requireCanCreateToken } from '../../auth/api-token'
import {
  encodeToken,
  randomUrlSafe,
  type TokenClaims,
} from '../../model/api-token'
import { changeRow } from '../../model/changes'
import { canonicalScopes, scopeList } from '../../auth/scopes'
import { pyStr } from '../../lib/py-repr'
import {
  fail,
  field,
  FieldFail,
  isMissing,
  MISSING,
  positiveInt,
  reqString,
  toInt,
} from '../../validation/fields'

const UNITS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400 }

/** ckanext expire_api_token's unit: seconds per unit (1, 60, 3600, 86400...), or its name. */
const unitField = field((v) => {
  if (isMissing(v)) return undefined
  const word = typeof v === 'string' ? UNITS[v.trim().toLowerCase().replace(/s$/, '')] : undefined
  if (word) return word
  const n = toInt(v)
  if (n instanceof FieldFail || n < 1)
    return fail('Must be a positive number of seconds or one of seconds, minutes, hours, days')
  return n
})

/** Latest expiry we can write as a timestamp. */
const MAX_EXPIRY_MS = Date.UTC(9999, 11, 31)

export const apiTokenCreate = defineAction({
  name: 'api_token_create',
  readOnly: false,
  // ckan: the parameters and the user are checked before the caller (see auth/api-token.ts)
  allowAnonymous: true,
  help: `Create an API token for a user. It authenticates like an API key, in the same headers.

The token is returned only once: only its id (the JWT's jti) is stored. Users create tokens
for themselves; sysadmins for anyone.

:param user: the id or name of the user who will own the token
:type user: string
:param name: a name that tells the token apart
:type name: string
:param expires_in: lifetime of the token, in units (optional, default: it never expires)
:type expires_in: int
:param unit: seconds per unit, 1, 60, 3600 or 86400, or seconds, minutes, hours or days
    (optional, default: seconds)
:type unit: int or string
:param scopes: (beyond CKAN) what the token may do, below its owner's rights (optional,
    default: everything its owner may do): read; write (every write but the account's and its
    tokens'); write:organization:<name or id> (writes on that organization, its datasets, their
    resources, views and DataStore tables); datastore:write:<resource id> (DataStore writes and
    loads of that table); admin (everything, sysadmin powers included). Only admin keeps a
    sysadmin's powers. A token with scopes may only make tokens whose scopes are within its own.
:type scopes: list of strings, or a string of them separated by commas or spaces
:returns: {"token": <the encoded token>}
:rtype: dictionary`,
  auth: requireCanCreateToken,
  params: z.object({
    // ckan: an empty user is not "missing" but unknown (Not found)
    user: field((v) => (v === undefined || v === null ? fail(MISSING) : pyStr(v))),
    name: reqString,
    expires_in: positiveInt(),
    unit: unitField,
    scopes: field((v) => {
      try {
        return scopeList(v)
      } catch {
        return fail('Must be a list of scopes')
      }
    }),
  }),
  async run(ctx, p) {
    const owner = await loadTokenOwner(ctx, p.user)
    if (p.unit !== undefined && p.expires_in === undefined)
      throw new ValidationError({ expires_in: [MISSING] })
    const createdAt = ctx.now()
    const createdMs = isoToMs(createdAt)
    let expiresMs: number | undefined
    if (p.expires_in !== undefined) {
      expiresMs = createdMs + p.expires_in * (p.unit ?? 1) * 1000
      if (!Number.isSafeInteger(expiresMs) || expiresMs > MAX_EXPIRY_MS)
        throw new ValidationError({ expires_in: ['The token would expire after the year 9999'] })
    }
    // ckan: the id is 32 random bytes, URL-safe base64
    const jti = randomUrlSafe(32)
    const claims: TokenClaims = { jti, iat: Math.floor(createdMs / 1000) }
    if (expiresMs !== undefined) claims.exp = Math.floor(expiresMs / 1000)
    const scopes = p.scopes ? await canonicalScopes(ctx, p.scopes) : undefined
    const token = await encodeToken(ctx, claims)
    await ctx.writer.write([
      ctx.db.insert(apiTokens).values({
        id: jti,
        name: p.name,
        user_id: owner.id,
        created_at: createdAt,
        expires_at: expiresMs === undefined ? null : msToIso(claims.exp! * 1000),
        plugin_extras: scopes ? JSON.stringify({ scopes }) : null,
      }),
      // Other processes may have cached this key as unknown (a replica that lagged).
      ctx.db.insert(changeLog).values(changeRow('api_token', jti)),
    ])
    return { token }
  },
})
