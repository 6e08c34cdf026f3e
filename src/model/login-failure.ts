// Failed sign-ins, registrations and reset requests counted per key (user name, client address)
// in 15-minute windows, in the catalogue database so every process and isolate shares the counts.
import { inArray, lt, sql } from 'drizzle-orm'
import { loginFailures } from '../db/schema'
import type { Deps } from '../context'

const WINDOW_MS = 15 * 60_000

/**
 * Minutes until `keys` may try again (0: now): a key with service.auth.login_attempts failures in
 * its 15-minute window waits for the window's end. Counted in the catalogue database
 * (`login_failure`), so every process and isolate shares the counts.
 */
export async function loginBlockedFor(deps: Deps, keys: string[]): Promise<number> {
  if (!keys.length) return 0
  const limit = deps.config.int('service.auth.login_attempts') || 10
  const now = Date.now()
  const rows = await deps.db.select().from(loginFailures).where(inArray(loginFailures.key, keys))
  let wait = 0
  for (const f of rows) {
    if (now - f.since < WINDOW_MS && f.n >= limit) wait = Math.max(wait, Math.ceil((f.since + WINDOW_MS - now) / 60_000))
  }
  return wait
}

/** One more failure for each key (a window that ended starts again at 1); ended windows go. */
export async function recordLoginFailure(deps: Deps, keys: string[]) {
  const now = Date.now()
  const ended = now - WINDOW_MS
  await deps.db.batch([
    deps.db.delete(loginFailures).where(lt(loginFailures.since, ended)),
    ...keys.map((key) =>
      deps.db
        .insert(loginFailures)
        .values({ key, n: 1, since: now })
        .onConflictDoUpdate({
          target: loginFailures.key,
          // both read the row as it was: a window that ended restarts at this failure
          set: {
            n: sql`CASE WHEN ${loginFailures.since} < ${ended} THEN 1 ELSE ${loginFailures.n} + 1 END`,
            since: sql`CASE WHEN ${loginFailures.since} < ${ended} THEN ${now} ELSE ${loginFailures.since} END`,
          },
        }),
    ),
  ] as never)
}

export async function clearLoginFailures(deps: Deps, keys: string[]) {
  if (keys.length) await deps.db.delete(loginFailures).where(inArray(loginFailures.key, keys))
}
