// Acceptance walk-through of the DataStore over real HTTP: the `npm start` entry in its own
// process on temp files, a sysadmin key from the admin CLI, plain fetch() for every call.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/temp-dirs'

const dir = tempDir('ckan-ds-walk-')
const catalogueFile = join(dir, 'catalogue.db')
const datastoreFile = join(dir, 'datastore.db')
let base = ''
let key = ''
let child: ReturnType<typeof spawn> | undefined

beforeAll(async () => {
  // node.ts logs PORT as given, so PORT=0 would hide the real port: pick a free one first
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
  base = `http://127.0.0.1:${port}`
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `file:${catalogueFile}` }
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', SERVICE__SITE_URL: base })
  delete env.DATASTORE_URL // the default must be datastore.db beside the catalogue
  const entry = ['--import', 'tsx', 'src/runtime/node.ts'] // the entry `npm start` runs (compiled)
  const proc = (child = spawn(process.execPath, entry, { env }))
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 30000)
    const onData = (b: Buffer) => {
      output += b.toString()
      if (output.includes('Listening on')) resolve(clearTimeout(timer))
    }
    proc.stdout.on('data', onData)
    proc.stderr.on('data', onData)
    proc.on('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)))
  })
  const admin = ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'walker']
  const cli = spawnSync(process.execPath, admin, { env, encoding: 'utf8' })
  key = /API key: (\S+)/.exec(cli.stdout)?.[1] ?? ''
  if (!key) throw new Error(`no API key: ${cli.stdout}${cli.stderr}`)
})

afterAll(async () => {
  const proc = child
  if (proc && proc.exitCode === null) await new Promise((r) => proc.once('exit', r).kill('SIGTERM'))
  rmSync(dir, { recursive: true, force: true })
})

type Params = Record<string, unknown>
type Opts = { get?: boolean; anon?: boolean }

/** One action over HTTP (POST JSON, or GET with JSON-encoded non-strings). */
async function call(action: string, params: Params, opts: Opts = {}) {
  const headers: Record<string, string> = opts.anon ? {} : { authorization: key }
  const url = `${base}/api/3/action/${action}`
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))
  const query = Object.entries(params).map(([k, v]) => [k, text(v)])
  const res = opts.get
    ? await fetch(`${url}?${new URLSearchParams(query)}`, { headers })
    : await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(params),
      })
  return envelope(res, action)
}

/** CKAN's envelope: content type, key order, absolute help URL, success matching the status. */
async function envelope(res: Response, action: string) {
  expect(res.headers.get('content-type')).toBe('application/json;charset=utf-8')
  const body = await res.json()
  expect(body.help).toBe(`${base}/api/3/action/help_show?name=${action}`)
  const keys = res.status === 200 ? ['help', 'success', 'result'] : ['help', 'error', 'success']
  expect([Object.keys(body), body.success]).toEqual([keys, res.status === 200])
  return { status: res.status, body }
}

/** The result of a call expected to succeed, or the error of one expected to fail with `status`. */
async function send(action: string, params: Params, status = 200, opts: Opts = {}) {
  const r = await call(action, params, opts)
  expect(r.status, JSON.stringify(r.body)).toBe(status)
  return status === 200 ? r.body.result : r.body.error
}
const ok = (action: string, params: Params, opts: Opts = {}) => send(action, params, 200, opts)
const fails = send

const invalid = (errors: Params) => ({ ...errors, __type: 'Validation Error' })
const denied = (m: string) => ({ __type: 'Authorization Error', message: `Access denied: ${m}` })

/** Table names inside a database file, read through a connection of our own. */
function tables(file: string): string[] {
  const db = new Database(`file:${file}?mode=ro`)
  const rows = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").raw(true).all()
  db.close()
  return (rows as string[][]).map((r) => r[0]!)
}

