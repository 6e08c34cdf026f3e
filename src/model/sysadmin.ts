// Out-of-band sysadmin management (the admin CLI): create or promote a user, hand out a key.
import { eq } from 'drizzle-orm'
import { changeLog, users } from '../db/schema'
import type { Deps, UserRow } from '../context'
import { hashPassword } from '../lib/password'
import { changeRow } from './changes'
import { checkName, FieldFail } from '../validation/fields'

/**
 * Makes `name` a sysadmin, creating the user if needed (with `email`/`password` when given),
 * and makes sure it has an API key. Returns the user row.
 */
export async function addSysadmin(
  deps: Deps,
  name: string,
  opts: { email?: string; password?: string } = {},
): Promise<UserRow> {
  const checked = checkName(name)
  if (checked instanceof FieldFail) throw new Error(`invalid user name "${name}": ${checked.msgs.join(', ')}`)
  const [existing] = await deps.db.select().from(users).where(eq(users.name, name)).limit(1)
  if (existing) {
    await deps.db.batch([
      deps.db
        .update(users)
        .set({ sysadmin: true, state: 'active', apikey: existing.apikey ?? deps.newId() })
        .where(eq(users.id, existing.id)),
      deps.db.insert(changeLog).values(changeRow('user', existing.id)),
    ])
  } else {
    const id = deps.newId()
    const iterations = deps.config.int('service.auth.password_hash_iterations')
    const password = opts.password ?? crypto.randomUUID()
    await deps.db.batch([
      deps.db.insert(users).values({
        id,
        name,
        email: opts.email ?? null,
        password_hash: await hashPassword(password, iterations),
        apikey: deps.newId(),
        sysadmin: true,
        state: 'active',
        created: deps.now(),
      }),
      deps.db.insert(changeLog).values(changeRow('user', id, 'upsert', 'created')),
    ])
  }
  const [row] = await deps.db.select().from(users).where(eq(users.name, name)).limit(1)
  return row!
}

export async function removeSysadmin(deps: Deps, name: string): Promise<boolean> {
  const [existing] = await deps.db.select().from(users).where(eq(users.name, name)).limit(1)
  if (!existing) return false
  await deps.db.batch([
    deps.db.update(users).set({ sysadmin: false }).where(eq(users.id, existing.id)),
    deps.db.insert(changeLog).values(changeRow('user', existing.id)),
  ])
  return true
}

export async function listSysadmins(deps: Deps): Promise<UserRow[]> {
  return deps.db.select().from(users).where(eq(users.sysadmin, true))
}
