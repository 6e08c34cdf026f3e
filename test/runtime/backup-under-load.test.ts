// Issue 33, acceptance 1: a backup taken while 32 HTTP connections keep writing a mix (datasets
// created, edited and deleted, DataStore rows, uploaded files) is restored into an empty data
// directory; every write acknowledged before the backup began is there, as acknowledged (or later),
// and SQLite finds both restored databases whole.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restore, type DataPaths } from '../../src/runtime/node-backup'
import { listen } from '../helpers/server'
import { setup, type TestEnv } from '../helpers/setup'
import { appOn, caller } from '../helpers/data-dir-app'
import { tempDir } from '../helpers/temp-dirs'

type Ack =
  | { kind: 'created'; name: string }
  | { kind: 'edited'; name: string; version: number }
  | { kind: 'deleted'; name: string }
  | { kind: 'row'; n: number }
  | { kind: 'upload'; id: string; body: string }

let t: TestEnv
let server: { url: string; close: () => Promise<void> }
let key = ''
let tableId = ''
let paths: DataPaths
let backupPath = ''
/** Every acknowledged write with when its answer came (performance.now()). */
const acks: { at: number; ack: Ack }[] = []
let began = 0
const errors: string[] = []

async function post(name: string, body: object | FormData) {
  const form = body instanceof FormData
  const res = await fetch(`${server.url}/api/3/action/${name}`, {
    method: 'POST',
    headers: form ? { authorization: key } : { 'content-type': 'application/json', authorization: key },
    body: form ? body : JSON.stringify(body),
  })
  const json = (await res.json()) as { success: boolean; result: any; error?: unknown }
  if (!json.success) throw new Error(`${name} ${res.status}: ${JSON.stringify(json.error)}`)
  return json.result
}

beforeAll(async () => {
  t = await setup()
  server = await listen(t.app)
  key = (await t.make.sysadmin()).apikey
  const dir = dirname(t.file)
  paths = { catalogue: t.file, datastore: join(dir, 'datastore.db'), storage: join(dir, 'uploads') }
  const org = await t.make.organization({ apikey: key })
  const home = await post('package_create', { name: 'load-home', owner_org: org.id })
  tableId = (await post('datastore_create', { resource: { package_id: home.id, name: 'rows' }, fields: [{ id: 'n', type: 'int' }], primary_key: 'n' })).resource_id

  let stop = false
  const client = async (c: number) => {
    const mine: string[] = []
    for (let i = 0; !stop; i++) {
      try {
        const op = (c + i) % 8
        if (op === 0) {
          const n = c * 1_000_000 + i
          await post('datastore_upsert', { resource_id: tableId, method: 'insert', records: [{ n }] })
          acks.push({ at: performance.now(), ack: { kind: 'row', n } })
        } else if (op === 1 && mine.length) {
          const form = new FormData()
          const body = `client,i\n${c},${i}\n`
          form.set('package_id', mine[0]!)
          form.set('upload', new File([body], `f-${c}-${i}.csv`, { type: 'text/csv' }))
          const made = await post('resource_create', form)
          acks.push({ at: performance.now(), ack: { kind: 'upload', id: made.id, body } })
        } else if (op === 2 && mine.length > 1) {
          const name = mine[mine.length - 1]!
          await post('package_patch', { id: name, notes: `version ${i}` })
          acks.push({ at: performance.now(), ack: { kind: 'edited', name, version: i } })
        } else if (op === 3 && mine.length > 3) {
          const name = mine.splice(1, 1)[0]!
          await post('package_delete', { id: name })
          acks.push({ at: performance.now(), ack: { kind: 'deleted', name } })
        } else {
          const name = `load-${c}-${i}`
          await post('package_create', { name, owner_org: org.id, tags: [{ name: `client-${c}` }], resources: [{ url: `http://example.com/${c}/${i}.csv` }] })
          mine.push(name)
          acks.push({ at: performance.now(), ack: { kind: 'created', name } })
        }
      } catch (e) {
        errors.push(String(e))
      }
    }
  }
  const load = Promise.all(Array.from({ length: 32 }, (_, c) => client(c)))
  await new Promise((r) => setTimeout(r, 1500))
  // the backup in a process of its own, as an operator runs it beside the serving process; every
  // write answered before this moment must be in it
  began = performance.now()
  const cli = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'backup', join(tempDir('ckan-edge-load-backups-'), 'b')], {
    env: { ...process.env, DATABASE_URL: `file:${paths.catalogue}`, SERVICE__STORAGE_PATH: paths.storage },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  cli.stdout.on('data', (b: Buffer) => (out += b.toString()))
  cli.stderr.on('data', (b: Buffer) => (out += b.toString()))
  const code = await new Promise<number | null>((resolve) => cli.on('exit', resolve))
  const during = acks.filter((a) => a.at > began).length
  stop = true
  await load
  expect(code, out).toBe(0)
  backupPath = (out.match(/^Backup (\S+):/m) ?? [])[1]!
  expect(during, 'writes answered while the backup ran').toBeGreaterThan(0)
}, 180_000)

