// tag_create: add a tag to a vocabulary (free tags are only made by tagging datasets).
import { z } from 'zod'
import { and, eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { field, fail, isMissing, MISSING } from '../../validation/fields'
import { ValidationError } from '../../errors'
import { changeLog, tags, vocabularies } from '../../db/schema'
import { changeRow } from '../../model/changes'
import { tagDatasets, tagNameError, tagToDict } from '../../model/tag'

const asText = (v: unknown) => (typeof v === 'string' ? v : String(v))

export const tagCreate = defineAction({
  name: 'tag_create',
  readOnly: false,
  help: `Create a new tag in a vocabulary. Only sysadmins may do this.

Free tags (tags without a vocabulary) cannot be made with this action; they come into being
when a dataset is tagged with them.

:param name: the tag's name, 2 to 100 characters: letters, digits, spaces and - _ .
:type name: string
:param vocabulary_id: the id of the vocabulary the tag belongs to
:type vocabulary_id: string
:returns: the new tag
:rtype: dictionary`,
  auth: 'sysadmin',
  params: z.object({
    name: field((v) => {
      if (isMissing(v)) return fail(MISSING)
      const name = asText(v)
      const err = tagNameError(name)
      return err ? fail(err) : name
    }),
    vocabulary_id: field((v) => (isMissing(v) ? fail(MISSING) : asText(v))),
    id: field((v) => (isMissing(v) ? undefined : fail('The input field id was not expected.'))),
  }),
  async run(ctx, { name, vocabulary_id }) {
    // ckan: the vocabulary is looked up by id only here
    const [vocab] = await ctx.db
      .select()
      .from(vocabularies)
      .where(eq(vocabularies.id, vocabulary_id))
    if (!vocab) throw ValidationError.field('vocabulary_id', 'Tag vocabulary was not found.')
    const [dupe] = await ctx.db
      .select({ id: tags.id })
      .from(tags)
      .where(and(eq(tags.name, name), eq(tags.vocabulary_id, vocab.id)))
    if (dupe)
      throw ValidationError.field(
        'vocabulary_id',
        `Tag ${name} already belongs to vocabulary ${vocabulary_id}`,
      )
    const row = { id: ctx.newId(), name, vocabulary_id: vocab.id }
    await ctx.db.batch([
      ctx.db.insert(tags).values(row),
      ctx.db.insert(changeLog).values(changeRow('tag', row.id)),
    ])
    return { ...tagToDict(row), packages: await tagDatasets(ctx, row.id) }
  },
})
