// The catalogue's static tables (Drizzle); DataStore tables live in another database.
import { sql } from 'drizzle-orm'
import { blob, customType, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { packText, unpackText } from '../lib/packed-text'

/** A TEXT column whose long values are stored deflated (src/lib/packed-text.ts). */
const packedText = customType<{ data: string; driverData: string | Uint8Array }>({
  dataType: () => 'text',
  toDriver: (v) => packText(v),
  fromDriver: (v) => unpackText(v) ?? '',
})

export const users = sqliteTable(
  'user',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    fullname: text(),
    email: text(),
    password_hash: text(),
    apikey: text(),
    sysadmin: integer({ mode: 'boolean' }).notNull().default(false),
    state: text().notNull().default('active'),
    about: text(),
    image_url: text(),
    created: text().notNull(),
    activity_streams_email_notifications: integer({ mode: 'boolean' }).notNull().default(false),
    plugin_extras: text(),
    reset_key: text(),
  },
  (t) => [uniqueIndex('user_name_idx').on(t.name), uniqueIndex('user_apikey_idx').on(t.apikey)],
)

export const groups = sqliteTable(
  'group',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    title: text().notNull().default(''),
    description: text().notNull().default(''),
    image_url: text().notNull().default(''),
    type: text().notNull().default('group'),
    is_organization: integer({ mode: 'boolean' }).notNull().default(false),
    approval_status: text().notNull().default('approved'),
    state: text().notNull().default('active'),
    created: text().notNull(),
  },
  (t) => [uniqueIndex('group_name_idx').on(t.name)],
)

export const groupExtras = sqliteTable(
  'group_extra',
  {
    id: text().primaryKey(),
    group_id: text().notNull(),
    key: text().notNull(),
    value: text().notNull().default(''),
    state: text().notNull().default('active'),
  },
  (t) => [index('group_extra_group_idx').on(t.group_id)],
)

/** Memberships: users, datasets and child groups in a group or organization. */
export const members = sqliteTable(
  'member',
  {
    id: text().primaryKey(),
    group_id: text().notNull(),
    table_id: text().notNull(),
    table_name: text().notNull(), // 'user' | 'package' | 'group'
    capacity: text().notNull(),
    state: text().notNull().default('active'),
  },
  (t) => [
    index('member_group_idx').on(t.group_id, t.table_name),
    index('member_table_idx').on(t.table_id, t.table_name),
  ],
)

export const packages = sqliteTable(
  'package',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    title: text(),
    type: text().notNull().default('dataset'),
    owner_org: text(),
    private: integer({ mode: 'boolean' }).notNull().default(false),
    state: text().notNull().default('active'),
    author: text(),
    author_email: text(),
    maintainer: text(),
    maintainer_email: text(),
    license_id: text(),
    notes: text(),
    url: text(),
    version: text(),
    creator_user_id: text(),
    metadata_created: text().notNull(),
    metadata_modified: text().notNull(),
  },
  (t) => [
    uniqueIndex('package_name_idx').on(t.name),
    // covering the counts per organization (organization_list all_fields, package_count)
    index('package_owner_state_idx').on(t.owner_org, t.state, t.private),
    index('package_modified_idx').on(t.metadata_modified),
    index('package_creator_state_idx').on(t.creator_user_id, t.state, t.private),
  ],
)

export const packageExtras = sqliteTable(
  'package_extra',
  {
    id: text().primaryKey(),
    package_id: text().notNull(),
    key: text().notNull(),
    value: text().notNull().default(''),
    state: text().notNull().default('active'),
  },
  (t) => [index('package_extra_package_idx').on(t.package_id)],
)

export const resources = sqliteTable(
  'resource',
  {
    id: text().primaryKey(),
    package_id: text().notNull(),
    url: text().notNull().default(''),
    format: text().notNull().default(''),
    description: text(),
    name: text(),
    hash: text().notNull().default(''),
    resource_type: text(),
    mimetype: text(),
    mimetype_inner: text(),
    cache_url: text(),
    size: integer(),
    created: text().notNull(),
    last_modified: text(),
    cache_last_updated: text(),
    metadata_modified: text().notNull(),
    url_type: text(),
    position: integer().notNull().default(0),
    state: text().notNull().default('active'),
    datastore_active: integer({ mode: 'boolean' }).notNull().default(false),
    /** JSON object of the resource's extra (non-core) keys. */
    extras: text().notNull().default('{}'),
  },
  (t) => [index('resource_package_idx').on(t.package_id, t.position)],
)

