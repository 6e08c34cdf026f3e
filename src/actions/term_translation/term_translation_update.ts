// term_translation_update: creates or replaces the translation of a term into a language (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanUpdateTermTranslation } from '../../auth/term-translation'
import { checkTermTranslation, upsertTranslation } from '../../model/term-translation'

export const termTranslationUpdate = defineAction({
  name: 'term_translation_update',
  readOnly: false,
  allowAnonymous: true,
  help: `Create or update a term translation.

Only sysadmins may do this. A translation of the same term into the same language
is replaced.

:param term: the term to be translated, in the original language, e.g. 'romantic novel'
:type term: string
:param term_translation: the translation of the term, e.g. 'Liebesroman'
:type term_translation: string
:param lang_code: the language code of the translation, e.g. 'de'
:type lang_code: string
:returns: the term translation (term, term_translation, lang_code)
:rtype: dictionary`,
  auth: (ctx) => requireCanUpdateTermTranslation(ctx),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const row = checkTermTranslation(input)
    await ctx.writer.write([upsertTranslation(ctx, row)])
    return row
  },
})
