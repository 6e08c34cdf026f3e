// Who may change term translations: sysadmins only, with CKAN's messages (anyone may read them).
import type { ActionContext } from '../context'
import { requireLoggedIn, requireSysadmin } from './caller'

/** ckan term_translation_update auth (also what term_translation_update_many is checked by). */
export function requireCanUpdateTermTranslation(ctx: ActionContext) {
  requireLoggedIn(ctx, 'term_translation_update')
  requireSysadmin(ctx, 'update term_translation table')
}
