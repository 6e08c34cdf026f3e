// A dataset's version for optimistic writes: read it, decide, then write only if it still holds.
import { and, eq, max } from 'drizzle-orm'
import { changeLog } from '../db/schema'
import type { RawStatement } from '../db/executor'
import type { ActionContext } from '../context'

/*
 * Every write that changes a dataset's dict appends a ('package', id) row to the change log in its
 * own batch, so the newest such seq is a version of the dataset that moves with every committed
 * change, in whichever process or isolate it was made.
 */

/** The dataset's current version (0: never written through the log). Read from the primary. */
export async function packageVersion(ctx: ActionContext, packageId: string): Promise<number> {
  const [row] = await ctx.db
    .select({ seq: max(changeLog.seq) })
    .from(changeLog)
    .where(and(eq(changeLog.entity_type, 'package'), eq(changeLog.entity_id, packageId)))
  return row?.seq ?? 0
}

/**
 * A batch's first statement: fails (inserting nothing) unless the dataset is still at `version`,
 * so the whole batch rolls back when another write got in between.
 */
export function packageVersionGuard(packageId: string, version: number): RawStatement {
  return {
    // NOT NULL fails first: the message names change_log.entity_type (see isPackageChanged)
    sql:
      "INSERT INTO change_log (entity_type, entity_id, op) SELECT NULL, ?, 'guard' " +
      "WHERE coalesce((SELECT max(seq) FROM change_log WHERE entity_type = 'package' " +
      'AND entity_id = ?), 0) <> ?',
    args: [packageId, packageId, version],
  }
}

/** Whether a write failed because its packageVersionGuard found the dataset changed. */
export function isPackageChanged(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++)
    if (String((cur as Error).message ?? cur).includes('NOT NULL constraint failed: change_log.entity_type'))
      return true
  return false
}
