// vocabulary_update: rename a vocabulary and/or replace its set of tags.
import { z } from 'zod'
import { and, eq, ne } from 'drizzle-orm'
import { defineAction } from '../action'
import { assertListsOfDicts } from '../../validation/fields'
import { NotFound, ValidationError } from '../../errors'
import { changeLog, vocabularies } from '../../db/schema'
import { changeRow } from '../../model/changes'
import { forgetPackages } from '../../model/package'
import {
  checkVocabularyTags,
  findVocabulary,
  runBatch,
  setVocabularyTagsStatements,
  vocabularyDatasetChanges,
  vocabularyDict,
  optVocabularyName,
  vocabularyTags,
  type Stmt,
} from '../../model/tag'

export const vocabularyUpdate = defineAction({
  name: 'vocabulary_update',
  readOnly: false,
  help: `Update a tag vocabulary. Only sysadmins may do this.

When tags are given, the vocabulary's tags become exactly those: tags not in the list are
deleted (and taken off their datasets), new names are added.

:param id: the id or name of the vocabulary
:type id: string
:param name: a new name for the vocabulary (optional)
:type name: string
:param tags: the vocabulary's new set of tags, e.g. [{"name": "red"}] (optional)
:type tags: list of tag dictionaries
:returns: the updated vocabulary
:rtype: dictionary`,
  auth: 'sysadmin',
  params: z.object({
    id: z.unknown().optional(),
    name: optVocabularyName,
    tags: z.unknown().optional(),
  }),
  async run(ctx, { id, name }, input) {
    // ckan: this message is a plain string, not a list
    if (id === undefined || id === null || id === '')
      throw new ValidationError({ id: 'id not in data' })
    const ref = typeof id === 'string' ? id : JSON.stringify(id)
    const vocab = await findVocabulary(ctx, ref)
    if (!vocab) throw new NotFound(`Could not find vocabulary "${ref}"`)
    assertListsOfDicts(input, ['tags'])
    const errors: Record<string, unknown> = {}
    const rename = name !== undefined && name !== vocab.name
    if (rename) {
      const taken = await ctx.db
        .select({ id: vocabularies.id })
        .from(vocabularies)
        .where(and(eq(vocabularies.name, name), ne(vocabularies.id, vocab.id)))
      if (taken.length) errors.name = ['That vocabulary name is already in use.']
    }
    const tagInput = Array.isArray(input.tags)
      ? (input.tags as Record<string, unknown>[])
      : undefined
    const checked = tagInput && checkVocabularyTags(tagInput)
    if (checked?.errors) errors.tags = checked.errors
    if (Object.keys(errors).length) throw new ValidationError(errors)

    const stmts: Stmt[] = [ctx.db.insert(changeLog).values(changeRow('vocabulary', vocab.id))]
    if (rename) {
      stmts.push(ctx.db.update(vocabularies).set({ name }).where(eq(vocabularies.id, vocab.id)))
      // Datasets are indexed under vocab_<name>: they must be reindexed.
      stmts.push(...(await vocabularyDatasetChanges(ctx, vocab.id)))
    }
    if (checked)
      stmts.push(
        ...(await setVocabularyTagsStatements(
          ctx,
          vocab.id,
          checked.names,
          await vocabularyTags(ctx, vocab.id),
        )),
      )
    await runBatch(ctx, stmts)
    forgetPackages(ctx)
    return vocabularyDict(ctx, { id: vocab.id, name: rename ? name : vocab.name })
  },
})