afterAll(async () => {
  await server?.close()
})

describe('a backup under a write load of 32 connections, restored', () => {
  it('has every write answered before it began, as answered or later, in databases SQLite finds whole', async () => {
    expect(errors).toEqual([])
    const before = acks.filter((a) => a.at < began).map((a) => a.ack)
    const kinds = new Set(before.map((a) => a.kind))
    expect([...kinds].sort()).toEqual(['created', 'deleted', 'edited', 'row', 'upload'])
    const dir = tempDir('ckan-edge-load-restored-')
    const to = { catalogue: join(dir, 'catalogue.db'), datastore: join(dir, 'datastore.db'), storage: join(dir, 'uploads') }
    const manifest = await restore(backupPath, to)
    for (const file of [to.catalogue, to.datastore]) {
      const db = new Database(file, { readonly: true })
      try {
        expect((db.prepare('PRAGMA integrity_check').get() as Record<string, string>).integrity_check, file).toBe('ok')
        if (file === to.catalogue) expect(Number((db.prepare('SELECT max(seq) AS s FROM change_log').get() as { s: number }).s)).toBe(manifest.changeLogSeq)
      } finally {
        db.close()
      }
    }
    const { app, close } = await appOn(`file:${to.catalogue}`, `file:${to.datastore}`, to.storage)
    try {
      const call = caller(app, key)
      // the last edit answered before the backup, per dataset
      const edited = new Map<string, number>()
      for (const a of before) if (a.kind === 'edited') edited.set(a.name, Math.max(edited.get(a.name) ?? -1, a.version))
      const deleted = new Set(before.flatMap((a) => (a.kind === 'deleted' ? [a.name] : [])))
      const rows = new Set((await call('datastore_search', { resource_id: tableId, limit: 32000 })).result.records.map((r: { n: number }) => r.n))
      let checked = 0
      for (const a of before) {
        if (a.kind === 'created') {
          const shown = await call('package_show', { id: a.name })
          expect(shown.success, a.name).toBe(true)
          // deleted before the backup: deleted in it; otherwise as created, or deleted by a later write it holds
          expect(deleted.has(a.name) ? ['deleted'] : ['active', 'deleted'], a.name).toContain(shown.result.state)
          expect(shown.result.tags.map((x: { name: string }) => x.name)).toEqual([a.name.replace(/^load-(\d+)-\d+$/, 'client-$1')])
          expect(shown.result.resources.length).toBeGreaterThanOrEqual(1)
        } else if (a.kind === 'edited') {
          const notes = String((await call('package_show', { id: a.name })).result.notes)
          expect(Number(/^version (\d+)$/.exec(notes)?.[1]), a.name).toBeGreaterThanOrEqual(edited.get(a.name)!)
        } else if (a.kind === 'deleted') {
          expect((await call('package_show', { id: a.name })).result.state).toBe('deleted')
        } else if (a.kind === 'row') {
          expect(rows.has(a.n), `row ${a.n}`).toBe(true)
        } else {
          const res = await call('resource_show', { id: a.id })
          expect(res.success, a.id).toBe(true)
          const file = await app.request(new URL(res.result.url).pathname, { headers: { authorization: key } })
          expect(file.status, a.id).toBe(200)
          expect(await file.text()).toBe(a.body)
        }
        checked++
      }
      expect(checked).toBe(before.length)
      expect(checked).toBeGreaterThan(100)
    } finally {
      close()
    }
    expect(JSON.parse(readFileSync(join(backupPath, 'manifest.json'), 'utf8')).format).toBe(1)
  }, 120_000)
})
