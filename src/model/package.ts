// Dataset reads: rows by id or name, and package_show dicts built in batches and cached per process.
import { and, asc, eq, inArray, or } from 'drizzle-orm'
import {
  groups,
  members,
  packageExtras,
  packageRelationships,
  packageTags,
  packages,
  resources,
  tags,
} from '../db/schema'
import { readMany } from '../db/executor'
import { rowFromDriver } from '../db/raw-insert'
import type { ActionContext } from '../context'
import { NotFound, ValidationError } from '../errors'
import { MISSING } from '../validation/fields'
import { assemblePackageDict, groupEntry, organizationEntry, relationshipEntry } from './package-dict'
import { asciiJson, immutableJson, markImmutable } from '../lib/json'
import { dictFingerprint, readStoredDicts } from './package-json'

export type PackageRow = typeof packages.$inferSelect

/** What the read and edit rules (auth/package.ts) look at. */
export interface PackageAuthInfo {
  id: string
  owner_org: string | null
  private: boolean
  state: string
  creator_user_id: string | null
}

export type PackageDict = Record<string, unknown> & {
  id: string
  name: string
  resources: Record<string, unknown>[]
}

const PACKAGE_COLUMNS = [
  'id',
  'name',
  'title',
  'type',
  'owner_org',
  'private',
  'state',
  'author',
  'author_email',
  'maintainer',
  'maintainer_email',
  'license_id',
  'notes',
  'url',
  'version',
  'creator_user_id',
  'metadata_created',
  'metadata_modified',
] as const

/** The row of a dataset, as the columns appear in its dict. */
export function rowFromDict(d: Record<string, unknown>): PackageRow {
  const row: Record<string, unknown> = {}
  for (const k of PACKAGE_COLUMNS) row[k] = d[k] ?? null
  return row as PackageRow
}

/** The dataset with this id or name (ids tried first), or undefined. Not memoised. */
export async function findPackage(ctx: ActionContext, idOrName: string): Promise<PackageRow | undefined> {
  const cached =
    ctx.caches.packages.get(idOrName) ??
    ctx.caches.packages.get(ctx.caches.packageNames.get(idOrName) ?? '')
  // A name link is trusted only while the dict it points to still carries that name.
  if (cached && (cached.id === idOrName || cached.name === idOrName)) return rowFromDict(cached.dict)
  // plain SQL (a prepared statement on Node) rather than the query builder: every DataStore read
  // of a dataset not in the dict cache comes here for its authorization
  const rows = (await ctx.read('SELECT * FROM package WHERE id = ? OR name = ? LIMIT 2', [idOrName, idOrName])).map(
    (r) => rowFromDriver<PackageRow>(packages, r),
  )
  return rows.find((r) => r.id === idOrName) ?? rows[0]
}

/**
 * The dataset named by a raw parameter value; memoised per request. Throws a Validation Error
 * (`field`: Missing value) when absent and NotFound (`notFound` detail) when unknown.
 */
export function loadPackage(
  ctx: ActionContext,
  idOrName: unknown,
  opts: { field?: string; notFound?: string } = {},
): Promise<PackageRow> {
  if (idOrName === undefined || idOrName === null || idOrName === '' || typeof idOrName === 'object') {
    throw new ValidationError({ [opts.field ?? 'id']: [MISSING] })
  }
  const key = `package:${String(idOrName)}`
  let p = ctx.memo.get(key) as Promise<PackageRow> | undefined
  if (!p) {
    p = findPackage(ctx, String(idOrName)).then((row) => {
      if (!row) throw new NotFound(opts.notFound)
      return row
    })
    ctx.memo.set(key, p)
    p.catch(() => ctx.memo.delete(key))
  }
  return p
}

/** Forgets what this request memoised about datasets (after it wrote them). */
export function forgetPackages(ctx: ActionContext) {
  for (const k of [...ctx.memo.keys()]) if (k.startsWith('package:')) ctx.memo.delete(k)
}

/**
 * package_show dicts for these ids (unknown ids are absent from the map). `cache: false` (the
 * search index reading what it re-indexes): dicts already cached are used, new ones are not kept,
 * so indexing a bulk load does not push out the dicts that reads use.
 */
export async function packageDicts(
  ctx: ActionContext,
  ids: string[],
  opts: { cache?: boolean } = {},
): Promise<Map<string, PackageDict>> {
  const out = new Map<string, PackageDict>()
  const missing: string[] = []
  for (const id of ids) {
    const c = ctx.caches.packages.get(id)
    if (c) out.set(id, c.dict as PackageDict)
    else missing.push(id)
  }
  if (!missing.length) return out
  const generation = ctx.caches.packageGeneration
  const wanted = [...new Set(missing)]
  // A write may have landed while we read: only cache what is still current.
  const keep = (id: string, dict: PackageDict) => {
    out.set(id, dict)
    if (opts.cache !== false && generation === ctx.caches.packageGeneration) {
      markImmutable(dict)
      ctx.caches.packages.set(id, { id, name: dict.name, dict })
      ctx.caches.packageNames.set(dict.name, id)
      return true
    }
    return false
  }
  // the dicts stored ready in the database (package-json.ts), then the rest assembled from rows
  const stored = await readStoredDicts(ctx, wanted)
  for (const [id, dict] of stored) keep(id, dict)
  const rest = stored.size ? wanted.filter((id) => !stored.has(id)) : wanted
  if (!rest.length) return out
  const { dicts: built, head } = await buildPackageDicts(ctx, rest)
  // (not while indexing: a search shard's object builds from many datasets and never flushes)
  const refills = opts.cache !== false ? ctx.dictRefills : undefined
  const fp = refills ? dictFingerprint(ctx) : ''
  for (const [id, dict] of built) {
    const shared = keep(id, dict)
    // ...and offered to the database for next time, with the head of the snapshot they came from
    if (refills?.wants()) refills.add({ id, fp, text: shared ? immutableJson(dict) : asciiJson(dict), seq: head })
  }
  return out
}

