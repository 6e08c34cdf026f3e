// user_list: the site's (non-deleted) users, as dicts or names, filtered and ordered.
import { z } from 'zod'
import { and, asc, eq, ne, or, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import { defineAction } from '../action'
import { apiAtLeast } from '../../config/api-compat'
import { packages, users } from '../../db/schema'
import { ValidationError } from '../../errors'
import { requireCanListUsers } from '../../auth/user'
import { siteUserName, userDicts } from '../../model/user'
import { ckanBool, filterText, naturalNumber, optString } from '../../validation/fields'
import { likeContains } from '../../model/text-match'

const createdCount = sql`(select count(*) from ${packages} where ${packages.creator_user_id} = ${users.id} and ${packages.state} = 'active' and ${packages.private} = 0)`

const ORDER: Record<string, SQL | AnyColumn> = {
  name: users.name,
  display_name: sql`case when trim(coalesce(${users.fullname}, '')) = '' then ${users.name} else ${users.fullname} end`,
  id: users.id,
  fullname: users.fullname,
  created: users.created,
  about: users.about,
  email: users.email,
  state: users.state,
  sysadmin: users.sysadmin,
  number_created_packages: createdCount,
}

export const userList = defineAction({
  name: 'user_list',
  readOnly: true,
  help: `Return the site's users.

Deleted users are left out, and so is the site user unless asked for.

:param q: only users whose name or full name contains this text (sysadmins also match
    e-mail addresses) (optional)
:type q: string
:param email: only the user with this e-mail address (optional, sysadmins only)
:type email: string
:param order_by: name (default; display_name from api_compat 2.10), display_name, id, fullname, created, about, email, state,
    sysadmin or number_created_packages (optional)
:type order_by: string
:param all_fields: return user dicts instead of names (optional, default: True)
:type all_fields: bool
:param include_site_user: also list the site user (optional, default: False)
:type include_site_user: bool
:param limit: the maximum number of users to return (optional)
:type limit: int
:param offset: skip this many users (optional)
:type offset: int
:rtype: list of dictionaries or strings`,
  auth: requireCanListUsers,
  params: z.object({
    q: filterText,
    email: optString,
    order_by: optString,
    all_fields: ckanBool(true),
    include_site_user: ckanBool(false),
    limit: naturalNumber(),
    offset: naturalNumber(0),
  }),
  async run(ctx, p) {
    // seed: name, where CKAN (2.9 too) uses display_name; followed from api_compat 2.10
    const orderBy = p.order_by || (apiAtLeast(ctx.config, '2.10') ? 'display_name' : 'name')
    if (orderBy === 'edits') throw ValidationError.message('order_by=edits is no longer supported')
    const orderExpr = ORDER[orderBy]
    if (!orderExpr) {
      const names = Object.keys(ORDER).map((k) => `'${k}'`)
      throw new ValidationError({ order_by: [`Value must be one of [${names.join(', ')}]`] })
    }
    const where = [ne(users.state, 'deleted')]
    if (!p.include_site_user) where.push(ne(users.name, siteUserName(ctx)))
    if (p.email) where.push(eq(users.email, p.email))
    if (p.q) {
      // ckan: an ILIKE substring match; here the caller's % and _ match literally
      const fields = [likeContains(users.name, p.q), likeContains(users.fullname, p.q)]
      if (ctx.user?.sysadmin) fields.push(likeContains(users.email, p.q))
      where.push(or(...fields)!)
    }
    const rows = await ctx.db
      .select()
      .from(users)
      .where(and(...where))
      .orderBy(asc(orderExpr), asc(users.name))
      .limit(p.limit ?? Number.MAX_SAFE_INTEGER) // drizzle drops -1; OFFSET needs a LIMIT
      .offset(p.offset ?? 0)
    if (!p.all_fields) return rows.map((r) => r.name)
    return userDicts(ctx, rows)
  },
})
