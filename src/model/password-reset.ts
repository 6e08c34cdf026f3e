// Password reset (ckan's /user/reset): a key mailed as a link, then a new password set by whoever
// holds it. An invited user (user_invite) gets the same kind of key; setting the password through
// it activates the pending account.
import { eq } from 'drizzle-orm'
import { passwordMinLength } from '../config/api-compat'
import type { ActionContext, UserRow } from '../context'
import { changeLog, users } from '../db/schema'
import { ValidationError } from '../errors'
import { hashPassword } from '../lib/password'
import { toHex } from '../lib/hex'
import { changeRow } from './changes'
import { forgetUsers } from './user'

/** ckan: 16 random bytes, hex. */
const newKey = () => toHex(crypto.getRandomValues(new Uint8Array(16)))

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

/** Gives the user a new reset key (replacing any earlier one) and returns it. */
export async function createResetKey(ctx: ActionContext, user: Pick<UserRow, 'id'>): Promise<string> {
  const key = newKey()
  await ctx.writer.write([
    ctx.db.update(users).set({ reset_key: key }).where(eq(users.id, user.id)),
    ctx.db.insert(changeLog).values(changeRow('user', user.id)),
  ])
  forgetUsers(ctx)
  return key
}

/** The active or pending user whose reset key `key` is, or null. */
export async function userForResetKey(ctx: ActionContext, userId: string, key: unknown): Promise<UserRow | null> {
  if (typeof key !== 'string' || !key) return null
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId)).limit(1)
  if (!user || !user.reset_key || (user.state !== 'active' && user.state !== 'pending')) return null
  return sameText(user.reset_key, key) ? user : null
}

/**
 * Sets the password of the key's holder, in one batch: the key is spent (cleared) and a pending
 * account becomes active. Validation Error for a password too short or two that differ.
 */
export async function performReset(ctx: ActionContext, user: UserRow, password: string, again: string): Promise<void> {
  const minLength = passwordMinLength(ctx.config)
  if (password.length < minLength) throw ValidationError.field('password', `Your password must be ${minLength} characters or longer`)
  if (password !== again) throw ValidationError.field('password', 'The passwords you entered do not match')
  const hash = await hashPassword(password, ctx.config.int('service.auth.password_hash_iterations'))
  await ctx.writer.write([
    ctx.db
      .update(users)
      .set({ password_hash: hash, reset_key: null, state: 'active' })
      .where(eq(users.id, user.id)),
    ctx.db.insert(changeLog).values(changeRow('user', user.id)),
  ])
  forgetUsers(ctx)
}