export async function packageDict(ctx: ActionContext, id: string): Promise<PackageDict> {
  const d = (await packageDicts(ctx, [id])).get(id)
  if (!d) throw new NotFound()
  return d
}

const byKey = <T, K>(rows: T[], key: (r: T) => K) => {
  const m = new Map<K, T[]>()
  for (const r of rows) {
    const k = key(r)
    const list = m.get(k)
    if (list) list.push(r)
    else m.set(k, [r])
  }
  return m
}

/**
 * The dicts of these datasets assembled from their rows (never the stored ones), and the
 * change-log head of that snapshot.
 */
export async function buildPackageDicts(
  ctx: ActionContext,
  ids: string[],
): Promise<{ dicts: Map<string, PackageDict>; head: number }> {
  const siteUrl = ctx.config.str('service.site_url')
  // One read transaction (one round trip where the database is remote), plain SQL: the query
  // builder and the client's row objects cost more than the reads (6 ms for 10 cold dicts).
  const marks = ids.map(() => '?').join(', ')
  const [pkgRaw, orgRaw, resRaw, tagRaw, extraRaw, groupRaw, relRaw, headRaw] = await readMany(ctx.read, ctx.db.$client, [
    { sql: `SELECT * FROM package WHERE id IN (${marks})`, args: ids },
    {
      sql: `SELECT * FROM "group" WHERE id IN (SELECT owner_org FROM package WHERE id IN (${marks})) AND state = 'active'`,
      args: ids,
    },
    {
      sql: `SELECT * FROM resource WHERE package_id IN (${marks}) AND state = 'active' ORDER BY position`,
      args: ids,
    },
    {
      sql:
        'SELECT package_tag.package_id AS package_id, tag.id AS id, tag.name AS name, tag.vocabulary_id AS vocabulary_id ' +
        `FROM package_tag JOIN tag ON tag.id = package_tag.tag_id WHERE package_tag.package_id IN (${marks}) AND package_tag.state = 'active'`,
      args: ids,
    },
    { sql: `SELECT * FROM package_extra WHERE package_id IN (${marks}) AND state = 'active'`, args: ids },
    {
      sql:
        'SELECT member.table_id AS package_id, "group".id AS id, "group".name AS name, "group".title AS title, ' +
        '"group".description AS description, "group".image_url AS image_url FROM member JOIN "group" ON "group".id = member.group_id ' +
        `WHERE member.table_id IN (${marks}) AND member.table_name = 'package' AND member.state = 'active' ` +
        `AND "group".is_organization = 0 AND "group".state = 'active'`,
      args: ids,
    },
    {
      // in the order they were written, as a write's own plan lists them (kept ones first)
      sql: `SELECT * FROM package_relationship WHERE (subject_package_id IN (${marks}) OR object_package_id IN (${marks})) AND state = 'active' ORDER BY rowid`,
      args: [...ids, ...ids],
    },
    // what this snapshot covers: a dict stored later must not predate a change after it
    { sql: 'SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1', args: [] },
  ])
  const pkgRows = pkgRaw!.map((r) => rowFromDriver<typeof packages.$inferSelect>(packages, r))
  const orgRows = orgRaw!.map((r) => rowFromDriver<typeof groups.$inferSelect>(groups, r))
  const resRows = resRaw!.map((r) => rowFromDriver<typeof resources.$inferSelect>(resources, r))
  const tagRows = tagRaw!.map((r) => ({
    package_id: String(r.package_id),
    id: String(r.id),
    name: String(r.name),
    vocabulary_id: String(r.vocabulary_id),
  }))
  const extraRows = extraRaw!.map((r) => rowFromDriver<typeof packageExtras.$inferSelect>(packageExtras, r))
  const groupRows = groupRaw!.map((r) => ({
    package_id: String(r.package_id),
    id: String(r.id),
    name: String(r.name),
    title: String(r.title),
    description: String(r.description),
    image_url: String(r.image_url),
  }))
  const relRows = relRaw!.map((r) => rowFromDriver<typeof packageRelationships.$inferSelect>(packageRelationships, r))
  const orgs = new Map(orgRows.map((o) => [o.id, o]))
  const resBy = byKey(resRows, (r) => r.package_id)
  const tagBy = byKey(tagRows, (r) => r.package_id)
  const extraBy = byKey(extraRows, (r) => r.package_id)
  const groupBy = byKey(groupRows, (r) => r.package_id)

  const out = new Map<string, PackageDict>()
  for (const p of pkgRows) {
    const org = p.owner_org ? orgs.get(p.owner_org) : undefined
    const rels = relRows.map(relationshipEntry)
    const dict = assemblePackageDict(ctx, {
      row: p,
      resources: resBy.get(p.id) ?? [],
      tags: tagBy.get(p.id) ?? [],
      extras: extraBy.get(p.id) ?? [],
      groups: (groupBy.get(p.id) ?? []).map((g) => groupEntry(g, siteUrl)),
      organization: organizationEntry(org),
      relationshipsAsSubject: rels.filter((r) => r.subject_package_id === p.id),
      relationshipsAsObject: rels.filter((r) => r.object_package_id === p.id),
    })
    out.set(p.id, dict)
  }
  return { dicts: out, head: Number(headRaw![0]?.seq ?? 0) }
}
