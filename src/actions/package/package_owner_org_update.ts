// package_owner_org_update: moves a dataset to another organization, or makes it unowned.
import { z } from 'zod'
import { eq, or } from 'drizzle-orm'
import { defineAction } from '../action'
import { optString } from '../../validation/fields'
import { NotFound } from '../../errors'
import { sysadminsOnly } from '../../auth/caller'
import { changeLog, groups, packages } from '../../db/schema'
import { changeRow } from '../../model/changes'
import { findPackage, forgetPackages } from '../../model/package'

export const packageOwnerOrgUpdate = defineAction({
  name: 'package_owner_org_update',
  readOnly: false,
  help: `Change the organization that owns a dataset (package).

Only sysadmins may call this directly.

:param id: the id or name of the dataset
:type id: string
:param organization_id: the id or name of the new owner organization; empty to leave the
    dataset without an organization
:type organization_id: string`,
  // ckan: sysadmins only, and the refusal carries no detail (sysadmins never reach this rule)
  auth: sysadminsOnly(),
  params: z.object({ id: optString, organization_id: optString }),
  async run(ctx, { id, organization_id }) {
    const pkg = id ? await findPackage(ctx, id) : undefined
    if (!pkg) throw new NotFound('Package was not found.')
    let orgId: string | null = null
    if (organization_id) {
      const rows = await ctx.db
        .select({ id: groups.id, is_organization: groups.is_organization })
        .from(groups)
        .where(or(eq(groups.id, organization_id), eq(groups.name, organization_id)))
        .limit(2)
      const org = rows.find((r) => r.id === organization_id) ?? rows[0]
      if (!org?.is_organization) throw new NotFound('Organization was not found.')
      orgId = org.id
    }
    // Ownership lives in owner_org alone (member_list derives it), so no member rows change.
    await ctx.db.batch([
      ctx.db
        .update(packages)
        .set({ owner_org: orgId, metadata_modified: ctx.now() })
        .where(eq(packages.id, pkg.id)),
      ctx.db.insert(changeLog).values(changeRow('package', pkg.id)),
    ])
    forgetPackages(ctx)
    return null
  },
})
