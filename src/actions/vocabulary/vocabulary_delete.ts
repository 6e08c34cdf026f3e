// vocabulary_delete: remove a vocabulary with its tags (which leave every dataset).
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { changeLog, vocabularies } from '../../db/schema'
import { changeRow } from '../../model/changes'
import { forgetPackages } from '../../model/package'
import { deleteTagsStatements, runBatch, vocabularyTags } from '../../model/tag'
import { loadVocabulary } from './vocabulary_show'

export const vocabularyDelete = defineAction({
  name: 'vocabulary_delete',
  readOnly: false,
  help: `Delete a tag vocabulary and all of its tags. Only sysadmins may do this.

:param id: the id or name of the vocabulary
:type id: string`,
  auth: 'sysadmin',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const vocab = await loadVocabulary(ctx, id)
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
