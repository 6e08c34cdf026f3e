// tag_autocomplete: names of the tags that contain the typed text.
import { defineAction } from '../action'
import { findTags, tagSearchParams } from './tag_search'

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
  params: tagSearchParams,
  async run(ctx, p) {
    const { rows } = await findTags(ctx, p)
    return rows.map((r) => r.name)
  },
})
