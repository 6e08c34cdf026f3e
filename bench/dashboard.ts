// Benchmark 6: dashboard_activity_list of a user following 1,000 datasets among 100,000 activities.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import type { RawStatement } from '../src/db/executor'
import { rawInsert } from '../src/db/raw-insert'
import { activities, followers, groups, members, packages, users } from '../src/db/schema'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'

const ACTIVITIES = Number(process.env.BENCH_DASH_ACTIVITIES ?? 100_000)
const DATASETS = Number(process.env.BENCH_DASH_DATASETS ?? 20_000)
const FOLLOWED = Number(process.env.BENCH_DASH_FOLLOWED ?? 1_000)
const REQUESTS = Number(process.env.BENCH_DASH_REQUESTS ?? 300)
const USERS = 500
const ORGS = 100
const GROUPS = 50
const ROWS_PER_INSERT = 250
const RESULTS_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  'results',
  'dashboard-latest.json',
)
const TARGET_P50 = 20

/** A deterministic pseudo-random generator, so every run builds the same catalogue. */
function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 23) + '000'

/** The data of a dataset activity: a package_show dict about the size CKAN stores (~1.5 KB). */
function packageData(i: number, orgId: string, actor: string) {
  return JSON.stringify({
    package: {
      id: `pkg-${i}`,
      name: `dataset-${i}`,
      title: `Dataset number ${i}`,
      notes:
        'Monthly figures collected by the statistics office, with a description of the method.',
      owner_org: orgId,
      private: false,
      state: 'active',
      license_id: 'cc-by',
      metadata_created: '2024-01-01T00:00:00.000000',
      metadata_modified: '2024-06-01T00:00:00.000000',
      num_resources: 2,
      num_tags: 3,
      resources: [1, 2].map((r) => ({
        id: `res-${i}-${r}`,
        name: `File ${r}`,
        url: `http://example.com/data/${i}/${r}.csv`,
        format: 'CSV',
        description: 'The figures as a table.',
        position: r - 1,
        state: 'active',
      })),
      tags: ['economy', 'health', 'transport'].map((name) => ({
        name,
        display_name: name,
        state: 'active',
      })),
      groups: [],
      extras: [{ key: 'source', value: 'survey' }],
      organization: { id: orgId, name: 'org', title: 'Organization', is_organization: true },
    },
    actor,
  })
}

/** Fills users, organizations, groups, datasets, follows and activities with plain INSERTs. */
async function fill(write: (s: RawStatement[]) => Promise<void>) {
  const rand = rng(11)
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)]!
  const created = stamp(Date.now() - 400 * 86_400_000)
  const userRows = Array.from({ length: USERS }, (_, i) => ({
    id: crypto.randomUUID(),
    name: i === 0 ? 'dashboard-reader' : `user-${i}`,
    apikey: crypto.randomUUID(),
    sysadmin: false,
    state: 'active',
    created,
  }))
  userRows.push({
    id: crypto.randomUUID(),
    name: 'default',
    apikey: crypto.randomUUID(),
    sysadmin: true,
    state: 'active',
    created,
  })
  const reader = userRows[0]!
  const site = userRows[USERS]!
  const orgIds = Array.from({ length: ORGS }, () => crypto.randomUUID())
  const groupIds = Array.from({ length: GROUPS }, () => crypto.randomUUID())
  const stmts: RawStatement[] = []
  const add = (table: Parameters<typeof rawInsert>[0], rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
      stmts.push(rawInsert(table, rows.slice(i, i + ROWS_PER_INSERT)))
  }
  add(users, userRows)
  add(
    groups,
    [...orgIds, ...groupIds].map((id, i) => ({
      id,
      name: i < ORGS ? `org-${i}` : `group-${i}`,
      title: `Group ${i}`,
      is_organization: i < ORGS,
      type: i < ORGS ? 'organization' : 'group',
      state: 'active',
      created,
    })),
  )
  // the reader is a member of five organizations (so some private datasets are theirs to read)
  add(
    members,
    orgIds.slice(0, 5).map((g) => ({
      id: crypto.randomUUID(),
      group_id: g,
      table_id: reader.id,
      table_name: 'user',
      capacity: 'member',
      state: 'active',
    })),
  )
  const pkgs = Array.from({ length: DATASETS }, (_, i) => ({
    id: crypto.randomUUID(),
    name: `dataset-${i}`,
    title: `Dataset number ${i}`,
    owner_org: orgIds[i % ORGS]!,
    // one dataset in ten was made private after it was public
    private: i % 10 === 3,
    state: 'active',
    metadata_created: created,
    metadata_modified: created,
  }))
  add(packages, pkgs)
  add(
    members,
    pkgs
      .filter((_, i) => i % 4 === 0)
      .map((p, i) => ({
        id: crypto.randomUUID(),
        group_id: groupIds[i % GROUPS]!,
        table_id: p.id,
        table_name: 'package',
        capacity: 'public',
        state: 'active',
      })),
  )
  // the reader follows 1,000 datasets (one in every DATASETS / FOLLOWED), 20 users and 3 groups
  const followed = pkgs
    .filter((_, i) => i % Math.floor(DATASETS / FOLLOWED) === 0)
    .slice(0, FOLLOWED)
  const follows = [
    ...followed.map((p) => ({ object_id: p.id, object_type: 'dataset' })),
    ...userRows.slice(1, 21).map((u) => ({ object_id: u.id, object_type: 'user' })),
    ...groupIds.slice(0, 3).map((g) => ({ object_id: g, object_type: 'group' })),
  ]
  add(
    followers,
    follows.map((f) => ({ follower_id: reader.id, ...f, datetime: created })),
  )
  await write(stmts.splice(0))

  // Activities over the past year, oldest first: mostly dataset changes by many users, some by
  // the site user (hidden), some about users and groups.
  const start = Date.now() - 365 * 86_400_000
  const step = (365 * 86_400_000) / ACTIVITIES
  for (let from = 0; from < ACTIVITIES; from += 5000) {
    const rows: Record<string, unknown>[] = []
    for (let i = from; i < Math.min(ACTIVITIES, from + 5000); i++) {
      const r = rand()
      const actor = r < 0.02 ? site : pick(userRows)
      const ts = stamp(start + i * step)
      if (r < 0.9) {
        const n = Math.floor(rand() * DATASETS)
        const p = pkgs[n]!
        rows.push({
          id: crypto.randomUUID(),
          timestamp: ts,
          user_id: actor.id,
          object_id: p.id,
          activity_type: rand() < 0.2 ? 'new package' : 'changed package',
          data: packageData(n, p.owner_org, actor.name),
        })
      } else if (r < 0.95) {
        const u = pick(userRows)
        rows.push({
          id: crypto.randomUUID(),
          timestamp: ts,
          user_id: u.id,
          object_id: u.id,
          activity_type: 'changed user',
          data: '{}',
        })
      } else {
        const g = pick(groupIds)
        rows.push({
          id: crypto.randomUUID(),
          timestamp: ts,
          user_id: actor.id,
          object_id: g,
          activity_type: 'changed group',
          data: JSON.stringify({ group: { id: g, title: 'Group', name: 'g' } }),
        })
      }
    }
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
      stmts.push(rawInsert(activities, rows.slice(i, i + ROWS_PER_INSERT)))
    await write(stmts.splice(0))
  }
  const followedSet = new Set<string>(followed.map((p) => p.id))
  return { reader, followedSet }
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

