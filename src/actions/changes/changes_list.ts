// changes_list: everything that changed after a cursor, deletions and privacy changes included,
// read from the change log (the one every process follows), as the caller may see it.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { field, fail, isMissing, toInt, FieldFail } from '../../validation/fields'
import { CHANGE_TYPES, readChanges, type ChangeType } from '../../auth/changes-feed'
import { asText } from '../../model/package-validate'
import { fromBase64Url, toBase64Url } from '../../lib/base64url'

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
    const { changes, last } = await readChanges(ctx, after, p.limit, p.types)
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
