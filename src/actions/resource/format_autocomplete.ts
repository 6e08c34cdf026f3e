// format_autocomplete: resource formats containing the typed text, most used first.
import { z } from 'zod'
import { and, asc, count, desc, eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { resources } from '../../db/schema'
import { autocompleteQuery } from '../../model/autocomplete'
import { containsCi } from '../../model/text-match'
import { naturalNumber } from '../../validation/fields'

export const formatAutocomplete = defineAction({
  name: 'format_autocomplete',
  readOnly: true,
  help: `Return the resource formats that contain the given text, for completing input.

Formats are ordered by how many resources use them, most used first, and returned in
lower case.

:param q: the text typed so far
:type q: string
:param limit: the most formats to return (optional, default: 5)
:type limit: int
:rtype: list of strings`,
  auth: 'anyone',
  params: z.object({ q: autocompleteQuery, limit: naturalNumber(5) }),
  async run(ctx, p) {
    const total = count(resources.format)
    // ckan: every active resource counts, whatever its dataset
    const rows = await ctx.db
      .select({ format: resources.format, total })
      .from(resources)
      .where(and(eq(resources.state, 'active'), containsCi(resources.format, p.q)))
      .groupBy(resources.format)
      .orderBy(desc(total), asc(resources.format))
      .limit(p.limit!)
    return rows.map((r) => r.format.toLowerCase())
  },
})
