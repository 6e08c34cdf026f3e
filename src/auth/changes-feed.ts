// The change feed as a caller sees it (changes_list and the webhooks' deliveries): the change
// log's rows after a position, each told as {seq, type, id, name, change, timestamp}, those about
// objects the caller may not read left out (a dataset's as it was when the change was written).
import type { ActionContext } from '../context'
import { canReadPackage } from './package'

export const CHANGE_TYPES = ['dataset', 'resource', 'organization', 'group', 'user', 'datastore'] as const
export type ChangeType = (typeof CHANGE_TYPES)[number]
const ENTITY: Record<ChangeType, string> = {
  dataset: 'package',
  resource: 'resource',
  datastore: 'datastore',
  organization: 'group',
  group: 'group',
  user: 'user',
}

interface Row {
  seq: number
  entity_type: string
  entity_id: string
  op: string
  detail: string | null
  at: string
}

/** "<change>:<qualifier>" of a row's detail; rows written before details existed have none. */
const parseDetail = (d: string | null) => {
  const m = d ? /^(created|updated|deleted|purged|made_private|made_public):(\w+)$/.exec(d) : null
  return m ? { change: m[1]!, qualifier: m[2]! } : null
}

/** What a row without a detail tells: its op. */
const byOp = (op: string) => (op === 'purge' ? 'purged' : op === 'delete' ? 'deleted' : 'updated')


/** One change as the feed tells it. */
export interface Change {
  seq: number
  type: ChangeType
  id: string
  name: string | null
  change: string
  timestamp: string
}

/**
 * The changes after log position `after` (at most `limit` rows of the log read; fewer returned
 * when some are not visible to the caller) of these types, and the position read up to.
 */
export async function readChanges(
  ctx: ActionContext,
  after: number,
  limit: number,
  types: readonly ChangeType[],
): Promise<{ changes: Change[]; last: number }> {
  const entities = [...new Set(types.map((t) => ENTITY[t]))]
  const marks = entities.map(() => '?').join(',')
  // each row says what happened (its detail, written by the write that knew): no lookups of
  // earlier rows, one range read of the log ("+entity_type": walk the seq range, not the
  // entity index, which the planner would otherwise pick for the IN list and then sort)
  const rows = (await ctx.read(
    `SELECT seq, entity_type, entity_id, op, detail, at FROM change_log
     WHERE seq > ? AND +entity_type IN (${marks}) ORDER BY seq LIMIT ?`,
    [after, ...entities, limit],
  )) as unknown as Row[]
  const last = rows.length ? Number(rows[rows.length - 1]!.seq) : after
  return { changes: await visibleChanges(ctx, rows, new Set(types)), last }
}

async function visibleChanges(ctx: ActionContext, rows: Row[], types: Set<ChangeType>) {
  const ids = (t: string) => [...new Set(rows.filter((r) => r.entity_type === t).map((r) => String(r.entity_id)))]
  const load = async (sql: (marks: string) => string, list: string[]) =>
    list.length ? await ctx.read(sql(list.map(() => '?').join(',')), list) : []
  const resourceRows = await load((m) => `SELECT id, package_id, name FROM resource WHERE id IN (${m})`, [...ids('resource'), ...ids('datastore')])
  const resourcePkg = new Map(resourceRows.map((r) => [String(r.id), r]))
  const pkgIds = [...new Set([...ids('package'), ...resourceRows.map((r) => String(r.package_id))])]
  const pkgRows = await load((m) => `SELECT id, name, owner_org, private, state, creator_user_id FROM package WHERE id IN (${m})`, pkgIds)
  const pkgs = new Map(pkgRows.map((r) => [String(r.id), { ...r, private: !!Number(r.private) }]))
  const groupRows = await load((m) => `SELECT id, name, is_organization FROM "group" WHERE id IN (${m})`, ids('group'))
  const groups = new Map(groupRows.map((r) => [String(r.id), r]))
  const userRows = await load((m) => `SELECT id, name FROM "user" WHERE id IN (${m})`, ids('user'))
  const users = new Map(userRows.map((r) => [String(r.id), r]))
  type AuthRow = Parameters<typeof canReadPackage>[1]
  /** canReadPackage of a dataset of the page (as it is, or as if private), once per dataset. */
  const readCheck = (asPrivate: boolean) => {
    const known = new Map<string, boolean>()
    return async (id: string) => {
      let ok = known.get(id)
      if (ok === undefined) {
        const row = pkgs.get(id) as AuthRow | undefined
        ok = !!row && (await canReadPackage(ctx, asPrivate ? { ...row, private: true, state: 'active' } : row))
        known.set(id, ok)
      }
      return ok
    }
  }
  const canRead = readCheck(false)
  /** Whether the caller may read the dataset even while it is private (member, collaborator…). */
  const canReadPrivate = readCheck(true)
  const sysadmin = !!ctx.user?.sysadmin
  const publicUsers = ctx.config.bool('service.auth.public_user_details')
  const out: Change[] = []
  for (const r of rows) {
    const id = String(r.entity_id)
    const seq = Number(r.seq)
    const timestamp = String(r.at).length === 23 ? `${r.at}000` : String(r.at)
    const detail = parseDetail(r.detail)
    if (r.entity_type === 'package') {
      const row = pkgs.get(id) as { name: unknown; private: boolean } | undefined
      const change = detail?.change ?? byOp(r.op)
      const wasPublic = detail ? detail.qualifier === 'public' : !!row && !row.private
      // what the caller could see then: a public dataset's changes, a private one's only with a
      // right to its private datasets (so reading the feed later shows what following it live did)
      const show = sysadmin || change === 'made_private' || wasPublic || (await canReadPrivate(id))
      if (!show || !types.has('dataset')) continue
      const name = row ? String(row.name) : null
      out.push({ seq, type: 'dataset', id, name, change, timestamp })
    } else if (r.entity_type === 'resource' || r.entity_type === 'datastore') {
      const res = resourcePkg.get(id)
      const pkgId = res ? String(res.package_id) : null
      if (!pkgId || !(sysadmin || (await canRead(pkgId)))) continue
      const type: ChangeType = r.entity_type === 'resource' ? 'resource' : 'datastore'
      const change = r.detail && /^(created|updated|deleted)$/.test(r.detail) ? r.detail : byOp(r.op)
      out.push({ seq, type, id, name: res?.name === null || res?.name === undefined ? null : String(res.name), change, timestamp })
    } else if (r.entity_type === 'group') {
      const row = groups.get(id)
      const kind: ChangeType = (detail ? detail.qualifier === 'organization' : !!row && !!Number(row.is_organization)) ? 'organization' : 'group'
      if (!types.has(kind)) continue
      const change = detail?.change ?? byOp(r.op)
      out.push({ seq, type: kind, id, name: row ? String(row.name) : null, change, timestamp })
    } else if (r.entity_type === 'user') {
      if (!(sysadmin || publicUsers || ctx.user?.id === id)) continue
      const change = r.detail && /^(created|deleted)$/.test(r.detail) ? r.detail : byOp(r.op)
      const row = users.get(id)
      out.push({ seq, type: 'user', id, name: row ? String(row.name) : null, change, timestamp })
    }
  }
  return out
}