export const vocabularies = sqliteTable(
  'vocabulary',
  { id: text().primaryKey(), name: text().notNull() },
  (t) => [uniqueIndex('vocabulary_name_idx').on(t.name)],
)

export const tags = sqliteTable(
  'tag',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    /** '' for free tags, so the unique index covers them too. */
    vocabulary_id: text().notNull().default(''),
  },
  (t) => [uniqueIndex('tag_name_vocab_idx').on(t.name, t.vocabulary_id)],
)

export const packageTags = sqliteTable(
  'package_tag',
  {
    id: text().primaryKey(),
    package_id: text().notNull(),
    tag_id: text().notNull(),
    state: text().notNull().default('active'),
  },
  (t) => [
    index('package_tag_package_idx').on(t.package_id),
    index('package_tag_tag_idx').on(t.tag_id),
  ],
)

export const packageRelationships = sqliteTable(
  'package_relationship',
  {
    id: text().primaryKey(),
    subject_package_id: text().notNull(),
    object_package_id: text().notNull(),
    type: text().notNull(),
    comment: text().notNull().default(''),
    state: text().notNull().default('active'),
  },
  (t) => [
    index('package_rel_subject_idx').on(t.subject_package_id),
    index('package_rel_object_idx').on(t.object_package_id),
  ],
)

/**
 * Dataset collaborators (CKAN 2.9 package_member): a user's capacity on one dataset, behind
 * service.auth.allow_dataset_collaborators.
 */
export const packageMembers = sqliteTable(
  'package_member',
  {
    package_id: text().notNull(),
    user_id: text().notNull(),
    capacity: text().notNull(), // 'member' | 'editor' | 'admin'
    modified: text().notNull(),
  },
  (t) => [
    uniqueIndex('package_member_pk').on(t.package_id, t.user_id),
    index('package_member_user_idx').on(t.user_id),
  ],
)

export const resourceViews = sqliteTable(
  'resource_view',
  {
    id: text().primaryKey(),
    resource_id: text().notNull(),
    title: text(),
    description: text(),
    view_type: text().notNull(),
    order: integer().notNull().default(0),
    config: text().notNull().default('{}'),
  },
  (t) => [index('resource_view_resource_idx').on(t.resource_id)],
)

export const activities = sqliteTable(
  'activity',
  {
    id: text().primaryKey(),
    timestamp: text().notNull(),
    user_id: text(),
    object_id: text(),
    activity_type: text().notNull(),
    /** JSON text of the data dict, deflated when long (packedText). */
    data: packedText().notNull().default('{}'),
  },
  (t) => [
    index('activity_object_idx').on(t.object_id, t.timestamp),
    index('activity_user_idx').on(t.user_id, t.timestamp),
    index('activity_timestamp_idx').on(t.timestamp),
  ],
)

/** Followers of users, datasets and groups (object_type tells which). */
export const followers = sqliteTable(
  'follower',
  {
    follower_id: text().notNull(),
    object_id: text().notNull(),
    object_type: text().notNull(), // 'user' | 'dataset' | 'group'
    datetime: text().notNull(),
  },
  (t) => [
    uniqueIndex('follower_pk').on(t.follower_id, t.object_id, t.object_type),
    index('follower_object_idx').on(t.object_id),
  ],
)

export const dashboards = sqliteTable('dashboard', {
  user_id: text().primaryKey(),
  activity_stream_last_viewed: text().notNull(),
  email_last_sent: text().notNull(),
})

export const taskStatuses = sqliteTable(
  'task_status',
  {
    id: text().primaryKey(),
    entity_id: text().notNull(),
    entity_type: text().notNull(),
    task_type: text().notNull(),
    key: text().notNull(),
    value: text().notNull().default(''),
    state: text(),
    error: text(),
    last_updated: text(),
  },
  (t) => [uniqueIndex('task_status_key_idx').on(t.entity_id, t.task_type, t.key)],
)

