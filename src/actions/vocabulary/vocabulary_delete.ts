// vocabulary_delete: remove a vocabulary with its tags (which leave every dataset).
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { NotFound, ValidationError } from '../../errors'
import { changeLog, vocabularies } from '../../db/schema'
import { changeRow } from '../../model/changes'
import { forgetPackages } from '../../model/package'
import { deleteTagsStatements, findVocabulary, runBatch, vocabularyTags } from '../../model/tag'

export const vocabularyDelete = defineAction({
  name: 'vocabulary_delete',
  readOnly: false,
  help: `Delete a tag vocabulary and all of its tags. Only sysadmins may do this.

:param id: the id or name of the vocabulary
:type id: string`,
  auth: 'sysadmin',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    // ckan: this message is a plain string, not a list
    if (id === undefined || id === null || id === '')
      throw new ValidationError({ id: 'id not in data' })
    const ref = typeof id === 'string' ? id : JSON.stringify(id)
    const vocab = await findVocabulary(ctx, ref)
    if (!vocab) throw new NotFound(`Could not find vocabulary "${ref}"`)
    const tagIds = (await vocabularyTags(ctx, vocab.id)).map((t) => t.id)
    await runBatch(ctx, [
      ...(await deleteTagsStatements(ctx, tagIds)),
      ctx.db.delete(vocabularies).where(eq(vocabularies.id, vocab.id)),
      ctx.db.insert(changeLog).values(changeRow('vocabulary', vocab.id, 'delete')),
    ])
    forgetPackages(ctx)
    return null
  },
})
