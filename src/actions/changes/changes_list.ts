// changes_list: everything that changed after a cursor, deletions and privacy changes included,
// read from the change log (the one every process follows), as the caller may see it.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { field, fail, isMissing, toInt, FieldFail } from '../../validation/fields'
import { canReadPackage } from '../../auth/package'
import { asText } from '../../model/package-validate'
import { fromBase64Url, toBase64Url } from '../../lib/base64url'

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
export const cursorOf = (seq: number) => toBase64Url(`seq:${seq}`)

function seqOf(cursor: string): number | null {
  try {
    const m = /^seq:(\d{1,15})$/.exec(fromBase64Url(cursor))
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
}

/** "<change>:<qualifier>" of a row's detail; rows written before details existed have none. */
const parseDetail = (d: string | null) => {
  const m = d ? /^(created|updated|deleted|purged|made_private|made_public):(\w+)$/.exec(d) : null
  return m ? { change: m[1]!, qualifier: m[2]! } : null
}

/** What a row without a detail tells: its op. */
const byOp = (op: string) => (op === 'purge' ? 'purged' : op === 'delete' ? 'deleted' : 'updated')

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
    const { oldestKept, first } = await firstSeqSince(ctx, cutoff)
    let after = oldestKept === null ? Number.MAX_SAFE_INTEGER : oldestKept - 1
    if (p.since !== undefined && p.since !== null && p.since !== '') {
      const seq = seqOf(asText(p.since))
      if (seq === null) throw ValidationError.field('since', 'Not a cursor of this feed')
      // older than the retention, or rows after it already pruned (search/service.ts)
      if ((oldestKept !== null && seq < oldestKept - 1) || (first !== null && seq < first - 1))
        throw ValidationError.field('since', `This cursor is older than the ${days} days the change feed keeps: read the catalogue again (package_search) and follow the feed from a new cursor`)
      after = seq
    }
    if (oldestKept === null && (p.since === undefined || p.since === '')) {
      const [head] = await ctx.read('SELECT max(seq) AS seq FROM change_log')
      after = Number(head?.seq ?? 0)
    }
    const entities = [...new Set(p.types.map((t) => ENTITY[t]))]
    const marks = entities.map(() => '?').join(',')
    // each row says what happened (its detail, written by the write that knew): no lookups of
    // earlier rows, one range read of the log ("+entity_type": walk the seq range, not the
    // entity index, which the planner would otherwise pick for the IN list and then sort)
    const rows = (await ctx.read(
      `SELECT seq, entity_type, entity_id, op, detail, at FROM change_log
       WHERE seq > ? AND +entity_type IN (${marks}) ORDER BY seq LIMIT ?`,
      [after, ...entities, p.limit],
    )) as unknown as Row[]
    const last = rows.length ? Number(rows[rows.length - 1]!.seq) : after
    const changes = await visibleChanges(ctx, rows, new Set(p.types))
    return { changes, next: cursorOf(last) }
  },
})

type Ctx = Parameters<typeof changesList.run>[0]

/**
 * The first change at or after `cutoff` (or null), and the first row of the log (older ones were
 * pruned). The log is appended in time order, so this is a
 * binary search over seq (each step one rowid lookup) instead of a scan of `at`; the common case,
 * a log younger than the retention, is its first row.
 */
async function firstSeqSince(ctx: Ctx, cutoff: string): Promise<{ oldestKept: number | null; first: number | null }> {
  const at = async (sql: string, args: unknown[]) => {
    const [r] = await ctx.read(sql, args as never[])
    return r ? { seq: Number(r.seq), at: String(r.at) } : null
  }
  const first = await at('SELECT seq, at FROM change_log ORDER BY seq LIMIT 1', [])
  if (!first) return { oldestKept: null, first: null }
  const found = (oldestKept: number | null) => ({ oldestKept, first: first.seq })
  if (first.at >= cutoff) return found(first.seq)
  const last = await at('SELECT seq, at FROM change_log ORDER BY seq DESC LIMIT 1', [])
  if (!last || last.at < cutoff) return found(null)
  let lo = first.seq // at < cutoff
  let hi = last.seq // at >= cutoff
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2)
    const r = await at('SELECT seq, at FROM change_log WHERE seq >= ? ORDER BY seq LIMIT 1', [mid])
    if (!r || r.seq >= hi) {
      lo = mid
      continue
    }
    if (r.at >= cutoff) hi = r.seq
    else lo = r.seq
  }
  return found(hi)
}

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
  const out: { seq: number; type: ChangeType; id: string; name: string | null; change: string; timestamp: string }[] = []
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
