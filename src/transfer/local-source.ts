// This catalogue as a TransferSource (export): its own actions as the site user, so what an export
// holds is what CKAN's API would give a sysadmin, plus what this project knows beyond the API
// (a table's primary key and indexes) and the stored files themselves.
import { callAction } from '../actions/call'
import type { ActionContext, Deps } from '../context'
import { findTable } from '../datastore/registry'
import { resourceFileKey } from '../model/resource-file'
import { ensureSiteUser } from '../model/site-user'
import { CkanSource } from './ckan-source'
import { uploadFileName, type Dict, type TransferSource } from './source'

export async function localSource(deps: Deps): Promise<TransferSource> {
  const { user } = await ensureSiteUser(deps)
  const ctx: ActionContext = { ...deps, user, ignoreAuth: true, memo: new Map() }
  const source = new CkanSource({
    label: deps.config.str('service.site_url'),
    call: (name, params) => callAction({ ...ctx, memo: new Map() }, name, params),
    async download(resource: Dict) {
      const blob = await deps.blobs.get(resourceFileKey(resource.id, uploadFileName(resource)))
      if (!blob) return { missing: 'the file is not in storage' }
      return { body: blob.body, contentType: blob.contentType, size: blob.size }
    },
  })
  const table = source.table.bind(source)
  return Object.assign(source, {
    async table(resource: Dict) {
      const t = await table(resource)
      const here = t && deps.datastore ? await findTable(deps.datastore, resource.id) : undefined
      return t && here ? { ...t, primaryKey: here.primary_key, indexes: here.indexes } : t
    },
  })
}