export const termTranslations = sqliteTable(
  'term_translation',
  {
    term: text().notNull(),
    term_translation: text().notNull(),
    lang_code: text().notNull(),
  },
  (t) => [uniqueIndex('term_translation_idx').on(t.term, t.lang_code)],
)

export const ratings = sqliteTable(
  'rating',
  {
    id: text().primaryKey(),
    package_id: text().notNull(),
    user_id: text().notNull(),
    rating: integer().notNull(),
    created: text().notNull(),
  },
  (t) => [uniqueIndex('rating_user_package_idx').on(t.package_id, t.user_id)],
)

/**
 * API tokens (CKAN 2.9): the token itself is a JWT whose `jti` is this row's id; it is shown once
 * and never stored. Revoking deletes the row.
 */
export const apiTokens = sqliteTable(
  'api_token',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    user_id: text().notNull(),
    created_at: text().notNull(),
    /** Updated at most once a minute per token. */
    last_access: text(),
    /** Beyond CKAN: when the token stops working (null: never). */
    expires_at: text(),
    plugin_extras: text(),
  },
  (t) => [index('api_token_user_idx').on(t.user_id)],
)

/**
 * Webhooks (beyond CKAN): a user's subscription to the change feed's events, delivered to `url`
 * as Standard Webhooks signed with `secret`. `events` and `filters` are JSON (null: every event,
 * no filter); `after_seq` is the change-log position its deliveries start after.
 */
export const webhooks = sqliteTable(
  'webhook',
  {
    id: text().primaryKey(),
    user_id: text().notNull(),
    url: text().notNull(),
    events: text(),
    filters: text(),
    secret: text().notNull(),
    active: integer({ mode: 'boolean' }).notNull().default(true),
    after_seq: integer().notNull().default(0),
    created: text().notNull(),
    modified: text().notNull(),
    /** When deliveries started failing without a success since (null: not failing). */
    failing_since: text(),
    /** Why it was turned off by the site (failing too long), or null. */
    disabled_reason: text(),
  },
  (t) => [index('webhook_user_idx').on(t.user_id)],
)

/** One event for one webhook: its message id (the webhook-id header), its attempts and outcome. */
export const webhookDeliveries = sqliteTable(
  'webhook_delivery',
  {
    id: text().primaryKey(),
    webhook_id: text().notNull(),
    event: text().notNull(),
    seq: integer(),
    payload: text().notNull(),
    /** pending, delivered or failed (no attempt left) */
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    response_code: integer(),
    latency_ms: integer(),
    error: text(),
    created: text().notNull(),
    last_attempt: text(),
    next_attempt: text(),
  },
  (t) => [
    index('webhook_delivery_webhook_idx').on(t.webhook_id, t.created),
    // the pending ones by when they are due (the delivery runs read only these)
    index('webhook_delivery_due_idx').on(t.status, t.next_attempt),
  ],
)

/**
 * Usage figures (service.tracking_enabled): uses of a dataset or resource per day and kind (page
 * views, API reads, downloads), added to by the counters' batched flushes (src/model/usage.ts).
 * No address or visitor is kept.
 */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    object_id: text().notNull(),
    /** page, api or download */
    kind: text().notNull(),
    /** YYYY-MM-DD, UTC */
    day: text().notNull(),
    /** the dataset (itself for a dataset's row) */
    package_id: text().notNull(),
    count: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.object_id, t.kind, t.day] }),
    // a dataset's recent figures with its resources', and the recent sort's figures by day
    index('usage_daily_package_idx').on(t.package_id, t.day),
    index('usage_daily_day_idx').on(t.day),
  ],
)

/** Every use of a dataset or resource so far, by kind (the figures' totals without a sum over days). */
export const usageTotals = sqliteTable(
  'usage_total',
  {
    object_id: text().primaryKey(),
    package_id: text().notNull(),
    is_resource: integer().notNull(),
    page: integer().notNull().default(0),
    api: integer().notNull().default(0),
    download: integer().notNull().default(0),
    total: integer().notNull().default(0),
  },
  (t) => [index('usage_total_package_idx').on(t.package_id)],
)

