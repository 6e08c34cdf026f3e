// tag_show: one tag, optionally with the public datasets that carry it.
import { z } from 'zod'
import { defineAction } from '../action'
import { ckanBool, optString, reqString } from '../../validation/fields'
import { NotFound } from '../../errors'
import { findTag, tagDatasets, tagToDict } from '../../model/tag'

export const tagShow = defineAction({
  name: 'tag_show',
  readOnly: true,
  help: `Return the details of a tag.

:param id: the id or name of the tag
:type id: string
:param vocabulary_id: the id or name of the tag's vocabulary; without it, a name only
    matches free tags (optional)
:type vocabulary_id: string
:param include_datasets: include up to 1000 of the public datasets that carry the tag
    (optional, default: False)
:type include_datasets: bool
:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({
    id: reqString,
    vocabulary_id: optString,
    include_datasets: ckanBool(false),
  }),
  async run(ctx, p) {
    const tag = await findTag(ctx, p.id, p.vocabulary_id)
    if (!tag) throw new NotFound()
    const dict = tagToDict(tag)
    return p.include_datasets ? { ...dict, packages: await tagDatasets(ctx, tag.id) } : dict
  },
})
