// config_option_update: change runtime-editable options; values persist and apply at once.
import { z } from 'zod'
import { defineAction } from '../action'
import { toBool, toInt } from '../../validation/fields'
import { ValidationError } from '../../errors'
import { editableOption, storeRuntimeOptions } from '../../model/config'

const HOMEPAGE_STYLE = 'service.homepage_style'
const SITE_LOGO = 'service.site_logo'

const asText = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)

export const configOptionUpdate = defineAction({
  name: 'config_option_update',
  readOnly: false,
  help: `Change configuration options at run time. Only sysadmins may do this.

Pass each option to change as a key with its new value; config_option_list gives the keys
allowed. The values are stored, so they survive restarts and apply to every process.

:param ckan.site_title: e.g. "My catalogue" (any of config_option_list's keys)
:type ckan.site_title: string
:param ckan.homepage_style: must be a positive integer
:type ckan.homepage_style: int
:returns: the options that were set, with their new values
:rtype: dictionary`,
  auth: 'sysadmin',
  params: z.record(z.string(), z.unknown()),
  async run(ctx, input) {
    const keys = Object.keys(input)
    const unknown = keys.filter((k) => !editableOption(k))
    if (unknown.length)
      throw ValidationError.message(
        `Configuration option(s) '${unknown.join(' ')}' can not be updated`,
      )

    const byKey = new Map(keys.map((k) => [editableOption(k)!.key, k]))
    const given = (key: string) => (byKey.has(key) ? input[byKey.get(key)!] : undefined)
    // ckan: the upload fields steer the logo and are not stored themselves
    const clearLogo = given('clear_logo_upload')
    const logoKey = byKey.get(SITE_LOGO)
    const values = new Map<string, string | null>()
    const result: Record<string, unknown> = {}
    const errors: Record<string, string[]> = {}
    for (const sent of keys) {
      const key = editableOption(sent)!.key
      const value = input[sent]
      if (key === 'logo_upload' || key === 'clear_logo_upload') continue
      if (value === undefined || value === null) continue // ckan: ignore_missing
      if (key === HOMEPAGE_STYLE) {
        const n = toInt(value)
        if (typeof n !== 'number') errors[sent] = n.msgs
        else if (n < 1)
          errors[sent] = ['Must be a postive integer'] // ckan: sic
        else {
          values.set(key, String(n))
          result[sent] = n
        }
        continue
      }
      let text = asText(value)
      // ckan: a bare file name is an uploaded logo, served from /uploads/admin/
      if (key === SITE_LOGO && text && !text.startsWith('http') && !text.startsWith('/'))
        text = `/uploads/admin/${text}`
      values.set(key, text)
      result[sent] = text
    }
    if (clearLogo !== undefined && toBool(clearLogo) && (!logoKey || !input[logoKey])) {
      values.set(SITE_LOGO, '')
      result[logoKey ?? 'ckan.site_logo'] = ''
    }
    if (Object.keys(errors).length) throw new ValidationError(errors)
    await storeRuntimeOptions(ctx, values)
    return result
  },
})
