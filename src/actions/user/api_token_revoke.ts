// api_token_revoke: delete an API token, by its jti or by the token itself; it stops working everywhere.
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { apiTokens, changeLog } from '../../db/schema'
import { requireCanRevokeToken, revokedJti } from '../../auth/api-token'
import { changeRow } from '../../model/changes'

export const apiTokenRevoke = defineAction({
  name: 'api_token_revoke',
  readOnly: false,
  // ckan: the parameters are checked before the caller (see auth/api-token.ts)
  allowAnonymous: true,
  help: `Revoke (delete) an API token. Users revoke their own tokens; sysadmins anyone's.

Revoking a token that does not exist (or no longer does) is refused like revoking someone
else's; for sysadmins it does nothing.

:param token: the token to revoke (required unless jti is given; an expired one may be revoked)
:type token: string
:param jti: the id of the token to revoke (wins over token)
:type jti: string`,
  auth: requireCanRevokeToken,
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const jti = await revokedJti(ctx, input)
    // ckan: nothing to delete is no error (sysadmins only get here with an unknown token)
    if (!jti) return null
    await ctx.writer.write([
      ctx.db.delete(apiTokens).where(eq(apiTokens.id, jti)),
      // Every process drops its cached key → user entries when it reads this.
      ctx.db.insert(changeLog).values(changeRow('api_token', jti, 'delete')),
    ])
    await ctx.changes.catchUp()
    return null
  },
})
