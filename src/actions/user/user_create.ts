// user_create: register a user account (sysadmins, or anyone when create_user_via_api is on).
import { z } from 'zod'
import { defineAction } from '../action'
import { activities, changeLog, users } from '../../db/schema'
import { ValidationError } from '../../errors'
import { isMissing, isUuidText, toBool } from '../../validation/fields'
import { apiAtLeast } from '../../config/api-compat'
import { asText } from '../../model/package-validate'
import { invoke } from '../invoke'
import { apiTokenCreate } from './api_token_create'
import { requireCanCreateUser } from '../../auth/user'
import { activityRow } from '../../model/activity'
import { changeRow } from '../../model/changes'
import { applyImage, planImage } from '../../model/image-upload'
import {
  checkUserInput,
  findUser,
  forgetUsers,
  isUniqueViolation,
  userToDict,
} from '../../model/user'

/** The help of the profile parameters, which user_update takes too. */
export const PROFILE_PARAMS_HELP = `:param fullname: the full name (optional)
:type fullname: string
:param about: a description of the user, without links (optional)
:type about: string
:param image_url: URL of the user's picture (optional)
:type image_url: string
:param image_upload: an image file to upload instead of image_url (optional, multipart)
:type image_upload: file
:param clear_upload: remove the uploaded image (optional)
:type clear_upload: bool`

export const userCreate = defineAction({
  name: 'user_create',
  readOnly: false,
  allowAnonymous: true,
  help: `Create a new user account.

Only sysadmins may call this, unless the site allows creating users through the API
(service.auth.create_user_via_api).

:param name: the login name: 2 to 100 lowercase alphanumeric characters, - or _
:type name: string
:param email: the e-mail address, unique on the site
:type email: string
:param password: the password (at least service.auth.password_min_length characters)
:type password: string
:param id: the id of the new user (optional, sysadmins only; under service.api_compat 2.11 a
    UUID, and another caller's id is refused rather than ignored)
:type id: string
${PROFILE_PARAMS_HELP}
:param sysadmin: make the user a sysadmin (optional, sysadmins only)
:type sysadmin: bool
:param state: active or pending (optional, sysadmins only)
:type state: string
:param plugin_extras: private data for plugins (optional, sysadmins only)
:type plugin_extras: dictionary
:param password_hash: an already hashed password, for imports (optional, sysadmins only)
:type password_hash: string
:param with_apitoken: also create an API token named "default" for the new user and
    return it under token (optional, default: False; CKAN 2.11's parameter)
:type with_apitoken: bool
:returns: the new user, including its e-mail address and API key (and token)
:rtype: dictionary`,
  auth: requireCanCreateUser,
  // ckan: validation needs the database (unique name and e-mail) and reports all fields at once
  params: z.looseObject({}),
  async run(ctx, _params, input) {
    const privileged = !!ctx.user?.sysadmin || !!ctx.ignoreAuth
    let id = ctx.newId()
    const given = input.id
    let idError: string | undefined
    if (apiAtLeast(ctx.config, '2.11')) {
      // ckan 2.11: the action drops the id of a caller who is not a sysadmin, and one that names
      // a user already (no error either way); a sysadmin's new id must be a UUID
      if (!isMissing(given) && given !== '') {
        const text = asText(given)
        if (privileged && !(await findUser(ctx, text))) {
          if (ctx.ignoreAuth || isUuidText(text)) id = text
          else idError = 'Invalid id provided'
        }
      }
    } else if (privileged && typeof given === 'string' && given !== '' && !(await findUser(ctx, given))) {
      // 2.9 and 2.10 here: an id is kept only from a sysadmin, and only when no user has it yet
      // (CKAN itself took any caller's id, and one in use updated that user)
      id = given
    }
    const image = planImage(ctx, 'user', input, undefined)
    const cleaned = {
      ...input,
      id: id === given ? given : undefined,
      ...(image.imageUrl !== undefined && { image_url: image.imageUrl }),
    }
    const { values, pluginExtrasGiven } = await checkUserInput(ctx, cleaned, undefined, { idError })

    const row = {
      ...values,
      id,
      name: values.name!,
      apikey: ctx.config.bool('service.auth.create_default_api_keys') ? ctx.newId() : null,
      created: ctx.now(),
    }
    // ckan: the new user is the actor of its own "new user" activity
    const activity = activityRow(ctx, 'new user', id, {})
    try {
      await ctx.db.batch([
        ctx.db.insert(users).values(row),
        ctx.db.insert(changeLog).values(changeRow('user', id, 'upsert', 'created')),
        ...(activity ? [ctx.db.insert(activities).values({ ...activity, user_id: id })] : []),
      ])
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ValidationError({ name: ['That login name is not available.'] })
      throw e
    }
    forgetUsers(ctx)
    await applyImage(ctx, image)
    const created = (await findUser(ctx, id))!
    const dict = await userToDict(ctx, created, {
      includePrivate: true,
      includePluginExtras: !!ctx.user?.sysadmin && pluginExtrasGiven,
    })
    // ckan: 2.11's with_apitoken, offered under every api_compat setting (2.9 clients never send it)
    if (input.with_apitoken !== undefined && input.with_apitoken !== null && toBool(input.with_apitoken)) {
      const made = await invoke(ctx, apiTokenCreate, { user: created.name, name: 'default' }, { skipAuth: true })
      return { ...dict, token: made.token }
    }
    return dict
  },
})
