// Scale: CKAN 2.12's keyset paging (datastore_search include_next_page → next_page) over a
// 1,000,000-row DataStore table, walked from the first row to the last by pages of 1,000 while rows
// are written between pages: rows added (new _ids, after the reader: read), rows ahead of the
// reader deleted (not read), rows behind it deleted (already read). Every row is read at most once,
// and every row that was there and not deleted ahead is read. bench/datastore.ts section 4 makes
// the same walk over HTTP; this one runs the app in-process on a temp libSQL file.
import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

const ROWS = 1_000_000
/** Records per datastore_upsert request while filling (the body's key limit is 100,000). */
const FILL_BATCH = 100_000
const PAGE = 1000
/** Writes between pages every WRITE_EVERY pages. */
const WRITE_EVERY = 25
const ADDED_PER_WRITE = 7
/**
 * At most this many pages: a next_page that does not move on would loop for ever, and in-process
 * requests on the synchronous driver never yield to timers, so the test timeout could not stop it.
 */
const MAX_PAGES = ROWS / PAGE + 50
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']

let t: TestEnv
let sys: { apikey: string }
let id: string
let fillSeconds = 0

/** One action; its `result`, or the test fails with the error envelope. */
const ok = (name: string, params: object) => t.ok(name, params, sys)

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys)
  const pkg = await t.ok('package_create', { name: 'keyset-1m', owner_org: org.id }, sys)
  const created = await ok('datastore_create', {
    resource: { package_id: pkg.id, name: 'a million rows' },
    fields: [{ id: 'n', type: 'int' }, { id: 'word', type: 'text' }],
  })
  id = created.resource_id
  // row n (0-based) gets _id n + 1: one writer, AUTOINCREMENT, batches in order
  const started = performance.now()
  for (let from = 0; from < ROWS; from += FILL_BATCH) {
    const records = Array.from({ length: Math.min(FILL_BATCH, ROWS - from) }, (_, k) => ({ n: from + k, word: WORDS[(from + k) % WORDS.length] }))
    await ok('datastore_upsert', { resource_id: id, method: 'insert', records })
  }
  fillSeconds = (performance.now() - started) / 1000
}, 180_000)

afterAll(() => {
  t?.deps.datastore?.close()
  t?.client.close()
  if (t) rmSync(dirname(t.file), { recursive: true, force: true })
})

describe(`keyset paging over ${ROWS.toLocaleString('en-US')} rows`, () => {
  it('reads every row once, added rows too, and no row deleted ahead of the reader, while rows are written between pages', async () => {
    // the table as filled: _ids 1..ROWS
    const head = await ok('datastore_search', { resource_id: id, limit: 1, sort: '_id desc', include_total: true })
    expect(head.total).toBe(ROWS)
    expect(head.records[0]).toMatchObject({ _id: ROWS, n: ROWS - 1 })

    const started = performance.now()
    const reads = new Uint8Array(ROWS + 10_000) // times each _id was read
    const value = new Int32Array(ROWS + 10_000).fill(-1) // n of each _id read
    const deletedAhead: number[] = []
    const gone = new Uint8Array(ROWS + 1) // 1: deleted ahead of the reader
    const deletedBehind: number[] = []
    const added: number[] = [] // _ids of the rows added during the walk
    let nextN = ROWS
    let filters: object = {}
    let pages = 0
    let lastId = 0
    let outOfOrder = 0
    let ended = false
    while (pages < MAX_PAGES) {
      const r = await ok('datastore_search', {
        resource_id: id,
        limit: PAGE,
        include_total: false,
        include_next_page: true,
        filters,
      })
      const records = r.records as { _id: number; n: number }[]
      if (!records.length) {
        ended = true
        break
      }
      pages++
      for (const rec of records) {
        if (rec._id <= lastId) outOfOrder++
        lastId = rec._id
        reads[rec._id]!++
        value[rec._id] = rec.n
      }
      expect(r.next_page).toEqual({ _id: { gt: lastId } })
      filters = r.next_page
      if (pages % WRITE_EVERY === 0) {
        // ahead: the very next row, one in the next page, one far ahead (while there is a far ahead)
        for (const ahead of [lastId + 1, lastId + 1 + (pages % PAGE), lastId + 250_001]) {
          if (ahead > ROWS || gone[ahead]) continue
          await ok('datastore_delete', { resource_id: id, force: true, filters: { _id: ahead } })
          deletedAhead.push(ahead)
          gone[ahead] = 1
        }
        // behind: a row already read
        let behind = lastId - PAGE - (pages % 97)
        while (gone[behind]) behind--
        await ok('datastore_delete', { resource_id: id, force: true, filters: { _id: behind } })
        deletedBehind.push(behind)
        // added: new rows get _ids after every existing one, so after the reader
        const records = Array.from({ length: ADDED_PER_WRITE }, () => ({ n: nextN++ }))
        await ok('datastore_upsert', { resource_id: id, method: 'insert', records })
      }
    }
    const walkSeconds = (performance.now() - started) / 1000
    expect(ended, `the walk reached the end within ${MAX_PAGES} pages`).toBe(true)

    // the added rows' _ids: every row whose n is past the fill
    const tail = await ok('datastore_search', { resource_id: id, filters: { _id: { gt: ROWS } }, limit: 32000, include_total: false })
    for (const rec of tail.records as { _id: number; n: number }[]) {
      expect(rec.n).toBeGreaterThanOrEqual(ROWS)
      added.push(rec._id)
    }
    expect(added.length).toBe(nextN - ROWS)

    let twice = 0 // rows read more than once
    let missed = 0 // rows there from the start, not deleted ahead, never read
    let readDeleted = 0 // rows deleted ahead of the reader, read anyway
    let wrongValue = 0 // a row read with another row's values
    for (let i = 1; i <= ROWS; i++) {
      if (reads[i]! > 1) twice++
      if (gone[i] && reads[i]) readDeleted++
      if (!gone[i] && !reads[i]) missed++
      if (reads[i] && value[i] !== i - 1) wrongValue++
    }
    const readAdded = added.filter((x) => reads[x] === 1).length
    const readDeletedBehind = deletedBehind.filter((x) => reads[x] === 1).length
    const total = reads.reduce((s, x) => s + x, 0)
    console.log(
      `fill ${ROWS.toLocaleString('en-US')} rows in ${fillSeconds.toFixed(1)} s; walk ${pages} pages, ` +
        `${total.toLocaleString('en-US')} rows in ${walkSeconds.toFixed(1)} s; ` +
        `${added.length} added, ${deletedAhead.length} deleted ahead, ${deletedBehind.length} deleted behind; ` +
        `peak RSS of this worker ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    )

    expect(deletedAhead.length).toBeGreaterThan(50)
    expect(added.length).toBeGreaterThan(100)
    expect({ twice, missed, readDeleted, wrongValue, outOfOrder }).toEqual({ twice: 0, missed: 0, readDeleted: 0, wrongValue: 0, outOfOrder: 0 })
    expect(readAdded).toBe(added.length) // every added row read (once)
    expect(readDeletedBehind).toBe(deletedBehind.length) // rows deleted behind were read before
    expect(total).toBe(ROWS - deletedAhead.length + added.length)
    expect(pages).toBe(Math.ceil(total / PAGE))
    // the writes took effect: the table now holds exactly what was filled, less the deleted, plus the added
    const after = await ok('datastore_search', { resource_id: id, limit: 0, include_total: true })
    expect(after.total).toBe(ROWS - deletedAhead.length - deletedBehind.length + added.length)
  }, 120_000)
})