/** Secrets the site generates for itself on first start (the API token signing key); never config. */
export const siteSecrets = sqliteTable('site_secret', {
  key: text().primaryKey(),
  value: text().notNull(),
})

/** Runtime-editable configuration (config_option_update), overlaid on the loaded config. */
export const systemInfo = sqliteTable('system_info', {
  key: text().primaryKey(),
  value: text(),
})

/** Background jobs held in named queues (see src/jobs/job-queue.ts). */
export const jobs = sqliteTable(
  'job',
  {
    id: text().primaryKey(),
    queue: text().notNull().default('default'),
    title: text(),
    kind: text().notNull(),
    payload: text().notNull().default('{}'),
    status: text().notNull().default('queued'), // queued | running | finished | failed
    created: text().notNull(),
    started: text(),
    ended: text(),
    error: text(),
    /** Claims so far: a job whose runner died is claimed again when its lease expires. */
    attempts: integer().notNull().default(0),
    /** The current claim's token: only its holder may finish or fail the job. */
    lease: text(),
    lease_until: text(),
    /** The handler's return value, as JSON. */
    result: text(),
  },
  (t) => [index('job_queue_idx').on(t.status, t.queue, t.created)],
)

/**
 * Every catalogue write appends here in the same batch. Derived state (the search index, the
 * per-process dict caches) catches up by reading rows with a higher seq.
 */
export const changeLog = sqliteTable(
  'change_log',
  {
    seq: integer().primaryKey({ autoIncrement: true }),
    entity_type: text().notNull(), // 'package' | 'group' | 'user' | 'tag' | 'vocabulary' | 'config'
    entity_id: text().notNull(),
    op: text().notNull(), // 'upsert' | 'delete' | 'purge'
    // what changes_list needs beside the op: a dataset's "<state>:<private|public>" as written, a
    // group's "organization" or "group" (null where the write did not change them)
    detail: text(),
    at: text()
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%f', 'now'))`),
  },
  (t) => [index('change_log_entity_idx').on(t.entity_type, t.entity_id)],
)

/**
 * The latest serialized search index, in chunks, with the change-log seq it covers: a cold
 * process loads it and replays only the log after `seq` (see src/search/service.ts).
 */
export const searchSnapshots = sqliteTable(
  'search_snapshot',
  {
    chunk: integer().primaryKey(),
    seq: integer().notNull(),
    created: text().notNull(),
    data: blob().notNull(),
  },
)

export const schema = {
  users,
  groups,
  groupExtras,
  members,
  packages,
  packageExtras,
  resources,
  vocabularies,
  tags,
  packageTags,
  packageRelationships,
  packageMembers,
  resourceViews,
  activities,
  followers,
  dashboards,
  taskStatuses,
  termTranslations,
  ratings,
  apiTokens,
  siteSecrets,
  systemInfo,
  jobs,
  changeLog,
  searchSnapshots,
}

/**
 * Failed web sign-ins (and other throttled requests) per key (`user:<name>`, `ip:<address>`): the
 * count in the window that began at `since` (ms since the epoch). Shared by every process and
 * isolate, so a limit holds however requests are spread; written outside the change log (no read
 * action shows it).
 */
export const loginFailures = sqliteTable(
  'login_failure',
  {
    key: text().primaryKey(),
    n: integer().notNull(),
    since: integer().notNull(),
  },
  (t) => [index('login_failure_since_idx').on(t.since)],
)

/**
 * Harvesting (ckanext-harvest's model). A source is a dataset of type `harvest` (its url,
 * source_type, frequency and config live on the dataset); these tables hold its runs.
 * `harvest_job.status`: New | Running | Finished | Aborted (ckanext-harvest's words).
 */
