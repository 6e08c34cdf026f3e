// tag_delete: remove a tag and take it off every dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import { optString } from '../../validation/fields'
import { NotFound, ValidationError } from '../../errors'
import { forgetPackages } from '../../model/package'
import { deleteTagsStatements, findTag, runBatch } from '../../model/tag'

export const tagDelete = defineAction({
  name: 'tag_delete',
  readOnly: false,
  help: `Delete a tag, removing it from every dataset that has it. Only sysadmins may do this.

:param id: the id or name of the tag
:type id: string
:param vocabulary_id: the id or name of the tag's vocabulary; without it, a name only
    matches free tags (optional)
:type vocabulary_id: string`,
  auth: 'sysadmin',
  params: z.object({ id: z.unknown().optional(), vocabulary_id: optString }),
  async run(ctx, { id, vocabulary_id }) {
    // ckan: this message is a plain string, not a list
    if (id === undefined || id === null || id === '')
      throw new ValidationError({ id: 'id not in data' })
    const ref = typeof id === 'string' ? id : JSON.stringify(id)
    const tag = await findTag(ctx, ref, vocabulary_id)
    if (!tag) throw new NotFound(`Could not find tag "${ref}"`)
    await runBatch(ctx, await deleteTagsStatements(ctx, [tag.id]))
    forgetPackages(ctx)
    return null
  },
})
