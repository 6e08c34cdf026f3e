// term_translation_update_many: term_translation_update for each item of a list, in one write.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanUpdateTermTranslation } from '../../auth/term-translation'
import {
  checkTermTranslation,
  translationList,
  upsertTranslation,
} from '../../model/term-translation'

export const termTranslationUpdateMany = defineAction({
  name: 'term_translation_update_many',
  readOnly: false,
  // ckan: the list is checked before the caller (who is checked as term_translation_update)
  allowAnonymous: true,
  help: `Create or update many term translations at once (sysadmins only).

Either all of them are saved or, when one is invalid, none.

:param data: the term translation dictionaries (see term_translation_update)
:type data: list of dictionaries
:returns: a dictionary with key 'success' whose value says how many were updated,
    e.g. {"success": "3 rows updated"}
:rtype: dictionary`,
  auth: (ctx, input) => {
    translationList(input)
    requireCanUpdateTermTranslation(ctx)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const rows = translationList(input).map(checkTermTranslation)
    const stmts = rows.map((row) => upsertTranslation(ctx, row))
    await ctx.writer.write(stmts)
    return { success: `${rows.length} rows updated` }
  },
})
