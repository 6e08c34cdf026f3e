// What each activity stream is made of (the sources activityPage() unites), as CKAN defines them.
import {
  aboutObject,
  aboutObjectsIn,
  byActor,
  readableObject,
  sql,
  type Source,
  type Sql,
  type Viewer,
} from './activity-query'

/** ckan _user_activity_query: activities by the user, and about the user. */
export const userStream = (userId: string): Source[] => [byActor(userId), aboutObject(userId)]

export const packageStream = (packageId: string): Source[] => [aboutObject(packageId)]

// The dataset lists below leave out datasets the viewer may not read before their activities
// are looked up (activityPage checks every row again); that keeps pages to one query.

/**
 * ckan _group_activity_query: the datasets of groups whose ids `groupIds` gives. Active members
 * that are active datasets, or deleted members that are deleted datasets (so a deleted dataset's
 * last activities stay, but a dataset taken out of the group leaves its stream).
 */
export const groupDatasets = (groupIds: Sql, v: Viewer): Sql =>
  sql`SELECT m.table_id FROM member m JOIN package p ON p.id = m.table_id
    WHERE m.group_id IN (${groupIds}) AND m.table_name = 'package'
      AND ((m.state = 'active' AND p.state = 'active')
        OR (m.state = 'deleted' AND p.state = 'deleted'))
      AND ${readableObject(v, sql`p.id`)}`

/** ckan _organization_activity_query: the datasets the organizations own, in any state. */
export const orgDatasets = (orgIds: Sql, v: Viewer): Sql =>
  sql`SELECT p.id FROM package p
    WHERE p.owner_org IN (${orgIds}) AND ${readableObject(v, sql`p.id`)}`

const one = (id: string) => sql`SELECT ${id}`

/** A group's stream: the group itself and its datasets. */
export const groupStream = (groupId: string, v: Viewer): Source[] => [
  aboutObject(groupId),
  aboutObjectsIn(groupDatasets(one(groupId), v)),
]

/** An organization's stream: the organization itself and the datasets it owns. */
export const orgStream = (orgId: string, v: Viewer): Source[] => [
  aboutObject(orgId),
  aboutObjectsIn(orgDatasets(one(orgId), v)),
]

/** ckan _changed_packages_activity_query: every `* package` activity (timestamp index). */
export const recentPackagesStream = (): Source[] => [
  sql`SELECT x.rowid AS rid, x.timestamp AS ts FROM activity x
    WHERE x.activity_type LIKE '%package'`,
]
