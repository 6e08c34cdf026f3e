// The token model's edges: last_access writes that fail are ignored, and a malformed token is just not ours.
import { describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/load'
import type { Deps } from '../../src/context'
import { claimsExpired, peekClaims, touchToken, verifiedClaims } from '../../src/model/api-token'

/** Just enough Deps for the token helpers, with a database whose update always fails. */
function failingDeps(updates: { n: number }): Deps {
  const failing = {
    set: () => ({
      where: () => {
        updates.n++
        return Promise.reject(new Error('database is locked'))
      },
    }),
  }
  return {
    caches: {},
    now: () => '2030-01-01T00:00:00.000000',
    config: loadConfig({ 'api_token.jwt.encode.secret': 'k' }),
    db: { update: () => failing },
  } as unknown as Deps
}

describe('touchToken', () => {
  it('never fails the request when the write fails, and does not retry within the minute', async () => {
    const updates = { n: 0 }
    const deps = failingDeps(updates)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    await expect(touchToken(deps, 'jti-1')).resolves.toBeUndefined()
    await expect(touchToken(deps, 'jti-1')).resolves.toBeUndefined()
    expect(updates.n).toBe(1)
    expect(warn).toHaveBeenCalledOnce()
    warn.mockRestore()
  })
})

describe('verifiedClaims and peekClaims', () => {
  it('answer null/undefined for things that are not tokens, without throwing', async () => {
    const deps = failingDeps({ n: 0 })
    const notTokens = ['', 'abc', 'a.b.c', '!!.??.**', 'e30.e30.', 'eyJhbGciOiJIUzI1NiJ9.bm90.c2ln']
    for (const bad of notTokens)
      expect(await verifiedClaims(deps, bad), bad).toBeNull()
    expect(peekClaims('a-uuid-like-api-key')).toBeUndefined()
    expect(peekClaims('!!.??.**')).toBeUndefined()
  })

  it('counts a token as expired from the second its exp names', () => {
    const now = '2030-01-01T00:00:00.000000'
    const second = Date.UTC(2030, 0, 1) / 1000
    expect(claimsExpired({ exp: second }, now)).toBe(true)
    expect(claimsExpired({ exp: second + 1 }, now)).toBe(false)
    expect(claimsExpired({}, now)).toBe(false)
  })
})
