// tag_search: tags whose names contain every search term.
import { z } from 'zod'
import { defineAction } from '../action'
import { jsonObject, naturalNumber, optString, filterList } from '../../validation/fields'
import { searchTags, searchTerms, tagSearchDict } from '../../model/tag'

export const tagSearch = defineAction({
  name: 'tag_search',
  readOnly: true,
  help: `Return the tags whose names contain the given search terms.

Without a vocabulary only free tags that are or were on a dataset are searched.

:param query: the term(s) to look for; each must be part of the name, ignoring case
:type query: string or list of strings
:param vocabulary_id: the id or name of a vocabulary to search in (optional)
:type vocabulary_id: string
:param fields: deprecated, {"tags": term} adds a term (optional)
:type fields: dictionary
:param limit: the most tags to return (optional)
:type limit: int
:param offset: how many matching tags to skip (optional)
:type offset: int
:returns: {"count": total matches, "results": list of tag dictionaries}
:rtype: dictionary`,
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
    const { rows, count } = await searchTags(ctx, {
      terms: searchTerms(p.query, p.q, p.fields),
      vocabulary: p.vocabulary_id ?? undefined,
      limit: p.limit,
      offset: p.offset,
    })
    return { count, results: rows.map(tagSearchDict) }
  },
})