export async function dashboardBench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-bench-dash-'))
  const opened = await openCatalogDb(`file:${join(dir, 'catalogue.db')}`)
  try {
    const t0 = performance.now()
    const { reader, followedSet } = await fill(opened.writeExecutor!)
    const fillSeconds = (performance.now() - t0) / 1000
    const deps = buildDeps(loadConfig({ 'service.site_id': 'default' }), opened.db, {
      headProbe: opened.headProbe,
      writeExecutor: opened.writeExecutor,
      readExecutor: opened.readExecutor,
    })
    // Keeps the page query's SQL to show its plan.
    let pageSql: { sql: string; args: unknown[] } | undefined
    let statements = 0
    const read = deps.read
    deps.read = (sql, args) => {
      statements++
      if (sql.includes(' UNION ')) pageSql = { sql, args: args ?? [] }
      return read(sql, args)
    }
    await warmUp(deps)
    const app = createApp(deps)
    const call = async (body: object) => {
      const t = performance.now()
      const res = await app.request('/api/3/action/dashboard_activity_list', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: reader.apikey },
        body: JSON.stringify(body),
      })
      const json = (await res.json()) as { success: boolean; result: { object_id: string }[] }
      const ms = performance.now() - t
      if (!json.success) throw new Error(JSON.stringify(json))
      return { ms, result: json.result }
    }
    const first = await call({})
    const fromFollowed = first.result.filter((a) => followedSet.has(a.object_id)).length
    for (let i = 0; i < 20; i++) await call({})
    const measure = async (body: object) => {
      const times: number[] = []
      for (let i = 0; i < REQUESTS; i++) times.push((await call(body)).ms)
      times.sort((a, b) => a - b)
      return { p50: percentile(times, 50), p99: percentile(times, 99) }
    }
    statements = 0
    const page1 = await measure({})
    const page1Statements = statements / REQUESTS
    statements = 0
    const page4 = await measure({ offset: 93, limit: 31 })
    const page4Statements = statements / REQUESTS
    const plan = pageSql
      ? (
          await opened.client.execute({
            sql: `EXPLAIN QUERY PLAN ${pageSql.sql}`,
            args: pageSql.args as never,
          })
        ).rows.map((r) => String(r.detail))
      : []
    const out = {
      date: new Date().toISOString(),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
      activities: ACTIVITIES,
      datasets: DATASETS,
      followedDatasets: FOLLOWED,
      fillSeconds: Number(fillSeconds.toFixed(1)),
      firstPage: { items: first.result.length, fromFollowedDatasets: fromFollowed },
      page1: { ...page1, sqlStatementsPerRequest: page1Statements },
      page4: { ...page4, sqlStatementsPerRequest: page4Statements },
      targetP50: TARGET_P50,
      met: page1.p50 < TARGET_P50,
      plan,
    }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    return out
  } finally {
    opened.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
