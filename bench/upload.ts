// Benchmark 8: a large file through the real Node server and back. BENCH_UPLOAD_MB MiB made on the
// fly (never whole in memory on either side) go up as a streamed multipart resource_create, then
// come back from the resource's download URL; the server's RSS is sampled before and during each,
// and the SHA-256 of what came back must equal that of what went up (and the server's ETag).
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { adminAndDataset } from './lib/ds-http'
import { procMemory, watchPeak } from './lib/rss'
import { startServer, type RunningServer } from './lib/server'
import { multipartAction } from './lib/upload'

const SIZE_MB = Number(process.env.BENCH_UPLOAD_MB ?? 1024)
const RSS_EVERY_MS = 100
const CHUNK = 256 * 1024
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'upload-latest.json')
const TARGETS = { riseMB: 50 }

const MB = 1e6
const MiB = 1024 * 1024
const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a'

type Log = (s: string) => void

/**
 * `bytes` bytes made on the fly: one random block, each chunk a fresh copy stamped with its
 * number (so no two chunks are alike), hashed as they go out.
 */
function* generated(bytes: number, hash: ReturnType<typeof createHash>): Generator<Uint8Array> {
  const block = randomBytes(CHUNK)
  for (let sent = 0, i = 0; sent < bytes; i++) {
    const chunk = Buffer.from(block.subarray(0, Math.min(CHUNK, bytes - sent)))
    chunk.writeUInt32BE(i, 0)
    hash.update(chunk)
    sent += chunk.length
    yield chunk
  }
}

async function* asAsync(it: Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* it
}

async function upload(server: RunningServer, key: string, packageId: string, bytes: number, name: string) {
  const hash = createHash('sha256')
  const up = await multipartAction(
    server.url,
    'resource_create',
    key,
    { package_id: packageId, name, format: 'BIN' },
    { name: `${name}.bin`, type: 'application/octet-stream', chunks: asAsync(generated(bytes, hash)) },
  )
  return { resource: up.result, ms: up.ms, sha256: hash.digest('hex') }
}

/** GET of the resource's URL (its origin swapped for the server's), read as a stream and hashed. */
async function download(server: RunningServer, url: string, key: string) {
  const target = new URL(new URL(url).pathname, server.url)
  const started = performance.now()
  const res = await fetch(target, { headers: { authorization: key } })
  if (res.status !== 200 || !res.body) throw new Error(`download: ${res.status} ${await res.text()}`)
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length
    hash.update(chunk)
  }
  return { ms: performance.now() - started, bytes, sha256: hash.digest('hex'), etag: res.headers.get('etag') }
}

export async function uploadBench(log: Log = console.log) {
  const bytes = Math.round(SIZE_MB * MiB)
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-upload-'))
  let server: RunningServer | undefined
  let serverDir = ''
  try {
    server = await startServer({
      SERVICE__MAX_RESOURCE_SIZE: String(Math.ceil(SIZE_MB) + 16),
      SERVICE__STORAGE_PATH: join(dir, 'uploads'),
    })
    serverDir = server.dir
    const pid = server.child.pid!
    const { key, packageId } = await adminAndDataset(server, 'upload-bench')
    // a small upload and download first: the code on both paths is loaded before the watch
    const warm = await upload(server, key, packageId, MiB, 'warm-up')
    await download(server, warm.resource.url, key)

    const upWatch = watchPeak(pid, RSS_EVERY_MS)
    const up = await upload(server, key, packageId, bytes, 'big')
    const upPeak = upWatch.stop()
    if (up.resource.size !== bytes) throw new Error(`stored size ${up.resource.size}, sent ${bytes}`)
    const upRise = (upPeak.peak - upWatch.before) / MB
    const upRate = bytes / MB / (up.ms / 1000)
    log(
      `upload ${fmt(bytes / MB)} MB: ${fmt(upRate, 1)} MB/s (${fmt(up.ms / 1000, 1)} s); server RSS ` +
        `${fmt(upWatch.before / MB)} MB before, max ${fmt(upPeak.peak / MB)} MB: rise ${fmt(upRise, 1)} MB` +
        (upPeak.kernelPeak ? '' : ' (sampled only)'),
    )

    const downWatch = watchPeak(pid, RSS_EVERY_MS)
    const down = await download(server, up.resource.url, key)
    const downPeak = downWatch.stop()
    const downRise = (downPeak.peak - downWatch.before) / MB
    const downRate = down.bytes / MB / (down.ms / 1000)
    const same = down.bytes === bytes && down.sha256 === up.sha256
    const etagOk = down.etag === `"${up.sha256}"`
    log(
      `download: ${fmt(downRate, 1)} MB/s (${fmt(down.ms / 1000, 1)} s); server RSS ${fmt(downWatch.before / MB)} MB ` +
        `before, max ${fmt(downPeak.peak / MB)} MB: rise ${fmt(downRise, 1)} MB; SHA-256 ` +
        `${same ? 'matches' : 'DIFFERS'}${etagOk ? ' (and the ETag)' : `, ETag ${down.etag}`}`,
    )
    if (!same) throw new Error(`downloaded ${down.bytes} bytes, sha256 ${down.sha256}; sent ${bytes}, ${up.sha256}`)
    const upOk = upRise < TARGETS.riseMB
    const downOk = downRise < TARGETS.riseMB
    log(
      `RSS rise: upload ${fmt(upRise, 1)} MB, download ${fmt(downRise, 1)} MB   (target < ${TARGETS.riseMB} MB: ` +
        `${upOk && downOk ? 'met' : 'NOT met'})`,
    )
    const cpus = os.cpus()
    const out = {
      date: new Date().toISOString(),
      machine: { cpus: cpus.length, model: cpus[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version },
      bytes,
      sha256: up.sha256,
      endMB: (procMemory(pid)?.rss ?? NaN) / MB,
      upload: { seconds: up.ms / 1000, MBps: upRate, beforeMB: upWatch.before / MB, maxMB: upPeak.peak / MB, riseMB: upRise, kernelPeak: upPeak.kernelPeak },
      download: { seconds: down.ms / 1000, MBps: downRate, beforeMB: downWatch.before / MB, maxMB: downPeak.peak / MB, riseMB: downRise, sha256Matches: same, etagMatches: etagOk },
      targets: TARGETS,
      met: { upload: upOk, download: downOk },
    }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    log(`figures written to ${RESULTS_FILE}`)
    return out
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop()
    for (const d of [dir, serverDir]) if (d) rmSync(d, { recursive: true, force: true })
  }
}
