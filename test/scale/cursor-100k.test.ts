// Scale: package_search cursor paging (cursor '*', then next_cursor) over a catalogue of 100,000
// datasets, 1,000 a page by name, while datasets are written between pages: created after the
// reader (read), created just ahead of it (read), created before it (not read), deleted ahead of it
// (not read), edited ahead of it and behind it (read once). The catalogue is filled as
// bench/changes.ts fills it (bulkFill's rows, then the app on it with the search snapshots off),
// and that benchmark's walk and checks are the core of this one.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bulkFill } from '../../bench/lib/bulk-fill'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { clientExecutor } from '../../src/db/executor'
import { addSysadmin } from '../../src/model/sysadmin'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb, type OpenedDb } from '../../src/runtime/node-db'

const DATASETS = 100_000
const PAGE = 1000
/** Writes between pages every WRITE_EVERY pages. */
const WRITE_EVERY = 5
/**
 * At most this many pages: a next_cursor that does not move on would loop for ever, and in-process
 * requests on the synchronous driver never yield to timers, so the test timeout could not stop it.
 */
const MAX_PAGES = DATASETS / PAGE + 20

let dir: string
let opened: OpenedDb
let app: ReturnType<typeof createApp>
let apikey: string
let fillSeconds = 0
let indexSeconds = 0

beforeAll(async () => {
  dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-cursor-100k-'))
  opened = await openCatalogDb(`file:${join(dir, 'catalogue.db')}`)
  const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'scale-admin')
  apikey = admin.apikey!
  const fill = await bulkFill(opened.writeExecutor ?? clientExecutor(opened.client), DATASETS, { adminId: admin.id, orgCount: 200, seed: 7 })
  fillSeconds = fill.seconds
  const deps = buildDeps(loadConfig({}), opened.db, { ...opened, search: { snapshots: false } })
  await warmUp(deps)
  app = createApp(deps)
  // the index is built first, as the server does at start (and as bench/changes.ts does): ~40 s here
  const built = performance.now()
  await deps.search.ready()
  indexSeconds = (performance.now() - built) / 1000
}, 240_000)

