// term_translation_show: the translations of some terms, optionally into some languages.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { asText } from '../../model/package-validate'
import { findTranslations } from '../../model/term-translation'

/** A string or a list of strings as a list (GET sends one value as a plain string). */
const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map(asText) : [asText(v)])

export const termTranslationShow = defineAction({
  name: 'term_translation_show',
  readOnly: true,
  auth: 'anyone',
  help: `Return the translations of the given term(s) into the given language(s).

:param terms: the terms to look up, in the source language, e.g. 'Russian' or
    ['Russian', 'romantic novel']
:type terms: string or list of strings
:param lang_codes: the language codes of the translations wanted, e.g. 'de' or
    ['en', 'de'] (optional, default: any language)
:type lang_codes: string or list of strings
:returns: the translations, each with 'term', 'term_translation' and 'lang_code'
:rtype: list of dictionaries`,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    if (!('terms' in input)) throw new ValidationError({ terms: 'terms not in data' })
    const { terms, lang_codes } = input
    // ckan: an empty or null list of terms means every term
    const termList =
      terms === null || terms === undefined || (Array.isArray(terms) && !terms.length)
        ? undefined
        : asList(terms)
    const langs = lang_codes === undefined || lang_codes === null ? undefined : asList(lang_codes)
    const rows = await findTranslations(ctx, termList, langs)
    return rows.map((r) => ({
      term: r.term,
      term_translation: r.term_translation,
      lang_code: r.lang_code,
    }))
  },
})
