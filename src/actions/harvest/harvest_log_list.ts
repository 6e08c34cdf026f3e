// harvest_log_list: what harvest runs logged, newest first (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireHarvestSysadmin } from '../../auth/harvest'
import type { InValue } from '@libsql/client'

/** ckanext-harvest: a number that does not read as one falls back to the default. */
const lenientInt = (def: number) =>
  z.unknown().optional().transform((v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN
    return Number.isSafeInteger(n) && n >= 0 ? Math.min(n, 1000) : def
  })

export const harvestLogList = defineAction({
  name: 'harvest_log_list',
  readOnly: true,
  help: `List what harvest runs logged, newest first. Sysadmins only.

:param limit: how many entries (optional, default: 100, at most 1000)
:type limit: int
:param per_page: the same as limit
:type per_page: int
:param offset: how many to skip (optional, default: 0)
:type offset: int
:param level: only entries of this level: debug, info, warning, error or critical (optional)
:type level: string
:rtype: list of dictionaries`,
  auth: (ctx) => requireHarvestSysadmin(ctx, 'read the harvest log'),
  params: z.object({
    limit: lenientInt(100),
    per_page: z.unknown().optional(),
    offset: lenientInt(0),
    level: z.string().optional(),
  }),
  async run(ctx, { limit, per_page, offset, level }) {
    const n = per_page === undefined || per_page === '' ? limit : lenientInt(100).parse(per_page)
    const args: InValue[] = []
    let where = ''
    if (level) {
      where = 'WHERE level = ?'
      args.push(level.toUpperCase())
    }
    const rows = await ctx.read(
      `SELECT content, level, created FROM harvest_log ${where} ORDER BY created DESC, id DESC LIMIT ? OFFSET ?`,
      [...args, n, offset],
    )
    return rows.map((r) => ({ content: String(r.content), level: String(r.level), created: String(r.created) }))
  },
})
