// Who holds which capacity in which organization or group, with admin roles cascading down the
// hierarchy: the rows auth/ decides from (auth/permissions.ts).
import { and, eq } from 'drizzle-orm'
import { groups, members } from '../db/schema'
import type { ActionContext } from '../context'

export type Permission =
  | 'read'
  | 'manage_group'
  | 'create_dataset'
  | 'update_dataset'
  | 'delete_dataset'
  | 'admin'

const ROLE_PERMISSIONS: Record<string, Permission[]> = {
  member: ['read', 'manage_group'],
  editor: ['read', 'manage_group', 'create_dataset', 'update_dataset', 'delete_dataset'],
  admin: ['read', 'manage_group', 'create_dataset', 'update_dataset', 'delete_dataset', 'admin'],
}

const RANK: Record<string, number> = { member: 1, editor: 2, admin: 3 }

export const CAPACITIES = ['admin', 'editor', 'member'] as const

export function roleHas(capacity: string | undefined, perm: Permission): boolean {
  return !!capacity && (ROLE_PERMISSIONS[capacity]?.includes(perm) ?? false)
}

/**
 * The caller's capacity in every active group/organization, including roles inherited from
 * parent organizations (`roles_that_cascade_to_sub_groups`). Cached per process by user id.
 */
export async function userCapacities(ctx: ActionContext, userId: string): Promise<Map<string, string>> {
  const cached = ctx.caches.capacities.get(userId)
  if (cached) return cached
  const direct = await ctx.db
    .select({ group_id: members.group_id, capacity: members.capacity })
    .from(members)
    .innerJoin(groups, eq(groups.id, members.group_id))
    .where(
      and(
        eq(members.table_id, userId),
        eq(members.table_name, 'user'),
        eq(members.state, 'active'),
        eq(groups.state, 'active'),
      ),
    )
  const result = new Map<string, string>()
  for (const r of direct) {
    if ((RANK[r.capacity] ?? 0) > (RANK[result.get(r.group_id) ?? ''] ?? 0)) result.set(r.group_id, r.capacity)
  }
  const cascading = new Set(ctx.config.list('service.auth.roles_that_cascade_to_sub_groups'))
  if ([...result.values()].some((c) => cascading.has(c))) {
    const edges = await ctx.db
      .select({ parent: members.group_id, child: members.table_id })
      .from(members)
      .where(and(eq(members.table_name, 'group'), eq(members.state, 'active')))
    const children = new Map<string, string[]>()
    for (const e of edges) children.set(e.parent, [...(children.get(e.parent) ?? []), e.child])
    const queue = [...result.entries()].filter(([, c]) => cascading.has(c))
    while (queue.length) {
      const [parent, cap] = queue.shift()!
      for (const child of children.get(parent) ?? []) {
        if ((RANK[cap] ?? 0) > (RANK[result.get(child) ?? ''] ?? 0)) {
          result.set(child, cap)
          queue.push([child, cap])
        }
      }
    }
  }
  ctx.caches.capacities.set(userId, result)
  return result
}

