// api_token_list: a user's API tokens (never the tokens themselves: id, name, times).
import { z } from 'zod'
import { defineAction } from '../action'
import {
  listedUser,
  loadTokenOwner,
  requireCanListTokens,
  requireKeys,
} from '../../auth/api-token'
import { tokensOf, tokenToDict } from '../../model/api-token'

export const apiTokenList = defineAction({
  name: 'api_token_list',
  // ckan: every get.py action may be called with GET
  readOnly: true,
  help: `Return the API tokens of a user, oldest first. Users list their own tokens; sysadmins
anyone's.

:param user: the id or name of the user (user_id is accepted too)
:type user: string
:returns: the tokens: id (the JWT's jti), name, user_id, created_at, last_access (updated at
    most once a minute) and expires_at (null: never)
:rtype: list of dictionaries`,
  auth: requireCanListTokens,
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const user = listedUser(input)
    requireKeys({ user }, ['user']) // sysadmins skip the auth rule that checks it first
    const owner = await loadTokenOwner(ctx, user)
    return (await tokensOf(ctx, owner.id)).map(tokenToDict)
  },
})
