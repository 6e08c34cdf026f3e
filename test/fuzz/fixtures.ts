// The objects the fuzzed calls aim at, and values of parameters by name drawn from their real ids
// and names, so that many cases get past "Not found" to validation and the write paths.
import fc from 'fast-check'
import { uniq } from '../helpers/make'
import type { Caller, TestEnv } from '../helpers/setup'
import { numericExtreme } from './hostile'

/** Ids and names of the fixture objects, by kind. */
export interface Pool {
  dataset: string[]
  resource: string[]
  /** the resource with a DataStore table (columns a int primary key, b text) */
  table: string[]
  org: string[]
  group: string[]
  /** a plain user who is none of the callers (a fuzzed user_delete cannot lock a caller out) */
  user: string[]
  vocab: string[]
  tag: string[]
  view: string[]
  activity: string[]
  task: string[]
  token: string[]
  /** a harvest source (a `ckan` one: no job of the fuzz ever runs) and its waiting job */
  harvest: string[]
}

type Dict = Record<string, unknown>

/**
 * A public dataset with two resources (the second with a DataStore table), a private dataset in
 * an organization, a group holding the public dataset, a vocabulary with a tag, a free tag, a
 * resource view, a relationship, a task status, and a second plain user (an editor of the
 * organization, with an API token), all made by `sys`.
 */
export async function makeFixtures(t: TestEnv, sys: Caller): Promise<Pool> {
  const other = await t.make.user()
  const org = await t.make.organization(sys)
  const group = await t.make.group(sys)
  await t.ok('organization_member_create', { id: org.id, username: other.name, role: 'editor' }, sys)
  const vocab = await t.ok('vocabulary_create', { name: uniq('vocab'), tags: [{ name: 'fz-genre' }] }, sys)
  const pub = await t.make.dataset(sys, {
    owner_org: org.id,
    groups: [{ id: group.id }],
    tags: [{ name: 'fz-tag' }, { name: 'fz-genre', vocabulary_id: vocab.id }],
    extras: [{ key: 'fz-extra', value: '1' }],
    resources: [
      { url: 'http://example.com/a.csv', name: 'a', format: 'CSV' },
      { url: 'http://example.com/pic.png', name: 'b', format: 'PNG' },
    ],
  })
  const priv = await t.make.dataset(sys, { owner_org: org.id, private: true })
  const [r1, r2] = pub.resources as Dict[]
  await t.ok(
    'datastore_create',
    {
      resource_id: r1!.id,
      force: true,
      fields: [
        { id: 'a', type: 'int' },
        { id: 'b', type: 'text' },
      ],
      primary_key: 'a',
      records: [
        { a: 1, b: 'one' },
        { a: 2, b: 'two' },
      ],
    },
    sys,
  )
  const view = await t.ok(
    'resource_view_create',
    { resource_id: r2!.id, view_type: 'image_view', title: 'Pic', image_url: 'http://example.com/pic.png' },
    sys,
  )
  await t.ok('package_relationship_create', { subject: pub.id, object: priv.id, type: 'depends_on' }, sys)
  const task = await t.ok(
    'task_status_update',
    { entity_id: pub.id, entity_type: 'package', task_type: 'fuzz', key: 'k', value: 'v' },
    sys,
  )
  await t.ok('api_token_create', { user: other.name, name: 'fuzz token' }, sys)
  const tokens = (await t.ok('api_token_list', { user: other.name }, sys)) as Dict[]
  const activities = (await t.ok('package_activity_list', { id: pub.id }, sys)) as Dict[]
  const source = await t.ok(
    'harvest_source_create',
    { name: uniq('fz-src'), url: `http://example.com/${uniq('catalogue')}`, source_type: 'ckan', owner_org: org.id },
    sys,
  )
  const harvestJob = await t.ok('harvest_job_create', { source_id: source.id, run: false }, sys)
  const ids = (...objs: Dict[]) => objs.flatMap((o) => [o.id, o.name].filter(Boolean) as string[])
  return {
    dataset: ids(pub, priv),
    resource: [r1!.id, r2!.id] as string[],
    table: [r1!.id as string],
    org: ids(org),
    group: ids(group),
    user: ids(other),
    vocab: ids(vocab),
    tag: ['fz-tag', 'fz-genre'],
    view: [view.id],
    activity: activities.slice(0, 2).map((a) => a.id as string),
    task: [task.id],
    token: tokens.map((tk) => tk.id as string),
    harvest: [...ids(source), harvestJob.id],
  }
}

/** Whether the fixtures still stand (a fuzzed delete or purge may have succeeded). */
export async function fixturesStand(t: TestEnv, sys: Caller, p: Pool): Promise<boolean> {
  const active = async (action: string, params: Dict) => {
    const r = await t.call(action, params, sys)
    return r.status === 200 && r.body.success && (r.body.result.state ?? 'active') === 'active'
  }
  const checks: [string, Dict][] = [
    ['package_show', { id: p.dataset[0] }],
    ['package_show', { id: p.dataset[2] }],
    ['resource_show', { id: p.resource[1] }],
    ['datastore_search', { resource_id: p.table[0], limit: 0 }],
    ['organization_show', { id: p.org[0] }],
    ['group_show', { id: p.group[0] }],
    ['user_show', { id: p.user[0] }],
    ['vocabulary_show', { id: p.vocab[0] }],
    ['resource_view_show', { id: p.view[0] }],
    ['harvest_source_show', { id: p.harvest[0] }],
  ]
  for (const [action, params] of checks) if (!(await active(action, params))) return false
  return true
}

