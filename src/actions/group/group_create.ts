// group_create: a new group (or, via organization_create, organization); the creator becomes admin.
import { defineAction, type DataDict } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { requireCanCreateGroup } from '../../auth/group'
import { SHOW_DEFAULTS, groupDict, kindOf } from '../../model/group'
import { groupParams, saveGroup, withGroupSchema } from '../../model/group-write'
import { applyImage, planImage } from '../../model/image-upload'

const help = (kind: string) => `Create a new ${kind}.

Any logged-in user may create ${kind}s when the site allows it
(service.auth.user_create_${kind}s); the creator becomes an admin of the new ${kind}.

:param name: the name of the ${kind}: 2 to 100 lowercase alphanumeric characters, - or _;
    unique among groups and organizations
:type name: string
:param id: the id of the new ${kind} (optional)
:type id: string
:param title: the title (optional)
:type title: string
:param description: the description (optional)
:type description: string
:param image_url: the URL of an image (optional)
:type image_url: string
:param image_upload: an image file to upload instead of image_url (optional, multipart)
:type image_upload: file
:param clear_upload: remove the uploaded image (optional)
:type clear_upload: bool${
  kind === 'group'
    ? `
:param type: a custom group type (optional, must not be "organization")
:type type: string`
    : ''
}
:param state: the state, honoured for sysadmins only (optional, default: "active")
:type state: string
:param approval_status: the approval status (optional)
:type approval_status: string
:param extras: extras, each with key and value (optional)
:type extras: list of dictionaries
:param users: members, each with name (user id or name) and capacity (optional)
:type users: list of dictionaries
:param groups: parent ${kind}s, each with name and optional capacity (optional)
:type groups: list of dictionaries${
  kind === 'group'
    ? `
:param packages: datasets, each with id (or name) of a dataset (optional)
:type packages: list of dictionaries`
    : ''
}
:returns: the new ${kind}, as ${kind}_show returns it with its users
:rtype: dictionary`

// ckan: group_create refuses the organization type before anything else (a crash in 2.9)
function refuseOrgType(isOrg: boolean, input: DataDict) {
  if (!isOrg && input.type === 'organization')
    throw new ValidationError({ type: ['Trying to create an organization as a group'] })
}

/** group_create and organization_create share one implementation. */
export function createAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  const kind = kindOf(isOrg)
  return defineAction({
    name,
    readOnly: false,
    help: help(kind),
    auth: async (ctx: ActionContext, input) => {
      refuseOrgType(isOrg, input)
      requireCanCreateGroup(ctx, isOrg)
    },
    params: groupParams(true),
    async run(ctx, params, input) {
      refuseOrgType(isOrg, input)
      const image = planImage(ctx, 'group', input, undefined)
      const typed = await withGroupSchema(ctx, { isOrg, type: params.type || kind, create: true }, input, params)
      const p = { ...typed, image_url: image.imageUrl ?? typed.image_url }
      const row = await saveGroup(ctx, { isOrg, params: p, partial: false })
      await applyImage(ctx, image)
      return groupDict(ctx, row, { ...SHOW_DEFAULTS(ctx, isOrg), users: true })
    },
  })
}

export const groupCreate = createAction({ name: 'group_create', isOrg: false })
