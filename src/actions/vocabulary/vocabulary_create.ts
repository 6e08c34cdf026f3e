// vocabulary_create: a new tag vocabulary, optionally with its tags.
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { assertListsOfDicts, field, fail } from '../../validation/fields'
import { ValidationError } from '../../errors'
import { changeLog, vocabularies } from '../../db/schema'
import { changeRow } from '../../model/changes'
import {
  checkVocabularyTags,
  runBatch,
  setVocabularyTagsStatements,
  vocabularyDict,
  vocabularyName,
} from '../../model/tag'

export const vocabularyCreate = defineAction({
  name: 'vocabulary_create',
  readOnly: false,
  help: `Create a new tag vocabulary. Only sysadmins may do this.

:param name: the vocabulary's name, 2 to 100 characters, not used by another vocabulary
:type name: string
:param tags: the tags of the new vocabulary, e.g. [{"name": "red"}] (optional)
:type tags: list of tag dictionaries
:returns: the new vocabulary
:rtype: dictionary`,
  auth: 'sysadmin',
  params: z.object({
    name: vocabularyName,
    id: field((v) => (v ? fail('The input field id was not expected.') : undefined)),
    tags: z.unknown().optional(),
  }),
  async run(ctx, { name }, input) {
    assertListsOfDicts(input, ['tags'])
    const tagList = Array.isArray(input.tags) ? (input.tags as Record<string, unknown>[]) : []
    const checked = checkVocabularyTags(tagList)
    const taken = await ctx.db
      .select({ id: vocabularies.id })
      .from(vocabularies)
      .where(eq(vocabularies.name, name))
    const errors: Record<string, unknown> = {}
    if (taken.length) errors.name = ['That vocabulary name is already in use.']
    if (checked.errors) errors.tags = checked.errors
    if (Object.keys(errors).length) throw new ValidationError(errors)
    const id = ctx.newId()
    await runBatch(ctx, [
      ctx.db.insert(vocabularies).values({ id, name }),
      ctx.db.insert(changeLog).values(changeRow('vocabulary', id)),
      ...(await setVocabularyTagsStatements(ctx, id, checked.names)),
    ])
    return vocabularyDict(ctx, { id, name })
  },
})