/** The kind of object an action is about, from its name: what its `id` most likely names. */
export function kindOf(action: string): keyof Pool | undefined {
  const rules: [RegExp, keyof Pool][] = [
    [/harvest/, 'harvest'],
    [/resource_view/, 'view'],
    [/datastore|xloader|datapusher/, 'table'],
    [/resource/, 'resource'],
    [/package|dataset/, 'dataset'],
    [/organization/, 'org'],
    [/group|member/, 'group'],
    [/api_token/, 'token'],
    [/user/, 'user'],
    [/vocabulary/, 'vocab'],
    [/tag/, 'tag'],
    [/activity/, 'activity'],
    [/task_status/, 'task'],
  ]
  return rules.find(([re]) => re.test(action))?.[1]
}

/** A documented parameter: its type (`:type`) and whether its text says it is optional. */
export interface Documented {
  type: string
  optional: boolean
}

/** The `:param key:` and `:type key:` lines of an action's help: its documented parameters. */
export function documentedParams(help: string): Map<string, Documented> {
  const out = new Map<string, Documented>()
  for (const m of help.matchAll(/^:param ([\w.]+):([\s\S]*?)(?=^:|(?![\s\S]))/gm))
    out.set(m[1]!, { type: 'string', optional: /optional/i.test(m[2]!) })
  for (const m of help.matchAll(/^:type ([\w.]+): (.*)$/gm)) {
    const d = out.get(m[1]!) ?? { type: 'string', optional: true }
    out.set(m[1]!, { ...d, type: m[2]!.trim() })
  }
  return out
}

const text = fc.oneof(
  fc.constantFrom('A title', 'some notes', 'fuzz', 'Ünïcödé ✓', 'x'),
  fc.string({ maxLength: 30 }),
)
const freshName = fc.stringMatching(/^fz-[a-z0-9_-]{3,12}$/)
const smallInt = fc.oneof(fc.nat(20), fc.constantFrom(0, 1, 100, 1000), fc.nat(20).map(String))
const bool = fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 'True', '1', '0', 'yes', 'on'))

/**
 * Values of a parameter by its name, for action `action`: ids and names of the fixture objects
 * it is about, valid-looking values of the usual CKAN parameters, then by its documented type.
 * `pool` is read at each draw, so recreated fixtures are used at once.
 */
