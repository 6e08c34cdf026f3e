// group_list: the names (or dicts) of active groups, filtered, sorted and paged.
import { z } from 'zod'
import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm'
import { defineAction } from '../action'
import { ckanBool, filterText, naturalNumber, optString, nameList } from '../../validation/fields'
import { ValidationError } from '../../errors'
import { groups, members, packages } from '../../db/schema'
import type { ActionContext } from '../../context'
import { likeContains } from '../../model/text-match'
import { SHOW_DEFAULTS, groupDict, kindOf, strictBool, type GroupRow } from '../../model/group'

const SORT_FIELDS = ['name', 'packages', 'package_count', 'title']

/** ckan: one `<field> [asc|desc]` criterion; package_count alone sorts descending. */
function parseSort(sort: string): { field: string; dir: 'asc' | 'desc' } {
  if (['packages', 'package_count'].includes(sort.trim()))
    return { field: 'package_count', dir: 'desc' }
  const parts = sort.split(',').map((s) => s.trim().split(/\s+/))
  for (const [f = '', d = 'asc'] of parts) {
    if (!SORT_FIELDS.includes(f)) throw ValidationError.message(`Cannot sort by field \`${f}\``)
    if (!['asc', 'desc'].includes(d.toLowerCase()))
      throw ValidationError.message(`Invalid sort direction \`${d.toLowerCase()}\``)
  }
  if (parts.length > 1)
    throw ValidationError.message('Too many sort criteria provided only 1 allowed')
  const [f = '', d = 'asc'] = parts[0]!
  return { field: f === 'packages' ? 'package_count' : f, dir: d.toLowerCase() as 'asc' | 'desc' }
}

/** Dataset counts per group for sorting: every active dataset it holds (or owns, for orgs). */
function countsQuery(ctx: ActionContext, isOrg: boolean) {
  if (isOrg)
    return ctx.db
      .select({ gid: sql<string>`${packages.owner_org}`.as('gid'), n: count().as('n') })
      .from(packages)
      .where(eq(packages.state, 'active'))
      .groupBy(packages.owner_org)
      .as('counts')
  return ctx.db
    .select({ gid: sql<string>`${members.group_id}`.as('gid'), n: count().as('n') })
    .from(members)
    .innerJoin(packages, eq(packages.id, members.table_id))
    .where(
      and(
        eq(members.table_name, 'package'),
        eq(members.state, 'active'),
        eq(packages.state, 'active'),
      ),
    )
    .groupBy(members.group_id)
    .as('counts')
}

const listHelp = (kind: string, filter: string) => `Return the names of the site's active ${kind}s.

:param sort: one field to sort by, optionally followed by asc or desc: name, title or
    package_count (optional, default: the site's default group sort, "title asc";
    package_count alone sorts descending and leaves out ${kind}s without datasets)
:type sort: string
:param order_by: deprecated, used when sort is not given
:type order_by: string
:param limit: the maximum number of ${kind}s returned (optional, default and cap: 1000, or 25
    with all_fields)
:type limit: int
:param offset: how many ${kind}s to skip (optional)
:type offset: int
:param ${filter}: only these ${kind} names (optional)
:type ${filter}: list of strings
:param q: only ${kind}s whose name, title or description contains this text (optional)
:type q: string
:param type: the ${kind} type (optional, default: "${kind}")
:type type: string
:param all_fields: return ${kind} dicts instead of names (optional, default: False)
:type all_fields: bool
:param include_dataset_count: with all_fields, include package_count (optional, default: True)
:type include_dataset_count: bool
:param include_extras: with all_fields, include extras (optional, default: False)
:type include_extras: bool
:param include_tags: with all_fields, include tags (optional, default: False)
:type include_tags: bool
:param include_groups: with all_fields, include parent groups (optional, default: False)
:type include_groups: bool
:param include_users: with all_fields, include members (optional, default: False)
:type include_users: bool
:rtype: list of strings or of dictionaries`

/** group_list and organization_list share everything but the kind and the filter's name. */
export function listAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  const kind = kindOf(isOrg)
  const filter = isOrg ? 'organizations' : 'groups'
  return defineAction({
    name,
    readOnly: true,
    help: listHelp(kind, filter),
    auth: 'anyone',
    params: z.object({
      sort: optString,
      order_by: optString,
      limit: naturalNumber(),
      offset: naturalNumber(),
      groups: nameList,
      organizations: nameList,
      q: filterText,
      type: optString,
      all_fields: ckanBool(false),
    }),
    async run(ctx, p, input) {
      const sort = parseSort(
        p.sort || p.order_by || ctx.config.str('service.default_group_sort') || 'title',
      )
      const max = ctx.config.int(
        p.all_fields
          ? 'service.group_and_organization_list_all_fields_max'
          : 'service.group_and_organization_list_max',
      )
      const limit = p.limit ? Math.min(p.limit, max) : max
      const names = isOrg ? p.organizations : p.groups
      const conds: (SQL | undefined)[] = [
        eq(groups.state, 'active'),
        eq(groups.is_organization, isOrg),
        eq(groups.type, p.type || kind),
      ]
      if (names) conds.push(inArray(groups.name, names))
      if (p.q) {
        // ckan: ILIKE; SQLite's LIKE folds ASCII case too; % and _ match literally here
        conds.push(
          or(
            likeContains(groups.name, p.q),
            likeContains(groups.title, p.q),
            likeContains(groups.description, p.q),
          ),
        )
      }
      const dir = sort.dir === 'asc' ? asc : desc
      let rows: GroupRow[]
      if (sort.field === 'package_count') {
        const counts = countsQuery(ctx, isOrg)
        const r = await ctx.db
          .select({ group: groups })
          .from(groups)
          .innerJoin(counts, eq(counts.gid, groups.id))
          .where(and(...conds))
          .orderBy(dir(counts.n), asc(groups.name))
          .limit(limit)
          .offset(p.offset ?? 0)
        rows = r.map((x) => x.group)
      } else {
        const col = sort.field === 'name' ? groups.name : groups.title
        rows = await ctx.db
          .select()
          .from(groups)
          .where(and(...conds))
          .orderBy(sql`${col} COLLATE NOCASE ${sql.raw(sort.dir)}`, dir(groups.name))
          .limit(limit)
          .offset(p.offset ?? 0)
      }
      if (!p.all_fields) return rows.map((g) => g.name)
      const flag = (k: string, def: boolean) => {
        const v = strictBool(input[k], def)
        if (v === undefined) throw ValidationError.message('Parameter is not an bool')
        return v
      }
      const opts = {
        ...SHOW_DEFAULTS(ctx, isOrg),
        count: flag('include_dataset_count', true),
        extras: flag('include_extras', false),
        tags: flag('include_tags', false),
        users: flag('include_users', false),
        groups: flag('include_groups', false),
        followers: flag('include_followers', false),
      }
      const out = []
      for (const g of rows) out.push(await groupDict(ctx, g, opts))
      return out
    },
  })
}

export const groupList = listAction({ name: 'group_list', isOrg: false })
