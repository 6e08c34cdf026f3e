// tag_list: names (or dicts) of the free tags in use, or of a vocabulary's tags.
import { z } from 'zod'
import { defineAction } from '../action'
import { ckanBool, optString, filterList } from '../../validation/fields'
import { NotFound } from '../../errors'
import {
  findVocabulary,
  freeTagsInUse,
  searchTags,
  searchTerms,
  tagToDict,
  vocabularyTags,
} from '../../model/tag'

export const tagList = defineAction({
  name: 'tag_list',
  readOnly: true,
  help: `Return the site's tags.

Without a vocabulary, the free tags that are on at least one dataset; with one, all the tags
of that vocabulary.

:param query: only tags whose name contains this text, case-insensitively (optional)
:type query: string
:param vocabulary_id: the id or name of a vocabulary (optional)
:type vocabulary_id: string
:param all_fields: return tag dictionaries instead of names (optional, default: False)
:type all_fields: bool
:rtype: list of strings or dictionaries`,
  auth: 'anyone',
  params: z.object({
    query: filterList,
    q: filterList,
    vocabulary_id: optString,
    all_fields: ckanBool(false),
  }),
  async run(ctx, p) {
    const terms = searchTerms(p.query, p.q).map((t) => t.trim())
    const vocabulary = p.vocabulary_id || undefined
    let rows
    if (terms.some(Boolean)) {
      rows = (await searchTags(ctx, { terms, vocabulary })).rows
    } else if (vocabulary) {
      const vocab = await findVocabulary(ctx, vocabulary)
      if (!vocab) throw new NotFound(`could not find vocabulary '${vocabulary}'`)
      rows = await vocabularyTags(ctx, vocab.id)
    } else {
      rows = await freeTagsInUse(ctx)
    }
    return p.all_fields ? rows.map(tagToDict) : rows.map((r) => r.name)
  },
})