afterAll(() => {
  opened?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** One action as the sysadmin; its `result`, or the test fails with the error. */
async function post(name: string, body: object) {
  const res = await app.request(`/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: apikey },
    body: JSON.stringify(body),
  })
  const j = (await res.json()) as { success: boolean; result: any; error?: unknown }
  if (res.status !== 200 || !j.success) throw new Error(`${name} (${res.status}): ${JSON.stringify(j.error)}`)
  return j.result
}

describe(`package_search cursor paging over ${DATASETS.toLocaleString('en-US')} datasets`, () => {
  it('reads each dataset once, none missed and none it should not, while datasets are written between pages', async () => {
    const all = (await opened.client.execute("SELECT name FROM package WHERE state = 'active' AND private = 0")).rows.map((r) => String(r.name))
    expect(all.length).toBe(DATASETS)
    const filled = new Set(all)
    const sortedNames = [...all].sort()
    const seen = new Map<string, number>()
    const pageMs: number[] = []
    const createdLate: string[] = [] // after every name: must be read
    const createdAhead: string[] = [] // right after the page's last name: must be read
    const createdEarly: string[] = [] // before the reader: must not be read
    const deleted = new Set<string>() // ahead of the reader: must not be read
    const editedAhead: string[] = [] // must be read once
    const editedBehind: string[] = [] // already read: not again
    let outOfOrder = 0
    let previous = ''
    let cursor = '*'
    let ended = false
    for (let pageNo = 0; pageNo < MAX_PAGES; pageNo++) {
      const t0 = performance.now()
      const r = await post('package_search', { q: '', rows: PAGE, sort: 'name asc', cursor, fl: 'name' })
      pageMs.push(performance.now() - t0)
      const names = (r.results as { name: string }[]).map((d) => d.name)
      for (const name of names) {
        if (name <= previous) outOfOrder++
        previous = name
        seen.set(name, (seen.get(name) ?? 0) + 1)
      }
      if (!r.next_cursor) {
        ended = true
        break
      }
      expect(names.length).toBe(PAGE) // next_cursor only while the page is full
      cursor = r.next_cursor
      if (pageNo % WRITE_EVERY === 2) {
        const last = names.at(-1)!
        const late = `zzzz-late-${pageNo}` // sorts after everything: must be read
        await post('package_create', { name: late })
        createdLate.push(late)
        const ahead = `${last}-next` // between the page's last name and the next one: must be read
        await post('package_create', { name: ahead })
        createdAhead.push(ahead)
        const early = `0000-early-${pageNo}` // sorts before the reader: not read
        await post('package_create', { name: early })
        createdEarly.push(early)
        // the next dataset after the reader and one further on: deleted, not read
        const at = sortedNames.findIndex((x) => x > last)
        if (at < 0) continue
        for (let k of [at, at + 1 + pageNo]) {
          let victim = sortedNames[k]
          while (victim !== undefined && (deleted.has(victim) || editedAhead.includes(victim))) victim = sortedNames[++k]
          if (victim === undefined) continue
          await post('package_delete', { id: victim })
          deleted.add(victim)
        }
        // edited (reindexed) ahead of the reader and behind it: each still read once
        const edit = sortedNames.slice(at + 2 + pageNo).find((x) => !deleted.has(x))
        if (edit) {
          await post('package_patch', { id: edit, title: `edited ahead at page ${pageNo}` })
          editedAhead.push(edit)
        }
        await post('package_patch', { id: names[pageNo % names.length]!, title: `edited behind at page ${pageNo}` })
        editedBehind.push(names[pageNo % names.length]!)
      }
    }
    expect(ended, `the walk reached the end within ${MAX_PAGES} pages`).toBe(true)
    const twice = [...seen.values()].filter((c) => c > 1).length
    const missedFilled = all.filter((x) => !deleted.has(x) && !seen.has(x)).length
    const missedCreated = [...createdLate, ...createdAhead].filter((x) => !seen.has(x)).length
    const wrongDeleted = [...deleted].filter((x) => seen.has(x)).length
    const wrongEarly = [...seen.keys()].filter((x) => x.startsWith('0000-early-')).length
    const created = new Set([...createdLate, ...createdAhead, ...createdEarly])
    const unknown = [...seen.keys()].filter((x) => !filled.has(x) && !created.has(x)).length
    const read = [...seen.values()].reduce((a, b) => a + b, 0)
    const sorted = [...pageMs].sort((a, b) => a - b)
    console.log(
      `fill ${DATASETS.toLocaleString('en-US')} datasets in ${fillSeconds.toFixed(1)} s, search index built in ${indexSeconds.toFixed(1)} s; cursor walk ${read.toLocaleString('en-US')} datasets ` +
        `in ${pageMs.length} pages, ${(pageMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s (first page ${(pageMs[0]! / 1000).toFixed(1)} s, ` +
        `page p50 ${sorted[sorted.length >> 1]!.toFixed(1)} ms); written between pages: ${createdLate.length + createdAhead.length + createdEarly.length} created, ` +
        `${deleted.size} deleted, ${editedAhead.length + editedBehind.length} edited; peak RSS of this worker ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    )

    expect(deleted.size).toBeGreaterThan(20)
    expect(createdLate.length).toBeGreaterThan(10)
    expect({ twice, missedFilled, missedCreated, wrongDeleted, wrongEarly, unknown, outOfOrder }).toEqual({
      twice: 0,
      missedFilled: 0,
      missedCreated: 0,
      wrongDeleted: 0,
      wrongEarly: 0,
      unknown: 0,
      outOfOrder: 0,
    })
    for (const x of [...editedAhead, ...editedBehind]) expect(seen.get(x), x).toBe(1)
    expect(read).toBe(DATASETS - deleted.size + createdLate.length + createdAhead.length)
    // the writes took effect: the catalogue now holds the filled datasets less the deleted, plus every created one
    const now = await post('package_search', { q: '', rows: 0 })
    expect(now.count).toBe(DATASETS - deleted.size + created.size)
    const edited = await post('package_show', { id: editedAhead[0] })
    expect(edited.title).toMatch(/^edited ahead/)
  }, 120_000)
})
