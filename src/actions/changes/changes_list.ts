// changes_list: everything that changed after a cursor, deletions and privacy changes included,
// read from the change log (the one every process follows), as the caller may see it.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { field, fail, isMissing, toInt, FieldFail } from '../../validation/fields'
import { canReadPackage } from '../../auth/package'
import { asText } from '../../model/package-validate'

export const CHANGE_TYPES = ['dataset', 'resource', 'organization', 'group', 'user', 'datastore'] as const
type ChangeType = (typeof CHANGE_TYPES)[number]
const ENTITY: Record<ChangeType, string> = {
  dataset: 'package',
  resource: 'resource',
  datastore: 'datastore',
  organization: 'group',
  group: 'group',
  user: 'user',
}
const MAX_LIMIT = 1000

/** The opaque cursor of a change-log position. */
export const cursorOf = (seq: number) => btoa(`seq:${seq}`).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')

function seqOf(cursor: string): number | null {
  try {
    const m = /^seq:(\d{1,15})$/.exec(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')))
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

const limitField = field((v) => {
  if (isMissing(v)) return 100
  const n = toInt(v)
  if (n instanceof FieldFail) return n
  return n < 1 ? fail('Must be a postive integer') : Math.min(n, MAX_LIMIT)
})

const typesField = field((v) => {
  if (isMissing(v)) return [...CHANGE_TYPES]
  if (typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) return fail('Not a list of strings')
  const list = typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : (v as string[])
  const bad = list.filter((t) => !(CHANGE_TYPES as readonly string[]).includes(t))
  return bad.length ? fail(`Unknown type: ${bad.join(', ')} (one of ${CHANGE_TYPES.join(', ')})`) : (list as ChangeType[])
})

interface Row {
  seq: number
  entity_type: string
  entity_id: string
  op: string
  detail: string | null
  at: string
  prev_seq: number | null
  prev_detail: string | null
}

const parseDetail = (d: string | null) => {
  const m = d ? /^(\w+):(private|public)$/.exec(d) : null
  return m ? { state: m[1]!, vis: m[2] as 'private' | 'public' } : null
}

export const changesList = defineAction({
  name: 'changes_list',
  readOnly: true,
  help: `Return what changed in the catalogue after a point, oldest first, deletions included.

Follow it with the \`next\` cursor of each answer (store it; call again later with it). A dataset
that became private is reported as \`made_private\` to callers who could see it before (they should
drop it); changes to objects the caller may not read are left out.

:param since: the \`next\` cursor of an earlier answer (optional; default: the oldest change the feed
  keeps, service.changes.retention_days back)
:type since: string
:param limit: how many changes to scan (optional, default 100, at most 1000); fewer may be returned
  when some are not visible to the caller
:type limit: int
:param types: only these kinds of object: dataset, resource, organization, group, user, datastore
  (optional, default all; a list or comma-separated)
:type types: list of strings

:returns: \`changes\`: a list of \`{seq, type, id, name, change, timestamp}\` where change is one of
  created, updated, deleted, purged, made_private, made_public (a datastore change: a table created
  or deleted); \`next\`: the cursor to continue from
:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({
    since: z.unknown().optional(),
    limit: limitField,
    types: typesField,
  }),
  async run(ctx, p) {
    const days = ctx.config.int('service.changes.retention_days') || 90
    const cutoff = new Date(Date.parse(ctx.now()) - days * 86_400_000).toISOString().slice(0, 23)
    const [first] = await ctx.read('SELECT min(seq) AS seq FROM change_log WHERE at >= ?', [cutoff])
    const oldestKept = first?.seq === null || first?.seq === undefined ? null : Number(first.seq)
    let after = oldestKept === null ? Number.MAX_SAFE_INTEGER : oldestKept - 1
    if (p.since !== undefined && p.since !== null && p.since !== '') {
      const seq = seqOf(asText(p.since))
      if (seq === null) throw ValidationError.field('since', 'Not a cursor of this feed')
      if (oldestKept !== null && seq < oldestKept - 1)
        throw ValidationError.field('since', `This cursor is older than the ${days} days the change feed keeps: read the catalogue again (package_search) and follow the feed from a new cursor`)
      after = seq
    }
    if (oldestKept === null && (p.since === undefined || p.since === '')) {
      const [head] = await ctx.read('SELECT max(seq) AS seq FROM change_log')
      after = Number(head?.seq ?? 0)
    }
    const entities = [...new Set(p.types.map((t) => ENTITY[t]))]
    const marks = entities.map(() => '?').join(',')
    const rows = (await ctx.read(
      `SELECT c.seq, c.entity_type, c.entity_id, c.op, c.detail, c.at,
         (SELECT p.seq FROM change_log p WHERE p.entity_type = c.entity_type AND p.entity_id = c.entity_id AND p.seq < c.seq ORDER BY p.seq DESC LIMIT 1) AS prev_seq,
         (SELECT p.detail FROM change_log p WHERE p.entity_type = c.entity_type AND p.entity_id = c.entity_id AND p.seq < c.seq AND p.detail IS NOT NULL ORDER BY p.seq DESC LIMIT 1) AS prev_detail
       FROM change_log c WHERE c.seq > ? AND c.entity_type IN (${marks}) ORDER BY c.seq LIMIT ?`,
      [after, ...entities, p.limit],
    )) as unknown as Row[]
    const last = rows.length ? Number(rows[rows.length - 1]!.seq) : after
    const changes = await visibleChanges(ctx, rows, new Set(p.types))
    return { changes, next: cursorOf(last) }
  },
})

type Ctx = Parameters<typeof changesList.run>[0]

async function visibleChanges(ctx: Ctx, rows: Row[], types: Set<ChangeType>) {
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
  const readable = new Map<string, boolean>()
  const privateReadable = new Map<string, boolean>()
  type AuthRow = Parameters<typeof canReadPackage>[1]
  const canRead = async (id: string) => {
    let ok = readable.get(id)
    if (ok === undefined) {
      const row = pkgs.get(id) as AuthRow | undefined
      ok = !!row && (await canReadPackage(ctx, row))
      readable.set(id, ok)
    }
    return ok
  }
  /** Whether the caller may read the dataset even while it is private (member, collaborator…). */
  const canReadPrivate = async (id: string) => {
    let ok = privateReadable.get(id)
    if (ok === undefined) {
      const row = pkgs.get(id) as AuthRow | undefined
      ok = !!row && (await canReadPackage(ctx, { ...row, private: true, state: 'active' }))
      privateReadable.set(id, ok)
    }
    return ok
  }
  const sysadmin = !!ctx.user?.sysadmin
  const publicUsers = ctx.config.bool('service.auth.public_user_details')
  const out: { seq: number; type: ChangeType; id: string; name: string | null; change: string; timestamp: string }[] = []
  for (const r of rows) {
    const id = String(r.entity_id)
    const seq = Number(r.seq)
    const timestamp = String(r.at).length === 23 ? `${r.at}000` : String(r.at)
    const first = r.prev_seq === null || r.prev_seq === undefined
    if (r.entity_type === 'package') {
      const own = parseDetail(r.detail)
      const before = parseDetail(r.prev_detail)
      const row = pkgs.get(id) as { name: unknown; private: boolean } | undefined
      let change = 'updated'
      if (r.op === 'purge') change = 'purged'
      else if (first) change = 'created'
      else if (own?.state === 'deleted' && before?.state !== 'deleted') change = 'deleted'
      else if (own && before && own.vis !== before.vis) change = own.vis === 'private' ? 'made_private' : 'made_public'
      // visible then: what the log says, else the row as it is now
      const wasPublic = (own ?? before)?.vis === 'public' || (!own && !before && !!row && !row.private)
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
      const change = r.op === 'delete' ? 'deleted' : r.entity_type === 'datastore' || first ? 'created' : 'updated'
      out.push({ seq, type, id, name: res?.name === null || res?.name === undefined ? null : String(res.name), change, timestamp })
    } else if (r.entity_type === 'group') {
      const row = groups.get(id)
      const kind: ChangeType = (r.detail ?? r.prev_detail) === 'organization' || (!r.detail && !r.prev_detail && !!row && !!Number(row.is_organization)) ? 'organization' : 'group'
      if (!types.has(kind)) continue
      const change = r.op === 'purge' ? 'purged' : r.op === 'delete' ? 'deleted' : first ? 'created' : 'updated'
      out.push({ seq, type: kind, id, name: row ? String(row.name) : null, change, timestamp })
    } else if (r.entity_type === 'user') {
      if (!(sysadmin || publicUsers || ctx.user?.id === id)) continue
      const change = r.op === 'delete' ? 'deleted' : first ? 'created' : 'updated'
      const row = users.get(id)
      out.push({ seq, type: 'user', id, name: row ? String(row.name) : null, change, timestamp })
    }
  }
  return out
}
