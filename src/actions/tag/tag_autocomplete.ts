// tag_autocomplete: names of the tags that contain the typed text.
import { z } from 'zod'
import { defineAction } from '../action'
import { jsonObject, naturalNumber, optString, filterList } from '../../validation/fields'
import { searchTags, searchTerms } from '../../model/tag'

export const tagAutocomplete = defineAction({
  name: 'tag_autocomplete',
  readOnly: true,
  help: `Return the names of the tags that contain the given text, for completing input.

Takes the same parameters as tag_search.

:param query: the text typed so far
:type query: string
:param vocabulary_id: the id or name of a vocabulary to search in (optional)
:type vocabulary_id: string
:param limit: the most names to return (optional)
:type limit: int
:param offset: how many matching tags to skip (optional)
:type offset: int
:rtype: list of strings`,
  auth: 'anyone',
  params: z.object({
    query: filterList,
    q: filterList,
    vocabulary_id: optString,
    fields: jsonObject,
    limit: naturalNumber(),
    offset: naturalNumber(),
  }),
  async run(ctx, p) {
    const { rows } = await searchTags(ctx, {
      terms: searchTerms(p.query, p.q, p.fields),
      vocabulary: p.vocabulary_id ?? undefined,
      limit: p.limit,
      offset: p.offset,
    })
    return rows.map((r) => r.name)
  },
})
