// The user actions (accounts, invitations and API tokens), for the registry.
import type { Action } from '../action'
import { apiTokenCreate } from './api_token_create'
import { apiTokenList } from './api_token_list'
import { apiTokenRevoke } from './api_token_revoke'
import { userAutocomplete } from './user_autocomplete'
import { getSiteUser } from './get_site_user'
import { userCreate } from './user_create'
import { userDelete } from './user_delete'
import { userGenerateApikey } from './user_generate_apikey'
import { userInvite } from './user_invite'
import { userList } from './user_list'
import { userPatch } from './user_patch'
import { userShow } from './user_show'
import { userUpdate } from './user_update'

export const actions: Action<any, any>[] = [
  userCreate,
  userShow,
  userList,
  userUpdate,
  userPatch,
  userDelete,
  userGenerateApikey,
  getSiteUser,
  userAutocomplete,
  userInvite,
  apiTokenCreate,
  apiTokenList,
  apiTokenRevoke,
]
