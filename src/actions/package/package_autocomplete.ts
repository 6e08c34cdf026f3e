// package_autocomplete: datasets whose name or title contains the typed text, name matches first.
import { z } from 'zod'
import { and, asc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm'
import { defineAction } from '../action'
import { packages } from '../../db/schema'
import { groupsWithPermission } from '../../auth/permissions'
import { collaborationIds } from '../../auth/collaborator'
import { autocompleteQuery } from '../../model/autocomplete'
import { containsCi } from '../../model/text-match'
import { naturalNumber } from '../../validation/fields'
import type { ActionContext } from '../../context'

/**
 * ckan permission labels: public datasets, plus private ones of orgs the caller may read, the
 * caller's own unowned ones and those the caller collaborates on.
 */
async function visibility(ctx: ActionContext): Promise<SQL | undefined> {
  if (!ctx.user) return eq(packages.private, false)
  if (ctx.user.sysadmin) return undefined
  const orgs = await groupsWithPermission(ctx, 'read')
  const collaborations = await collaborationIds(ctx)
  return or(
    eq(packages.private, false),
    orgs.length ? inArray(packages.owner_org, orgs) : undefined,
    and(isNull(packages.owner_org), eq(packages.creator_user_id, ctx.user.id)),
    collaborations.length ? inArray(packages.id, collaborations) : undefined,
  )
}

export const packageAutocomplete = defineAction({
  name: 'package_autocomplete',
  readOnly: true,
  help: `Return the datasets whose name or title contains the given text, for completing input.

Datasets whose name matches come first. Private datasets are included for users who may
read them.

:param q: the text typed so far
:type q: string
:param limit: the most datasets to return (optional, default: 10)
:type limit: int
:rtype: list of dictionaries with the keys "name", "title", "match_field" and
    "match_displayed"`,
  auth: 'anyone', // ckan: as package_list
  params: z.object({ q: autocompleteQuery, limit: naturalNumber(10) }),
  async run(ctx, p) {
    const q = p.q.toLowerCase()
    if (!q.trim()) return [] // ckan: a blank query matches nothing in the index
    const limit = Math.min(p.limit!, ctx.config.int('service.search.rows_max'))
    const nameMatch = sql`instr(${packages.name}, ${q}) > 0`
    const rows = await ctx.db
      .select({ name: packages.name, title: packages.title })
      .from(packages)
      .where(
        and(
          eq(packages.state, 'active'),
          await visibility(ctx),
          or(nameMatch, containsCi(packages.title, p.q)),
        ),
      )
      .orderBy(sql`case when ${nameMatch} then 0 else 1 end`, asc(packages.name))
      .limit(limit)
    return rows.map((r) => {
      const title = r.title === null ? null : r.title.trim()
      const byName = r.name.includes(q)
      return {
        name: r.name,
        title,
        match_field: byName ? 'name' : 'title',
        match_displayed: byName ? r.name : `${title ?? 'None'} (${r.name})`,
      }
    })
  },
})
