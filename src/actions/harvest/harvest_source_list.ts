// harvest_source_list: the active sources the caller may see, newest first.
import { z } from 'zod'
import { defineAction } from '../action'
import { canReadSource } from '../../auth/harvest'
import {
  nextRun,
  sourceFromDict,
  sourceIds,
  sourceListEntry,
  sourceStatus,
} from '../../model/harvest'
import { findPackage, packageDicts } from '../../model/package'
import { findGroupId } from '../../model/package-bulk'
import { NotFound } from '../../errors'
import { ckanBool, optString } from '../../validation/fields'

export const harvestSourceList = defineAction({
  name: 'harvest_source_list',
  readOnly: true,
  help: `List harvest sources (those the caller may see; private ones to members of their
organization), newest first.

:param organization_id: only the sources of this organization (id or name) (optional)
:type organization_id: string
:param return_last_job_status: add each source's last job as last_job_status (optional,
    default: False)
:type return_last_job_status: bool
:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({
    organization_id: optString,
    return_last_job_status: ckanBool(false),
    only_active: ckanBool(false),
  }),
  async run(ctx, { organization_id, return_last_job_status }) {
    let orgId: string | undefined
    if (organization_id) {
      orgId = await findGroupId(ctx, organization_id)
      if (!orgId) throw new NotFound('Organization not found')
    }
    const ids = await sourceIds(ctx, { orgId })
    const dicts = await packageDicts(ctx, ids)
    const out: Record<string, unknown>[] = []
    for (const id of ids) {
      const d = dicts.get(id)
      const row = d && (await findPackage(ctx, id))
      if (!d || !row || !(await canReadSource(ctx, row))) continue
      const s = sourceFromDict(d)
      const org = d.organization as { title?: string } | null | undefined
      const entry = await sourceListEntry(ctx, s, org?.title ?? '', await nextRun(ctx, s))
      if (return_last_job_status) entry.last_job_status = (await sourceStatus(ctx, id)).last_job ?? {}
      out.push(entry)
    }
    return out
  },
})