export const harvestJobs = sqliteTable(
  'harvest_job',
  {
    id: text().primaryKey(),
    source_id: text().notNull(),
    created: text().notNull(),
    gather_started: text(),
    gather_finished: text(),
    finished: text(),
    status: text().notNull().default('New'),
    /** The background job (table job) that runs this harvest job's current stage. */
    queue_job_id: text(),
    /** Where an incremental source's next run starts (a changes_list cursor, a metadata_modified). */
    cursor: text(),
  },
  (t) => [
    index('harvest_job_source_idx').on(t.source_id, t.created),
    // one job waiting or running per source, whoever creates it (an action, the scheduler)
    uniqueIndex('harvest_job_open_idx')
      .on(t.source_id)
      .where(sql`status IN ('New', 'Running')`),
  ],
)

/**
 * One remote dataset in one run. `current` marks the object a local dataset was last written from
 * (one per source and guid). state: WAITING | FETCH | IMPORT | COMPLETE | ERROR; report_status:
 * added | updated | not modified | errored | deleted.
 */
export const harvestObjects = sqliteTable(
  'harvest_object',
  {
    id: text().primaryKey(),
    guid: text().notNull().default(''),
    current: integer({ mode: 'boolean' }).notNull().default(false),
    gathered: text().notNull(),
    fetch_started: text(),
    /** The remote record as gathered (rows of older runs may hold it deflated, as packedText does). */
    content: text(),
    fetch_finished: text(),
    import_started: text(),
    import_finished: text(),
    state: text().notNull().default('WAITING'),
    metadata_modified_date: text(),
    retry_times: integer().notNull().default(0),
    harvest_job_id: text().notNull(),
    harvest_source_id: text().notNull(),
    package_id: text(),
    report_status: text(),
    /** SHA-256 of the content, to tell an unchanged remote dataset without comparing dicts. */
    content_hash: text(),
    /** harvest_object_extra as one JSON object of strings. */
    extras: text().notNull().default('{}'),
    /** Gather order within the job, so an import resumes where it stopped. */
    seq: integer().notNull().default(0),
  },
  (t) => [
    index('harvest_object_job_idx').on(t.harvest_job_id, t.state, t.seq),
    index('harvest_object_source_guid_idx').on(t.harvest_source_id, t.guid, t.current),
    index('harvest_object_package_idx').on(t.package_id),
  ],
)

export const harvestGatherErrors = sqliteTable(
  'harvest_gather_error',
  {
    id: text().primaryKey(),
    harvest_job_id: text().notNull(),
    message: text().notNull(),
    created: text().notNull(),
  },
  (t) => [index('harvest_gather_error_job_idx').on(t.harvest_job_id)],
)

export const harvestObjectErrors = sqliteTable(
  'harvest_object_error',
  {
    id: text().primaryKey(),
    harvest_object_id: text().notNull(),
    message: text().notNull(),
    stage: text().notNull(),
    line: integer(),
    created: text().notNull(),
  },
  (t) => [index('harvest_object_error_object_idx').on(t.harvest_object_id)],
)

/** ckanext-harvest's harvest_log: what runs said, by level (DEBUG … CRITICAL). */
export const harvestLogs = sqliteTable(
  'harvest_log',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    content: text().notNull(),
    level: text().notNull(),
    created: text().notNull(),
  },
  (t) => [index('harvest_log_created_idx').on(t.created)],
)

/**
 * Each dataset's package_show dict, ready (model/package-json.ts): its JSON text (deflated when
 * long, as packedText stores it) under `fp`, the fingerprint of what else the dict depends on
 * (site URL, metadata schemas, the dict's format). Written in a dataset write's own batch, or by
 * a read that had to assemble the dict; the triggers of migration 0011 delete a row in the same
 * transaction as any change-log row that names its dataset (or its organization, groups or
 * vocabularies), so a row that exists is current.
 */
export const packageJson = sqliteTable('package_json', {
  package_id: text().primaryKey(),
  fp: text().notNull(),
  dict: packedText().notNull(),
})

/**
 * One row (id 1): the change-log seq of the newest change to an organization, group or
 * vocabulary (kept by a trigger). A dict assembled from rows read before that seq is not stored.
 */
export const dictEpoch = sqliteTable('dict_epoch', {
  id: integer().primaryKey(),
  seq: integer().notNull(),
})
