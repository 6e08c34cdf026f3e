// datastore_run_triggers: re-applies a table's trigger functions to every row (sysadmins only).
import { z } from 'zod'
import { pruneVersions } from '../../datastore/versions'
import { defineAction } from '../action'
import { datastoreOf } from '../../datastore/access'
import { rerunTriggers } from '../../datastore/writes'
import { reqString } from '../../validation/fields'
import { requestProfile } from '../../jobs/datastore-profile'

export const datastoreRunTriggers = defineAction({
  name: 'datastore_run_triggers',
  readOnly: false,
  auth: 'sysadmin',
  help: `Apply a table's triggers again to all of its rows (sysadmins only).

Every row is passed through the table's trigger functions as an update; all changes are written
in one transaction, or none when a function rejects a row.

:param resource_id: the resource whose table is processed
:type resource_id: string
:returns: the number of rows in the table
:rtype: int`,
  params: z.looseObject({ resource_id: reqString }),
  async run(ctx, p) {
    const db = datastoreOf(ctx)
    const id = p.resource_id
    const rows = await rerunTriggers(db, id, ctx.now)
    await pruneVersions(db, id, ctx.config.str('service.datastore.versions.retention'), ctx.now())
    await requestProfile(ctx, p.resource_id)
    return rows
  },
})
