// organization_autocomplete: organizations whose name or title contains the typed text.
import { z } from 'zod'
import { defineAction } from '../action'
import { autocompleteQuery, searchGroupsByNameOrTitle } from '../../model/autocomplete'
import { naturalNumber } from '../../validation/fields'

export const organizationAutocomplete = defineAction({
  name: 'organization_autocomplete',
  readOnly: true,
  help: `Return the organizations whose name or title contains the given text, for completing
input.

:param q: the text typed so far
:type q: string
:param limit: the most organizations to return (optional, default: 20)
:type limit: int
:rtype: list of dictionaries with the keys "id", "name" and "title"`,
  auth: 'anyone', // ckan: as organization_list
  params: z.object({ q: autocompleteQuery, limit: naturalNumber(20) }),
  async run(ctx, p) {
    return searchGroupsByNameOrTitle(ctx, p.q, true, p.limit!)
  },
})
