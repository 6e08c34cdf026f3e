// The site user (named after service.site_id): a sysadmin that internal work acts as.
import { eq } from 'drizzle-orm'
import { changeLog, users } from '../db/schema'
import type { Deps, UserRow } from '../context'
import { changeRow } from './changes'

export async function findSiteUser(deps: Deps): Promise<UserRow | undefined> {
  const name = deps.config.str('service.site_id') || 'ckan_site_user'
  const [row] = await deps.db.select().from(users).where(eq(users.name, name)).limit(1)
  return row
}

/** The site user, created on first use (name = site_id, sysadmin, random API key). */
export async function ensureSiteUser(deps: Deps): Promise<{ user: UserRow; created: boolean }> {
  const existing = await findSiteUser(deps)
  if (existing) return { user: existing, created: false }
  const id = deps.newId()
  const row = {
    id,
    name: deps.config.str('service.site_id') || 'ckan_site_user',
    password_hash: null,
    apikey: deps.newId(),
    sysadmin: true,
    state: 'active',
    created: deps.now(),
  }
  try {
    await deps.db.batch([
      deps.db.insert(users).values(row),
      deps.db.insert(changeLog).values(changeRow('user', id, 'upsert', 'created')),
    ])
  } catch (e) {
    // Another process created it first.
    const again = await findSiteUser(deps)
    if (again) return { user: again, created: false }
    throw e
  }
  return { user: (await findSiteUser(deps))!, created: true }
}
