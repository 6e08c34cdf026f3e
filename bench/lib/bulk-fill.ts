// Fills a migrated catalogue with generated organizations and datasets fast: package_create's rows, in large batches.
import type { RawStatement, WriteExecutor } from '../../src/db/executor'
import { rawInsert } from '../../src/db/raw-insert'
import {
  changeLog,
  groups,
  members,
  packageExtras,
  packageTags,
  packages,
  resources,
  tags,
} from '../../src/db/schema'
import { changeRow } from '../../src/model/changes'
import { mergeResource } from '../../src/model/resource-merge'
import { corpus, dataset } from './generate'

/** Datasets per transaction. */
const BATCH = 2000
/** Rows per multi-row INSERT (the widest table has 21 columns: well under SQLite's 32,766 variables). */
const ROWS_PER_INSERT = 250

export interface FillOptions {
  /** Creator of every dataset and admin of every organization (as organization_create makes it). */
  adminId: string
  orgCount?: number
  seed?: number
  /** More extras for dataset i (the spatial benchmark's geometries). */
  extras?: (i: number) => { key: string; value: string }[]
}

export interface FillResult {
  datasets: number
  orgs: { id: string; name: string }[]
  rows: number
  seconds: number
  /** Of which: generating dicts and rows in JS, and running the INSERTs. */
  generateSeconds: number
  writeSeconds: number
}

/** `YYYY-MM-DDTHH:MM:SS.ffffff`, as ctx.now() writes it. */
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 23) + '000'

function inserts(table: Parameters<typeof rawInsert>[0], rows: Record<string, unknown>[], out: RawStatement[], opts = {}) {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    out.push(rawInsert(table, rows.slice(i, i + ROWS_PER_INSERT), opts))
}

/**
 * Writes `n` datasets with the rows package_create writes for them (package, resource, tag,
 * package_tag, package_extra, one change_log row each; no activity rows), owned by `orgCount`
 * organizations written as organization_create writes them (group, admin member, change_log).
 * Dataset i is `dataset(corpus(seed), i, orgIds)`; metadata_created is one minute apart, ending now.
 */
export async function bulkFill(write: WriteExecutor, n: number, opts: FillOptions): Promise<FillResult> {
  const orgCount = opts.orgCount ?? 200
  const started = performance.now()
  let writeMs = 0
  let rowCount = 0
  const run = async (stmts: RawStatement[]) => {
    const t = performance.now()
    await write(stmts)
    writeMs += performance.now() - t
  }

  const created = stamp(Date.now() - (n + 1) * 60_000)
  const orgs = Array.from({ length: orgCount }, (_, i) => ({ id: crypto.randomUUID(), name: `org-${i}` }))
  const orgStmts: RawStatement[] = []
  inserts(
    groups,
    orgs.map((o, i) => ({
      id: o.id,
      name: o.name,
      title: `Organization ${i}`,
      description: '',
      image_url: '',
      type: 'organization',
      is_organization: true,
      approval_status: 'approved',
      state: 'active',
      created,
    })),
    orgStmts,
  )
  inserts(
    members,
    orgs.map((o) => ({
      id: crypto.randomUUID(),
      group_id: o.id,
      table_id: opts.adminId,
      table_name: 'user',
      capacity: 'admin',
      state: 'active',
    })),
    orgStmts,
  )
  inserts(changeLog, orgs.map((o) => changeRow('group', o.id)), orgStmts)
  rowCount += orgs.length * 3
  await run(orgStmts)

  const c = corpus(opts.seed ?? 7)
  const orgIds = orgs.map((o) => o.id)
  const tagIds = new Map<string, string>()
  const base = Date.now() - n * 60_000
  for (let from = 0; from < n; from += BATCH) {
    const rows = { pkg: [] as object[], res: [] as object[], tag: [] as object[], pt: [] as object[], extra: [] as object[], log: [] as object[] }
    for (let i = from; i < Math.min(n, from + BATCH); i++) {
      const d = dataset(c, i, orgIds)
      const id = crypto.randomUUID()
      const now = stamp(base + i * 60_000)
      rows.pkg.push({
        id,
        name: d.name,
        title: d.title,
        type: 'dataset',
        owner_org: d.owner_org ?? null,
        private: false,
        state: 'active',
        author: null,
        author_email: null,
        maintainer: null,
        maintainer_email: null,
        license_id: d.license_id,
        notes: d.notes,
        url: null,
        version: null,
        creator_user_id: opts.adminId,
        metadata_created: now,
        metadata_modified: now,
      })
      d.resources.forEach((r, position) =>
        rows.res.push(
          mergeResource(
            undefined,
            { core: { ...r }, extras: {}, clearUpload: false, hasId: false },
            { id: crypto.randomUUID(), packageId: id, position, now },
          ),
        ),
      )
      for (const t of d.tags) {
        let tagId = tagIds.get(t.name)
        if (!tagId) {
          tagIds.set(t.name, (tagId = crypto.randomUUID()))
          rows.tag.push({ id: tagId, name: t.name, vocabulary_id: '' })
        }
        rows.pt.push({ id: crypto.randomUUID(), package_id: id, tag_id: tagId, state: 'active' })
      }
      for (const e of [...d.extras, ...(opts.extras?.(i) ?? [])]) rows.extra.push({ id: crypto.randomUUID(), package_id: id, key: e.key, value: e.value })
      rows.log.push(changeRow('package', id))
    }
    const stmts: RawStatement[] = []
    inserts(packages, rows.pkg as Record<string, unknown>[], stmts)
    inserts(resources, rows.res as Record<string, unknown>[], stmts)
    inserts(tags, rows.tag as Record<string, unknown>[], stmts, { onConflictDoNothing: true })
    inserts(packageTags, rows.pt as Record<string, unknown>[], stmts)
    inserts(packageExtras, rows.extra as Record<string, unknown>[], stmts)
    inserts(changeLog, rows.log as Record<string, unknown>[], stmts)
    rowCount += Object.values(rows).reduce((s, r) => s + r.length, 0)
    await run(stmts)
  }
  const seconds = (performance.now() - started) / 1000
  return {
    datasets: n,
    orgs,
    rows: rowCount,
    seconds,
    writeSeconds: writeMs / 1000,
    generateSeconds: seconds - writeMs / 1000,
  }
}
