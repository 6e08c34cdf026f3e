// dataset_purge: removes a dataset and everything hanging off it, for good (sysadmins only).
import { z } from 'zod'
import { and, eq, inArray, or } from 'drizzle-orm'
import { defineAction } from '../action'
import { idOrName } from '../../validation/fields'
import { requireCanPurgePackage } from '../../auth/package'
import {
  changeLog,
  followers,
  members,
  packageExtras,
  packageRelationships,
  packageTags,
  packages,
  ratings,
  resourceViews,
  resources,
} from '../../db/schema'
import { changeRow, packageDetail } from '../../model/changes'
import { dropDatasetCollaborators } from '../../model/collaborator'
import { forgetPackages, loadPackage } from '../../model/package'
import { datasetFileKeys } from '../../model/resource-file'
import { deleteBlobs } from '../../storage/staged-upload'

const NOT_FOUND = 'Dataset was not found'

export const datasetPurge = defineAction({
  name: 'dataset_purge',
  readOnly: false,
  help: `Purge a dataset.

Unlike package_delete, which only marks a dataset deleted, purging removes the dataset, its
resources, extras, tags, group memberships and relationships from the database. It cannot be
undone. Only sysadmins may purge datasets.

:param id: the id or name of the dataset
:type id: string`,
  // ckan: the dataset is looked up (404) before the caller is refused
  allowAnonymous: true,
  auth: async (ctx, input) => {
    await loadPackage(ctx, input.id, { notFound: NOT_FOUND })
    requireCanPurgePackage(ctx)
  },
  params: z.object({ id: idOrName }),
  async run(ctx, { id }) {
    const pkg = await loadPackage(ctx, id, { notFound: NOT_FOUND })
    const db = ctx.db
    const resourceIds = db
      .select({ id: resources.id })
      .from(resources)
      .where(eq(resources.package_id, pkg.id))
    const related = await db
      .select({
        s: packageRelationships.subject_package_id,
        o: packageRelationships.object_package_id,
      })
      .from(packageRelationships)
      .where(
        or(
          eq(packageRelationships.subject_package_id, pkg.id),
          eq(packageRelationships.object_package_id, pkg.id),
        ),
      )
    // The datasets on the other side of a relationship lose it from their dicts.
    const others = [...new Set(related.flatMap((r) => [r.s, r.o]))].filter((x) => x !== pkg.id)
    // the files of every resource it ever had (package_delete and resource removals keep them)
    const files = await datasetFileKeys(ctx, pkg.id)
    // Activities keep their copy of the dataset, as CKAN's do.
    await db.batch([
      db.delete(resourceViews).where(inArray(resourceViews.resource_id, resourceIds)),
      db.delete(resources).where(eq(resources.package_id, pkg.id)),
      db.delete(packageExtras).where(eq(packageExtras.package_id, pkg.id)),
      db.delete(packageTags).where(eq(packageTags.package_id, pkg.id)),
      db
        .delete(members)
        .where(and(eq(members.table_id, pkg.id), eq(members.table_name, 'package'))),
      db
        .delete(packageRelationships)
        .where(
          or(
            eq(packageRelationships.subject_package_id, pkg.id),
            eq(packageRelationships.object_package_id, pkg.id),
          ),
        ),
      db
        .delete(followers)
        .where(and(eq(followers.object_id, pkg.id), eq(followers.object_type, 'dataset'))),
      db.delete(ratings).where(eq(ratings.package_id, pkg.id)),
      ...dropDatasetCollaborators(ctx, pkg.id),
      db.delete(packages).where(eq(packages.id, pkg.id)),
      db
        .insert(changeLog)
        .values([
          changeRow('package', pkg.id, 'purge', packageDetail(pkg, pkg, true)),
          ...others.map((o) => changeRow('package', o)),
        ]),
    ])
    forgetPackages(ctx)
    await deleteBlobs(ctx.blobs, files)
    await ctx.changes.catchUp() // this process's cached collaborations too
    return null
  },
})
