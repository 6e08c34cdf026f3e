// vocabulary_show: one tag vocabulary with its tags.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { NotFound, ValidationError } from '../../errors'
import { findVocabulary, vocabularyDict } from '../../model/tag'

/** The vocabulary the `id` parameter names, with ckan's messages (vocabulary_delete shares it). */
export async function loadVocabulary(ctx: ActionContext, id: unknown) {
  // ckan: this message is a plain string, not a list
  if (id === undefined || id === null || id === '')
    throw new ValidationError({ id: 'id not in data' })
  const ref = typeof id === 'string' ? id : JSON.stringify(id)
  const vocab = await findVocabulary(ctx, ref)
  if (!vocab) throw new NotFound(`Could not find vocabulary "${ref}"`)
  return vocab
}

export const vocabularyShow = defineAction({
  name: 'vocabulary_show',
  readOnly: true,
  help: `Return a tag vocabulary and its tags.

:param id: the id or name of the vocabulary
:type id: string
:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    return vocabularyDict(ctx, await loadVocabulary(ctx, id))
  },
})
