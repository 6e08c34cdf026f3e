// user_autocomplete: users whose name or full name contains the typed text.
import { z } from 'zod'
import { and, asc, ne, or, type SQL } from 'drizzle-orm'
import { defineAction } from '../action'
import { users } from '../../db/schema'
import { autocompleteQuery, pyTruthy } from '../../model/autocomplete'
import { containsCi } from '../../model/text-match'
import { requireCanSeeUsers } from '../../auth/user'
import { naturalNumber } from '../../validation/fields'

export const userAutocomplete = defineAction({
  name: 'user_autocomplete',
  readOnly: true,
  help: `Return the users whose name or full name contains the given text, for completing input.

Deleted users are left out.

:param q: the text typed so far (matched in names and full names; for sysadmins also in e-mail addresses)
:type q: string
:param limit: the most users to return (optional, default: 20)
:type limit: int
:param ignore_self: leave out the calling user (optional, default: False)
:type ignore_self: bool
:rtype: list of dictionaries with the keys "id", "name" and "fullname"`,
  auth: (ctx) => requireCanSeeUsers(ctx), // ckan: as user_list
  params: z.object({
    q: autocompleteQuery,
    limit: naturalNumber(20),
    ignore_self: z.unknown().optional(),
  }),
  async run(ctx, p) {
    const where: SQL[] = [
      ne(users.state, 'deleted'),
      // ckan: sysadmins also match e-mail addresses
      or(
        containsCi(users.name, p.q),
        containsCi(users.fullname, p.q),
        ...(ctx.user?.sysadmin ? [containsCi(users.email, p.q)] : []),
      )!,
    ]
    // ckan: the flag is tested for Python truthiness, so the string "false" also counts
    if (pyTruthy(p.ignore_self) && ctx.user) where.push(ne(users.name, ctx.user.name))
    return ctx.db
      .select({ id: users.id, name: users.name, fullname: users.fullname })
      .from(users)
      .where(and(...where))
      .orderBy(asc(users.name))
      .limit(p.limit!)
  },
})