// rid: books, a resource with a url (writes need force); aid: authors, made by datastore_create
let [pkg, rid, aid] = ['', '', '']
const BOOK = { id: 'book', type: 'text', info: { label: 'Book', notes: 'The title' } }
const YEAR = { id: 'year', type: 'int4' } // created as `int`, reported by its PG name
const FIELDS = [{ id: '_id', type: 'int' }, BOOK, { id: 'author', type: 'text' }, YEAR]
const ROWS = [
  [1, 'annakarenina', 'tolstoy', 1877],
  [2, 'warandpeace', 'tolstoy', 1867],
  [3, 'emma', 'austen', 1816],
  [4, 'persuasion', 'austen', 1817],
] as const
const asObject = (r: readonly unknown[]) => Object.fromEntries(FIELDS.map((f, i) => [f.id, r[i]]))

describe('DataStore walk-through over HTTP', () => {
  it('creates a dataset with a resource and a DataStore table for it', async () => {
    const resources = [{ url: 'http://x/b.csv' }]
    const ds = await ok('package_create', { name: 'walk-books', resources })
    pkg = ds.id
    rid = ds.resources[0].id
    expect(ds.resources[0].datastore_active).toBe(false)
    const fields = [BOOK, { id: 'author', type: 'text' }, { id: 'year', type: 'int' }]
    const params = { resource_id: rid, fields, primary_key: 'book' }
    const records = [
      { book: 'annakarenina', author: 'tolstoy', year: 1877 },
      { book: 'warandpeace', author: 'tolstoy', year: '1869' },
    ]
    const readOnly = 'Either pass"force=True" or change url-type to "datastore"'
    expect(await fails('datastore_create', { ...params, records }, 409)).toEqual(
      invalid({ 'read-only': [`Cannot edit read-only resource. ${readOnly}`] }),
    )
    const anon = await fails('datastore_create', { ...params, force: true }, 403, { anon: true })
    expect(anon).toEqual(denied('Action datastore_create requires an authenticated user'))
    const created = await ok('datastore_create', { ...params, records, force: true })
    expect(created).toEqual({ resource_id: rid, fields, primary_key: 'book', method: 'insert' })
    expect((await ok('resource_show', { id: rid }, { get: true })).datastore_active).toBe(true)
  })

  it('inserts, updates and upserts', async () => {
    const up = (method: string, records: object[]) =>
      ok('datastore_upsert', { resource_id: rid, force: true, method, records })
    const emma = [{ book: 'emma', author: 'austen', year: 1815 }]
    expect(await up('insert', emma)).toEqual({ resource_id: rid, method: 'insert', records: emma })
    await up('update', [{ book: 'warandpeace', year: 1867 }])
    const both = [
      { book: 'persuasion', author: 'austen', year: 1817 }, // new key: inserted
      { book: 'emma', author: 'austen', year: 1816 }, // existing key: updated in place
    ]
    expect(await up('upsert', both)).toEqual({ resource_id: rid, method: 'upsert', records: both })
    const dup = { resource_id: rid, force: true, method: 'insert', records: emma }
    expect((await fails('datastore_upsert', dup, 409)).records).toEqual([
      `duplicate key value violates unique constraint "_pk_${rid}"`,
    ])
    const nope = { resource_id: rid, force: true, method: 'update', records: [{ book: 'nope' }] }
    expect((await fails('datastore_upsert', nope, 409)).key).toEqual([`key "['nope']" not found`])
  })

  it('searches with filters, q and sort in every records format', async () => {
    const austen = { resource_id: rid, filters: { author: 'austen' }, sort: 'year desc' }
    const lists = [ROWS[3], ROWS[2]] // persuasion, emma
    const formats: Record<string, unknown> = {
      objects: lists.map(asObject),
      lists,
      csv: '4,persuasion,austen,1817\n3,emma,austen,1816\n',
      tsv: '4\tpersuasion\tausten\t1817\n3\temma\tausten\t1816\n',
    }
    for (const [records_format, records] of Object.entries(formats)) {
      expect(await ok('datastore_search', { ...austen, records_format }, { get: true })).toEqual({
        ...austen,
        include_total: true,
        limit: 100,
        records_format,
        total_estimation_threshold: null,
        fields: FIELDS,
        records,
        _links: expect.any(Object),
        total: 2,
        total_was_estimated: false,
      })
    }
    const q = await ok('datastore_search', { resource_id: rid, q: 'tolstoy', sort: 'year' })
    expect(q.fields.at(-1)).toEqual({ id: 'rank', type: 'float' })
    expect(q.records.map((r: { book: string }) => r.book)).toEqual(['warandpeace', 'annakarenina'])
    const q2 = { resource_id: rid, q: 'austen', filters: { year: '1816' }, fields: 'book,year' }
    expect((await ok('datastore_search', q2)).records).toEqual([{ book: 'emma', year: 1816 }])
    const bad = await fails('datastore_search', { resource_id: rid, filters: { nope: 1 } }, 409)
    expect(bad).toEqual(invalid({ filters: ['invalid value "nope"'] }))
    // paging: follow _links over GET until a page comes back empty
    const first = `/api/3/action/datastore_search?resource_id=${rid}&limit=3&sort=book`
    const params = { resource_id: rid, limit: 3, sort: 'book' }
    let page = await ok('datastore_search', params, { get: true })
    expect(page._links).toEqual({ start: first, next: `${first}&offset=3` })
    const seen: string[] = []
    for (let i = 0; page.records.length && i < 5; i++) {
      seen.push(...page.records.map((r: { book: string }) => r.book))
      const res = await fetch(base + page._links.next, { headers: { authorization: key } })
      page = (await envelope(res, 'datastore_search')).body.result
    }
    expect(seen).toEqual(['annakarenina', 'emma', 'persuasion', 'warandpeace'])
    const last = { start: first, next: `${first}&offset=9`, prev: `${first}&offset=3` }
    expect(page._links).toEqual(last)
  })

  it('joins two tables in datastore_search_sql', async () => {
    const fields = [{ id: 'author', type: 'text' }, { id: 'country' }]
    const records = [
      { author: 'tolstoy', country: 'RU' },
      { author: 'austen', country: 'GB' },
    ]
    const resource = { package_id: pkg, name: 'authors' }
    const made = await ok('datastore_create', { resource, fields, primary_key: 'author', records })
    aid = made.resource_id
    expect(made.fields).toEqual([fields[0], { id: 'country', type: 'text' }]) // guessed type
    const shown = await ok('resource_show', { id: aid })
    expect([shown.url_type, shown.url]).toEqual(['datastore', `${base}/datastore/dump/${aid}`])
    const sql =
      `SELECT b.book, a."country" FROM "${rid}" b JOIN "${aid}" a ON a.author = b.author ` +
      `WHERE a.country = 'RU' ORDER BY b.book`
    expect(await ok('datastore_search_sql', { sql }, { get: true })).toEqual({
      sql,
      fields: ['book', 'country'].map((id) => ({ id, type: 'text' })),
      records: ['annakarenina', 'warandpeace'].map((book) => ({ book, country: 'RU' })),
    })
  })

  // CKAN upserts with UPDATE, then INSERT ... WHERE NOT EXISTS: an updated row uses up no _id.
  it('upsert of an existing key uses up no _id (no force: a datastore resource)', async () => {
    const up = (records: object[]) => ok('datastore_upsert', { resource_id: aid, records })
    await up([{ author: 'austen', country: 'UK' }])
    await up([{ author: 'dickens', country: 'UK' }])
    const r = await ok('datastore_search', { resource_id: aid, records_format: 'lists' })
    const want = [1, 'tolstoy', 'RU', 2, 'austen', 'UK', 3, 'dickens', 'UK']
    expect(r.records.flat()).toEqual(want)
  })

  it('dumps the table as csv, tsv, json and xml', async () => {
    const lines = (sep: string) => ROWS.map((r) => r.join(sep) + '\n').join('')
    const head = (sep: string) => FIELDS.map((f) => f.id).join(sep) + '\r\n'
    const xml = ([i, b, a, y]: readonly unknown[]) =>
      `<row _id="${i}"><book>${b}</book><author>${a}</author><year>${y}</year></row>\n`
    const records = ROWS.map((r) => JSON.stringify(r)).join(',\n    ')
    const json = `{\n  "fields": ${JSON.stringify(FIELDS)},\n  "records": [\n    ${records}\n]}\n`
    const xmlns = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    const want: Record<string, [string, string]> = {
      csv: ['text/csv', head(',') + lines(',')],
      tsv: ['text/tab-separated-values', head('\t') + lines('\t')],
      json: ['application/json', json],
      xml: ['text/xml', `<data ${xmlns}>\n${ROWS.map(xml).join('')}</data>\n`],
    }
    for (const [format, [type, body]] of Object.entries(want)) {
      const res = await fetch(`${base}/datastore/dump/${rid}?format=${format}`) // anonymous
      expect([res.status, res.headers.get('content-type')]).toEqual([200, `${type}; charset=utf-8`])
      const disposition = `attachment; filename="${rid}.${format}"`
      expect(res.headers.get('content-disposition')).toBe(disposition)
      expect(await res.text()).toBe(body)
    }
    const bad = await fetch(`${base}/datastore/dump/${rid}?format=pdf`)
    const badText = "format: Value must be one of ('csv', 'tsv', 'json', 'xml')"
    expect([bad.status, await bad.text()]).toEqual([400, badText])
  })

  it('keeps the DataStore in its own file, out of reach of the catalogue', async () => {
    expect([existsSync(catalogueFile), existsSync(datastoreFile)]).toEqual([true, true])
    expect(tables(datastoreFile)).toEqual(expect.arrayContaining([rid, aid]))
    expect(tables(datastoreFile)).not.toContain('user')
    expect(tables(catalogueFile)).toEqual(expect.arrayContaining(['user', 'package']))
    expect(tables(catalogueFile)).not.toContain(rid)
    for (const name of ['user', 'package', 'api_token']) {
      const sql = `SELECT * FROM "${name}"`
      const orig = [`relation "${name}" does not exist`]
      expect(await fails('datastore_search_sql', { sql }, 409)).toEqual(
        invalid({ query: orig, info: { statement: [sql], params: [{}], orig } }),
      )
    }
    const sys = await fails('datastore_search_sql', { sql: 'SELECT * FROM sqlite_schema' }, 403)
    expect(sys).toEqual(denied("{'permissions': ['Not authorized to access system tables']}"))
  })

  it('deletes rows by filter, then the whole table', async () => {
    const filters = { author: 'austen' }
    const del = await ok('datastore_delete', { resource_id: rid, force: true, filters })
    expect(del).toEqual({ resource_id: rid, filters })
    const left = await ok('datastore_search', { resource_id: rid, fields: ['book'] })
    const books = [{ book: 'annakarenina' }, { book: 'warandpeace' }]
    expect([left.total, left.records]).toEqual([2, books])
    const drop = await ok('datastore_delete', { resource_id: rid, force: true })
    expect(drop).toEqual({ resource_id: rid })
    const notFound = `Not found: Resource "${rid}" was not found.`
    const missing = await fails('datastore_search', { resource_id: rid }, 404)
    expect(missing).toEqual({ __type: 'Not Found Error', message: notFound })
    expect((await ok('resource_show', { id: rid })).datastore_active).toBe(false)
    const gone = await fetch(`${base}/datastore/dump/${rid}`)
    expect([gone.status, await gone.text()]).toEqual([404, 'DataStore resource not found'])
    expect(tables(datastoreFile)).not.toContain(rid)
    expect((await ok('resource_show', { id: aid })).datastore_active).toBe(true)
  })
})
