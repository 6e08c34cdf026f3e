// group_autocomplete: groups whose name or title contains the typed text (organization_autocomplete
// shares it).
import { z } from 'zod'
import { defineAction } from '../action'
import { autocompleteQuery, searchGroupsByNameOrTitle } from '../../model/autocomplete'
import { kindOf } from '../../model/group'
import { naturalNumber } from '../../validation/fields'

/** group_autocomplete and organization_autocomplete share one implementation. */
export function autocompleteAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  const kind = kindOf(isOrg)
  return defineAction({
    name,
    readOnly: true,
    // the longer word wraps the first line of organization_autocomplete's help
    help: `Return the ${kind}s whose name or title contains the given text, for completing${isOrg ? '\n' : ' '}input.

:param q: the text typed so far
:type q: string
:param limit: the most ${kind}s to return (optional, default: 20)
:type limit: int
:rtype: list of dictionaries with the keys "id", "name" and "title"`,
    auth: 'anyone', // ckan: as group_list (organization_list)
    params: z.object({ q: autocompleteQuery, limit: naturalNumber(20) }),
    async run(ctx, p) {
      return searchGroupsByNameOrTitle(ctx, p.q, isOrg, p.limit!)
    },
  })
}

export const groupAutocomplete = autocompleteAction({ name: 'group_autocomplete', isOrg: false })
