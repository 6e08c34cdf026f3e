// `npm run bench`: runs every benchmark and prints its figures beside the baselines.
import { pagesBench } from './pages'
import { changesBench } from './changes'
import { validatorsBench } from './validators'
import os from 'node:os'
import { catalogueBench } from './catalogue'
import { datastoreBench } from './datastore'
import { searchBench } from './search'
import { printWorkerRows, workerBench } from './worker'
import { scaleOutBench } from './scale-out'
import { dashboardBench } from './dashboard'
import { loaderBench } from './loader'
import { uploadBench } from './upload'
import { scaleBench } from './scale'
import { harvestBench } from './harvest'
import { spatialBench } from './spatial'

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const pct = (r: number) => `${(r * 100).toFixed(1)}%`

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, Node ${process.version}`)
// BENCH_ONLY=catalogue|search|spatial|datastore|worker|dashboard|pages|changes|validators runs one of them. Changes: BENCH_CHANGES_DATASETS
// (100000), BENCH_CHANGES_REQUESTS (50). Pages: BENCH_PAGES_DATASETS (10000),
// BENCH_PAGES_REQUESTS (300). Worker: BENCH_WORKER_CALLS (200),
// BENCH_WORKER_DATASETS (200), BENCH_WORKER_DIR (another checkout's Worker, for before/after). DataStore: BENCH_DS_ROWS (default 1000000),
// BENCH_DS_REQUESTS (50). Search: BENCH_SEARCH_SIZES (default 10000,100000),
// BENCH_SEARCH_QUERIES (300), BENCH_SEARCH_WARMUP (120), BENCH_SEARCH_NO_SNAPSHOT_MAX (10000), BENCH_KEEP_DB.
// BENCH_ONLY=usage (part of the default run): package_show and package_search with usage figures counted and not
// (BENCH_USAGE_DATASETS 10000, BENCH_USAGE_SECONDS 8 a round, BENCH_USAGE_ROUNDS 3 of each), and the flush (BENCH_USAGE_FLUSH 10000 objects).
// BENCH_ONLY=webhooks (not part of the default run): BENCH_WEBHOOK_SUBSCRIBERS (1000) webhooks × BENCH_WEBHOOK_CHANGES (1000)
// dataset events delivered to a local receiver, beside the same signed POSTs from one loop (bench/webhooks.ts).
// BENCH_ONLY=profile (not part of the default run): the column profile job over BENCH_DS_ROWS rows, its time and peak RSS.
// BENCH_ONLY=versions (not part of the default run): table versions over BENCH_DS_ROWS rows (bench/datastore-versions.ts).
// BENCH_ONLY=aggregate (not part of the default run): datastore_search with group_by and aggregates over HTTP beside the
// same SQL on raw libSQL; BENCH_DS_ROWS (1000000), BENCH_AGG_REQUESTS (20).
// BENCH_ONLY=backup (not part of the default run): backup and restore of 100,000 datasets and a 1,000,000-row table (bench/backup.ts).
// BENCH_ONLY=search-tier: only the second half of the worker bench, the Worker with its search index in the isolate or in Durable Objects (bench/search-tier.ts).
// BENCH_ONLY=scale-out (not part of the default run: it starts sqld and up to four servers):
// BENCH_SCALE_DATASETS (2000), BENCH_SCALE_SECONDS (3 per slice), BENCH_SCALE_ROUNDS (3), BENCH_SCALE_REPLICAS (1,2,3),
// BENCH_SCALE_TRIALS (20), BENCH_SCALE_SYNC_INTERVAL (0.25 s), BENCH_CONNECTIONS (50).
// BENCH_ONLY=loader: BENCH_LOADER_ROWS (1000000 rows, ~212 MB of CSV in a temp file), BENCH_LOADER_TIMEOUT_S (3600),
// BENCH_KEEP_DB. BENCH_ONLY=upload: BENCH_UPLOAD_MB (1024 MiB, made on the fly; the server stores it in a temp dir).
// BENCH_ONLY=scale (part of the default run): BENCH_SCALE_SIZES (10000,100000,300000; one catalogue grown through
// package_create to each size in turn), BENCH_SCALE_CLIENTS (16 concurrent creates), BENCH_SCALE_QUERIES (600 per
// search mix), BENCH_SCALE_WARMUP (60), BENCH_SCALE_SEARCH_EVERY (1000: a package_search after that many creates),
// BENCH_SCALE_HEAPSNAPSHOT_MAX (0: sizes up to it also summarise a heap snapshot of the restored index), BENCH_KEEP_DB,
// BENCH_SCALE_RESTART (quiet: the second process starts once the grown one has snapshotted its index; crash: at once).
const only = process.env.BENCH_ONLY
if (!only || only === 'catalogue') {
  console.log('\n# 1. catalogue: package_show and package_create over HTTP (real Node server, loopback)')
  const r = await catalogueBench()
  console.log(`trivial JSON route (GET /api/3):   ${fmt(r.trivial.rps)} req/s  p50 ${r.trivial.p50} ms  p99 ${r.trivial.p99} ms`)
  console.log(`package_show (anonymous GET):       ${fmt(r.show.rps)} req/s  p50 ${r.show.p50} ms  p99 ${r.show.p99} ms  errors ${r.show.errors + r.show.non2xx}`)
  console.log(`  package_show / trivial route:     ${pct(r.showRatio)}   (target ≥ 35%: ${r.showRatio >= 0.35 ? 'met' : 'NOT met'})`)
  console.log(`package_create (${process.env.BENCH_CREATE_CONNECTIONS ?? 16} clients), indexing included (${fmt(r.indexSeconds, 2)} s): ${fmt(r.createRate)} datasets/s  p50 ${r.created.p50} ms  p99 ${r.created.p99} ms  errors ${r.created.errors + r.created.non2xx}`)
  console.log(`raw libSQL (synchronous API, the same rows: activity, change log and stored dict included; a transaction per dataset): ${fmt(r.raw.rate)} datasets/s`)
  console.log(`  package_create / raw libSQL:      ${pct(r.createRatio)}   (target ≥ 90%: ${r.createRatio >= 0.9 ? 'met' : 'NOT met'})`)
}

if (!only || only === 'search') {
  const sizes = (process.env.BENCH_SEARCH_SIZES ?? '10000,100000').split(',').map((s) => Number(s.trim()))
  console.log('\n# 2. search: package_search over generated catalogues (fill, index, latency in-process and over HTTP, cold start, two processes)')
  await searchBench(sizes)
}

if (!only || only === 'spatial') {
  // BENCH_SPATIAL_DATASETS (100000), BENCH_SPATIAL_QUERIES (200 per class)
  console.log('\n# 2b. spatial: package_search with ext_bbox beside the same query without it, and the memory of the geometries')
  await spatialBench()
}

if (!only || only === 'datastore') {
  console.log('\n# 3. datastore: datastore_upsert load, datastore_search and the CSV dump over HTTP beside raw libSQL')
  await datastoreBench()
}

if (!only || only === 'usage') {
  console.log('\n# 3b. usage figures: package_show and package_search with tracking on beside off, and the flush (bench/usage.ts)')
  const { usageBench } = await import('./usage')
  await usageBench()
}

if (!only || only === 'worker') {
  console.log('\n# 4. worker: per-action latency under wrangler dev against loopback sqld, round trips per action')
  printWorkerRows(await workerBench())
  console.log('\n# 4b. worker: package_search with the index in the isolate or in Durable Objects (BENCH_TIER_SIZES, BENCH_TIER_SHARDS)')
  const { searchTierBench } = await import('./search-tier')
  await searchTierBench()
}

if (!only || only === 'dashboard') {
  // BENCH_DASH_ACTIVITIES (100000), BENCH_DASH_DATASETS (20000), BENCH_DASH_FOLLOWED (1000), BENCH_DASH_REQUESTS (300)
  console.log('\n# 6. dashboard: dashboard_activity_list in-process, one user following 1,000 datasets among 100,000 activities')
  const r = await dashboardBench()
  console.log(`fill: ${r.activities} activities over ${r.datasets} datasets in ${r.fillSeconds} s; first page ${r.firstPage.items} items, ${r.firstPage.fromFollowedDatasets} from followed datasets`)
  console.log(`first page:  p50 ${r.page1.p50.toFixed(2)} ms  p99 ${r.page1.p99.toFixed(2)} ms  SQL statements/request ${r.page1.sqlStatementsPerRequest}   (target p50 < ${r.targetP50} ms: ${r.met ? 'met' : 'NOT met'})`)
  console.log(`fourth page: p50 ${r.page4.p50.toFixed(2)} ms  p99 ${r.page4.p99.toFixed(2)} ms  SQL statements/request ${r.page4.sqlStatementsPerRequest}`)
  console.log(`plan:\n  ${r.plan.join('\n  ')}`)
}

if (!only || only === 'loader') {
  console.log('\n# 7. loader: a CSV uploaded with resource_create, loaded by the in-process job runner, beside raw libSQL')
  await loaderBench()
}

if (!only || only === 'upload') {
  console.log('\n# 8. upload: a large file up through resource_create and back from its download URL, server RSS')
  await uploadBench()
}

if (!only || only === 'scale') {
  const sizes = (process.env.BENCH_SCALE_SIZES ?? '10000,100000,300000').split(',').map((s) => Number(s.trim()))
  console.log('\n# 9. scale: one catalogue grown through package_create; RSS, heap, index and database bytes, search mix, restart')
  await scaleBench(sizes)
}

if (!only || only === 'pages') {
  console.log('\n# 10. pages: server render time of the web pages at 10,000 datasets (in-process) and their HTML size')
  await pagesBench()
}

if (!only || only === 'changes') {
  console.log('\n# 11. changes: changes_list pages of 1,000 changes at 100,000 datasets (in-process)')
  await changesBench()
}

if (!only || only === 'validators') {
  console.log('\n# 12. validators: package_show full answers against 304s (ETag) over HTTP')
  await validatorsBench()
}

if (only === 'profile') {
  console.log('\n# 3c. profile: the column profile job on the DataStore bench table (exact, and from the sample)')
  const { profileBench } = await import('./datastore-profile')
  await profileBench()
}

if (only === 'versions') {
  console.log('\n# 3d. versions: table versions, 1 % of the rows changed per version (history size, write cost, as_of search)')
  const { versionsBench } = await import('./datastore-versions')
  await versionsBench()
}

if (only === 'webhooks') {
  console.log('\n# 8. webhooks: fan-out of every dataset event to many subscribers, delivered to a local receiver')
  const { webhooksBench } = await import('./webhooks')
  await webhooksBench()
}

if (only === 'aggregate') {
  console.log('\n# 3b. aggregate: datastore_search with group_by and aggregates over HTTP beside the same grouping on raw libSQL')
  const { aggregateBench } = await import('./datastore-aggregate')
  await aggregateBench()
}

if (only === 'backup') {
  console.log('\n# backup: npm run admin -- backup and restore of a big catalogue on files (BENCH_BACKUP_DATASETS, BENCH_BACKUP_ROWS)')
  const { backupBench } = await import('./backup')
  await backupBench()
}

if (only === 'search-tier') {
  console.log('\n# search tier: package_search on the Worker with the index in the isolate or in Durable Objects (BENCH_TIER_SIZES, BENCH_TIER_SHARDS)')
  const { searchTierBench } = await import('./search-tier')
  await searchTierBench()
}

if (only === 'scale-out') {
  console.log('\n# 5. scale-out: package_show and package_search on 1-3 embedded-replica processes behind a round-robin proxy, beside one process on a file')
  await scaleOutBench()
}

if (!only || only === 'harvest') {
  // BENCH_HARVEST_DATASETS (10000), BENCH_HARVEST_CHANGES (100), BENCH_CREATE_CONNECTIONS (16)
  console.log('\n# 10. harvest: a ckan source (a second server) harvested from scratch, then after remote changes, beside package_create')
  const r = await harvestBench()
  console.log(`package_create (${r.packageCreate.clients} clients): ${fmt(r.packageCreate.rate)} datasets/s`)
  console.log(`the remote's own listing of them (package_search, pages of 1,000): ${r.remoteListingSeconds} s`)
  console.log(`full harvest of ${fmt(r.datasets)} datasets: ${r.full.seconds} s, ${fmt(r.full.rate)} datasets/s, peak RSS ${r.full.peakRssMb} MB`)
  console.log(`  full harvest / package_create:    ${pct(r.full.ratio)}   (target ≥ 50%: ${r.full.ratio >= 0.5 ? 'met' : 'NOT met'})`)
  console.log(`incremental run after ${r.changes} changes: ${r.incremental.seconds} s   (target < 10 s: ${r.incremental.seconds < 10 ? 'met' : 'NOT met'})`)
}
