// The package_show dict of a dataset being written, assembled from the rows the write produces.
import type { groups, packageRelationships } from '../db/schema'
import type { ActionContext } from '../context'
import { displayName, imageDisplayUrl } from './group-display'
import { licenseFields } from './license'
import type { PackageDict, PackageRow } from './package'
import { resourceToDict, type ResourceRow } from './resource'
import { datasetOutput } from '../scheming/dataset'

export type GroupRow = typeof groups.$inferSelect
export type RelationshipRow = typeof packageRelationships.$inferSelect

/** A dataset's `groups` item. */
export function groupEntry(
  g: Pick<GroupRow, 'description' | 'id' | 'image_url' | 'name' | 'title'>,
  siteUrl: string,
) {
  return {
    description: g.description,
    display_name: displayName(g),
    id: g.id,
    image_display_url: imageDisplayUrl(g.image_url, siteUrl),
    name: g.name,
    title: g.title,
  }
}

/** A dataset's `organization` value. */
export function organizationEntry(o: GroupRow | null | undefined) {
  if (!o || o.state !== 'active') return null
  return {
    approval_status: o.approval_status,
    created: o.created,
    description: o.description,
    id: o.id,
    image_url: o.image_url,
    is_organization: o.is_organization,
    name: o.name,
    state: o.state,
    title: o.title,
    type: o.type,
  }
}

export const relationshipEntry = (r: RelationshipRow) => ({
  id: r.id,
  subject_package_id: r.subject_package_id,
  object_package_id: r.object_package_id,
  type: r.type,
  comment: r.comment,
})

const byString =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0

export interface DictParts {
  row: PackageRow
  /** Active resources in position order. */
  resources: ResourceRow[]
  tags: { id: string; name: string; vocabulary_id: string }[]
  extras: { key: string; value: string }[]
  groups: ReturnType<typeof groupEntry>[]
  organization: ReturnType<typeof organizationEntry>
  relationshipsAsSubject: ReturnType<typeof relationshipEntry>[]
  relationshipsAsObject: ReturnType<typeof relationshipEntry>[]
}

/** The dict package_show would return for these rows (same keys, order and sorting). */
export function assemblePackageDict(ctx: ActionContext, p: DictParts): PackageDict {
  const siteUrl = ctx.config.str('service.site_url')
  const row = p.row
  const res = p.resources.map((r) => resourceToDict(r, siteUrl))
  const tagList = p.tags
    .map((t) => ({
      display_name: t.name,
      id: t.id,
      name: t.name,
      state: 'active',
      vocabulary_id: t.vocabulary_id || null,
    }))
    .sort(byString((t) => t.name))
  const extras = p.extras.map((e) => ({ key: e.key, value: e.value })).sort(byString((e) => e.key))
  const groupList = [...p.groups].sort(byString((g) => g.display_name))
  const lic = licenseFields(row.license_id)
  const dict: PackageDict = {
    author: row.author,
    author_email: row.author_email,
    creator_user_id: row.creator_user_id,
    extras,
    groups: groupList,
    id: row.id,
    isopen: lic.isopen,
    license_id: row.license_id,
    license_title: lic.license_title,
    ...(lic.license_url !== undefined ? { license_url: lic.license_url } : {}),
    maintainer: row.maintainer,
    maintainer_email: row.maintainer_email,
    metadata_created: row.metadata_created,
    metadata_modified: row.metadata_modified,
    name: row.name,
    notes: row.notes,
    num_resources: res.length,
    num_tags: tagList.length,
    organization: p.organization,
    owner_org: row.owner_org,
    private: row.private,
    relationships_as_object: p.relationshipsAsObject,
    relationships_as_subject: p.relationshipsAsSubject,
    resources: res,
    state: row.state,
    tags: tagList,
    title: row.title === null ? null : row.title.trim(),
    type: row.type,
    url: row.url,
    version: row.version,
  }
  const schema = ctx.schemas?.dataset(row.type)
  return schema ? (datasetOutput(schema, dict) as PackageDict) : dict
}