export function valuesFor(
  action: string,
  pool: () => Pool,
  documented: Map<string, Documented>,
  generic: fc.Arbitrary<unknown>,
): (key: string | undefined) => fc.Arbitrary<unknown> {
  const of = (kind: keyof Pool) => fc.nat().map((i) => {
    const list = pool()[kind]
    return list.length ? list[i % list.length]! : 'missing'
  })
  const anyId = fc.constantFrom(...(Object.keys(pool()) as (keyof Pool)[])).chain(of)
  const kind = kindOf(action)
  const creates = /_create$|_update$|_patch$|_invite$/.test(action)
  const own = kind ? fc.oneof({ arbitrary: of(kind), weight: 4 }, { arbitrary: anyId, weight: 1 }) : anyId
  const datasets = fc.oneof(of('dataset'), anyId)
  const record = fc.record(
    { a: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.nat(3).map(String)), b: text },
    { requiredKeys: [] },
  )
  const byName: Record<string, fc.Arbitrary<unknown>> = {
    id: own,
    name: creates ? fc.oneof(freshName, own) : own,
    title: text,
    notes: text,
    description: text,
    about: text,
    fullname: text,
    comment: text,
    display_name: text,
    email: fc.oneof(fc.constantFrom('fz@example.com', 'fz+1@example.org'), text),
    password: fc.constantFrom('password123', 'short', 'longer password 123'),
    url: fc.constantFrom('http://example.com/data.csv', 'https://example.com/x.json', 'ftp://x', ''),
    image_url: fc.constantFrom('http://example.com/pic.png', ''),
    state: fc.constantFrom('active', 'deleted', 'draft', 'pending'),
    capacity: fc.constantFrom('member', 'editor', 'admin', 'public', 'private'),
    role: fc.constantFrom('member', 'editor', 'admin'),
    permission: fc.constantFrom('read', 'manage_group', 'create_dataset'),
    type: fc.constantFrom('dataset', 'depends_on', 'child_of', 'links_to', 'organization', 'group'),
    object_type: fc.constantFrom('user', 'package'),
    entity_type: fc.constantFrom('package', 'resource', 'group', 'user'),
    entity_id: anyId,
    task_type: fc.constantFrom('fuzz', 'qa'),
    key: fc.constantFrom('k', 'openness_score', 'fz-extra'),
    value: text,
    limit: smallInt,
    offset: smallInt,
    rows: smallInt,
    start: smallInt,
    page: smallInt,
    q: fc.oneof(text, fc.constantFrom('fuzz', 'name:fz*', 'tags:fz-tag', 'a:1', '*:*')),
    query: text,
    fq: fc.constantFrom('tags:fz-tag', 'organization:x', '+state:active', 'private:true'),
    sort: fc.constantFrom('name asc', 'metadata_modified desc', 'score desc, name asc', 'a', 'a desc', '_id'),
    order_by: fc.constantFrom('name', 'package_count', 'title', 'created'),
    resource_id: fc.oneof(of('table'), of('resource')),
    package_id: datasets,
    source_id: fc.oneof(of('harvest'), anyId),
    dataset_id: datasets,
    dataset: datasets,
    package: datasets,
    subject: datasets,
    object: fc.oneof(of('dataset'), of('user'), of('group')),
    owner_org: fc.oneof(of('org'), fc.constant(null)),
    org_id: of('org'),
    organization_id: of('org'),
    group_id: of('group'),
    group: of('group'),
    user: of('user'),
    user_id: of('user'),
    username: of('user'),
    vocabulary_id: of('vocab'),
    view_id: of('view'),
    view_type: fc.constantFrom('image_view', 'webpage_view', 'text_view', 'datatables_view', 'no_view'),
    view_types: fc.constantFrom(['image_view'], ['datatables_view', 'text_view']),
    jti: of('token'),
    tags: fc.array(
      fc.oneof(
        of('tag').map((name) => ({ name })),
        fc.tuple(of('tag'), of('vocab')).map(([name, vocabulary_id]) => ({ name, vocabulary_id })),
        freshName.map((name) => ({ name })),
      ),
      { maxLength: 3 },
    ),
    groups: fc.array(of('group').map((id) => ({ id })), { maxLength: 2 }),
    extras: fc.array(fc.record({ key: fc.constantFrom('fz-extra', 'k2'), value: text }), { maxLength: 2 }),
    resources: fc.array(
      fc.record(
        { url: fc.constantFrom('http://example.com/r.csv', ''), name: text, format: fc.constantFrom('CSV', 'JSON', '') },
        { requiredKeys: [] },
      ),
      { maxLength: 2 },
    ),
    users: fc.array(fc.record({ name: of('user'), capacity: fc.constantFrom('member', 'admin') }), {
      maxLength: 2,
    }),
    records: fc.array(record, { maxLength: 3 }),
    fields: fc.oneof(
      fc.array(
        fc.record({ id: fc.constantFrom('a', 'b', 'c'), type: fc.constantFrom('int', 'text', 'numeric', 'timestamp', 'json') }),
        { maxLength: 3 },
      ),
      fc.constantFrom('a', 'a,b', ['a', 'b'], '_id'),
    ),
    filters: fc.oneof(record, fc.constantFrom({ a: [1, 2] }, { b: 'one' }, '{"a": 1}')),
    primary_key: fc.constantFrom('a', ['a', 'b'], 'b', ''),
    indexes: fc.constantFrom('b', ['a', 'b'], ''),
    method: fc.constantFrom('upsert', 'insert', 'update'),
    sql: of('table').chain((id) =>
      fc.constantFrom(
        `SELECT * FROM "${id}"`,
        `SELECT count(*) FROM "${id}" WHERE a > 1`,
        `SELECT b FROM "${id}" ORDER BY a DESC LIMIT 1`,
      ),
    ),
    force: bool,
    private: bool,
    include_private: bool,
    all_fields: bool,
    lang_code: fc.constantFrom('en', 'de', 'pt_BR'),
    term: text,
    term_translation: text,
    rating: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constantFrom('3', '2.5')),
    rel: fc.constantFrom('depends_on', 'child_of'),
    id2: datasets,
  }
  return (key) => {
    if (key === undefined) return fc.oneof(own, text, generic)
    if (Object.hasOwn(byName, key)) return byName[key]!
    const doc = documented.get(key)?.type ?? ''
    if (/^int/.test(doc)) return smallInt
    if (/^bool/.test(doc)) return bool
    if (/^list of strings/.test(doc) || doc === 'list or comma separated string')
      return fc.array(fc.oneof(own, text), { maxLength: 3 })
    if (/^list of .*dict/.test(doc)) return fc.array(fc.dictionary(fc.string({ maxLength: 6 }), text, { maxKeys: 2 }), { maxLength: 2 })
    if (/^dict/.test(doc)) return fc.dictionary(fc.string({ maxLength: 6 }), text, { maxKeys: 3 })
    if (/date/.test(doc)) return fc.constantFrom('2024-01-02T03:04:05', '2024-01-02', 'yesterday')
    if (/^include_|^all_|^is_/.test(key)) return bool
    if (/_id$/.test(key)) return anyId
    return fc.oneof({ arbitrary: text, weight: 3 }, { arbitrary: own, weight: 2 }, numericExtreme, generic)
  }
}
