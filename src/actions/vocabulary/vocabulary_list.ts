// vocabulary_list: every tag vocabulary with its tags.
import { z } from 'zod'
import { asc, ne } from 'drizzle-orm'
import { defineAction } from '../action'
import { tags, vocabularies } from '../../db/schema'
import { tagToDict } from '../../model/tag'

export const vocabularyList = defineAction({
  name: 'vocabulary_list',
  readOnly: true,
  help: `Return all the site's tag vocabularies, each with its tags.

:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({}),
  async run(ctx) {
    const [vocabs, tagRows] = await ctx.db.batch([
      ctx.db.select().from(vocabularies).orderBy(asc(vocabularies.name)),
      ctx.db.select().from(tags).where(ne(tags.vocabulary_id, '')).orderBy(asc(tags.name)),
    ])
    return vocabs.map((v) => ({
      id: v.id,
      name: v.name,
      tags: tagRows.filter((t) => t.vocabulary_id === v.id).map(tagToDict),
    }))
  },
})
