// The keys CKAN 2.9's answers carry (../shared/spec/catalogue.md §1.1, §2.1, §4.1, §5.1, §11;
// datastore.md), for checking what import-ckan reads from a site against the spec.
import { expect } from 'vitest'

type Dict = Record<string, any>

const DATASET = [
  'author', 'author_email', 'creator_user_id', 'extras', 'groups', 'id', 'isopen', 'license_id', 'license_title',
  'maintainer', 'maintainer_email', 'metadata_created', 'metadata_modified', 'name', 'notes', 'num_resources',
  'num_tags', 'organization', 'owner_org', 'private', 'relationships_as_object', 'relationships_as_subject',
  'resources', 'state', 'tags', 'title', 'type', 'url', 'version',
]
const RESOURCE = [
  'cache_last_updated', 'cache_url', 'created', 'datastore_active', 'description', 'format', 'hash', 'id',
  'last_modified', 'metadata_modified', 'mimetype', 'mimetype_inner', 'name', 'package_id', 'position',
  'resource_type', 'size', 'state', 'url', 'url_type',
]
const GROUP = [
  'approval_status', 'created', 'description', 'display_name', 'extras', 'groups', 'id', 'image_display_url',
  'image_url', 'is_organization', 'name', 'num_followers', 'package_count', 'state', 'tags', 'title', 'type', 'users',
]
const USER = [
  'about', 'activity_streams_email_notifications', 'created', 'display_name', 'email_hash', 'fullname', 'id',
  'image_display_url', 'image_url', 'name', 'number_created_packages', 'state', 'sysadmin',
]
const ACTIVITY = ['id', 'timestamp', 'user_id', 'object_id', 'revision_id', 'activity_type', 'data']
const VIEW = ['id', 'resource_id', 'package_id', 'title', 'description', 'view_type']

const has = (what: string, obj: Dict, keys: string[]) =>
  expect(keys.filter((k) => !(k in obj)), `${what} lacks keys CKAN 2.9 gives`).toEqual([])

/** Checks an answer the importer read against CKAN 2.9's shape for that action. */
export function expectSpecShape(action: string, params: Dict, result: any) {
  switch (action) {
    case 'package_search':
      expect(Object.keys(result)).toEqual(expect.arrayContaining(['count', 'results', 'facets', 'search_facets', 'sort']))
      for (const d of result.results) {
        has('a dataset', d, DATASET)
        for (const r of d.resources) has('a resource', r, RESOURCE)
        if (d.organization) has('a dataset organization', d.organization, ['approval_status', 'created', 'description', 'id', 'image_url', 'is_organization', 'name', 'state', 'title', 'type'])
      }
      return
    case 'user_list':
      for (const u of result) has('a user', u, USER)
      return
    case 'organization_show':
    case 'group_show':
      // include_tags false leaves `tags` out (as CKAN does)
      has(action, result, GROUP.filter((k) => !(k === 'tags' && params.include_tags === false)))
      for (const u of result.users) has(`${action} user`, u, [...USER, 'capacity'])
      expect(result.is_organization).toBe(action === 'organization_show')
      return
    case 'organization_list':
    case 'group_list':
      for (const n of result) expect(typeof n).toBe('string')
      return
    case 'scheming_dataset_schema_list':
    case 'scheming_organization_schema_list':
    case 'scheming_group_schema_list':
      // ckanext-scheming's: the types, as a list of names
      for (const n of result) expect(typeof n).toBe('string')
      return
    case 'vocabulary_list':
      for (const v of result) has('a vocabulary', v, ['id', 'name', 'tags'])
      return
    case 'package_activity_list':
    case 'organization_activity_list':
    case 'group_activity_list':
      for (const a of result) has('an activity', a, ACTIVITY)
      return
    case 'activity_show':
      has('an activity', result, ACTIVITY)
      return
    case 'resource_view_list':
      for (const v of result) has('a view', v, VIEW)
      return
    case 'datastore_search':
      has('datastore_search', result, ['resource_id', 'fields', 'records', 'total'])
      expect(result.fields[0]).toEqual({ id: '_id', type: 'int' })
      for (const f of result.fields) has('a field', f, ['id', 'type'])
      if (params.limit > 0 && result.records.length) has('a record', result.records[0], ['_id'])
      return
    case 'status_show':
      has('status_show', result, ['ckan_version', 'site_url', 'extensions'])
      return
    default:
      throw new Error(`no 2.9 shape for ${action}: add it from the spec`)
  }
}
