// user_invite's new account: a pending user named after the e-mail address, with a reset key and no usable password.
import { toHex } from '../lib/hex'
import { inArray } from 'drizzle-orm'
import { users } from '../db/schema'
import type { ActionContext } from '../context'
import { hashPassword } from '../lib/password'
import { checkName, FieldFail } from '../validation/fields'
import { randomUrlSafe } from './api-token'

/** A random integer in [0, n). */
const randomBelow = (n: number) => crypto.getRandomValues(new Uint32Array(1))[0]! % n

/**
 * A free user name from the e-mail's local part: lower-cased, anything but letters, digits and _
 * made `-`, then `-<random number below 10000>` as CKAN does; a long random suffix when
 * every try is taken.
 */
export async function inviteeName(ctx: ActionContext, email: string): Promise<string> {
  const local = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9_]/g, '-').slice(0, 80)
  for (let round = 0; round < 5; round++) {
    const candidates = Array.from({ length: 20 }, () => `${local}-${randomBelow(10000)}`)
    const taken = new Set(
      (await ctx.db.select({ name: users.name }).from(users).where(inArray(users.name, candidates)))
        .map((r) => r.name),
    )
    const free = candidates.find((c) => !taken.has(c) && !(checkName(c) instanceof FieldFail))
    if (free) return free
  }
  return `${local}-${toHex(crypto.getRandomValues(new Uint8Array(8)))}`
}

/**
 * The row of an invited user: state pending, a random password nobody is told (the invitee sets
 * one through the reset link) and a reset key (ckan: 16 random bytes, hex).
 */
export async function pendingUserRow(ctx: ActionContext, email: string) {
  const password = randomUrlSafe(18)
  const iterations = ctx.config.int('service.auth.password_hash_iterations')
  return {
    id: ctx.newId(),
    name: await inviteeName(ctx, email),
    email,
    password_hash: await hashPassword(password, iterations),
    apikey: ctx.config.bool('service.auth.create_default_api_keys') ? ctx.newId() : null,
    sysadmin: false,
    state: 'pending',
    reset_key: toHex(crypto.getRandomValues(new Uint8Array(16))),
    created: ctx.now(),
  }
}
