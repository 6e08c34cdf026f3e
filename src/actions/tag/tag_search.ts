// tag_search: tags whose names contain every search term.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { jsonObject, naturalNumber, optString, filterList } from '../../validation/fields'
import { searchTags, searchTerms, tagSearchDict } from '../../model/tag'

/** tag_search's parameters (tag_autocomplete takes the same). */
export const tagSearchParams = z.object({
  query: filterList,
  q: filterList,
  vocabulary_id: optString,
  fields: jsonObject,
  limit: naturalNumber(),
  offset: naturalNumber(),
})

/** The tags the parameters ask for, and how many match in all. */
export const findTags = (ctx: ActionContext, p: z.output<typeof tagSearchParams>) =>
  searchTags(ctx, {
    terms: searchTerms(p.query, p.q, p.fields),
    vocabulary: p.vocabulary_id ?? undefined,
    limit: p.limit,
    offset: p.offset,
  })

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
  params: tagSearchParams,
  async run(ctx, p) {
    const { rows, count } = await findTags(ctx, p)
    return { count, results: rows.map(tagSearchDict) }
  },
})
