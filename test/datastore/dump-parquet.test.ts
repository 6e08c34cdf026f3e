// GET /datastore/dump/<id>?format=parquet and ?format=jsonl, on Node's DataStore and through the
// portable adapter of Workers: Parquet read back with hyparquet (values against datastore_search,
// physical and logical types, row groups), the search parameters, JSON Lines against the json
// dump, access rules and ETag/304.
import { beforeAll, describe, expect, it } from 'vitest'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }
type Dict = Record<string, any>

const BIG_ROWS = 120_000 // three row groups of at most 50,000 rows

const FIELDS = [
  { id: 'i', type: 'int' },
  { id: 's', type: 'smallint' },
  { id: 'b', type: 'bigint' },
  { id: 'n', type: 'numeric' },
  { id: 'f', type: 'float8' },
  { id: 'f4', type: 'float4' },
  { id: 'ok', type: 'bool' },
  { id: 'tx', type: 'text' },
  { id: 'd', type: 'date' },
  { id: 'ts', type: 'timestamp' },
  { id: 'tz', type: 'timestamptz' },
  { id: 'tm', type: 'time' },
  { id: 'j', type: 'json' },
  { id: 'arr', type: '_text' },
  { id: 'ai', type: '_int4' },
]

const RECORDS = [
  {
    i: 1, s: -5, b: 9007199254740991, n: '1.5', f: 2.25, f4: 0.1, ok: true,
    tx: 'Grüße 🌍 "quoted", ok', d: '2024-02-29', ts: '2020-01-02T03:04:05',
    tz: '2020-01-02T03:04:05+02:00', tm: '12:34:56.789', j: { a: [1, 'x', null], ü: true },
    arr: ['a', 'ö', null], ai: [1, 2],
  },
  { i: 2 },
  {
    i: -2147483648, s: 32767, b: -9007199254740991, n: 'NaN', f: 'Infinity', f4: -1.5, ok: false,
    tx: '', d: '0044-03-15', ts: '1999-12-31T23:59:59.123456', tz: '1969-12-31T23:59:59.5Z',
    tm: '24:00:00', j: 'just text', arr: [], ai: [[1, 2], [3, 4]],
  },
  {
    i: 2147483647, n: '12345678901234567890', f: '-Infinity', f4: 0, ok: true,
    tx: 'line\nbreak\u2028sep', d: 'infinity', ts: '-infinity', tz: 'infinity', j: [1.5, -0, 1e21],
  },
]

/** The Parquet type each DataStore type is written as (physical, converted, logical). */
const TYPES: Record<string, Dict> = {
  _id: { type: 'INT64' },
  i: { type: 'INT32' },
  s: { type: 'INT32', converted_type: 'INT_16' },
  b: { type: 'INT64' },
  n: { type: 'DOUBLE' },
  f: { type: 'DOUBLE' },
  f4: { type: 'DOUBLE' },
  ok: { type: 'BOOLEAN' },
  tx: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  d: { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
  ts: { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } },
  tz: {
    type: 'INT64',
    converted_type: 'TIMESTAMP_MICROS',
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' },
  },
  tm: { type: 'INT64', logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' } },
  j: { type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } },
  arr: { type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } },
  ai: { type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } },
}

// raw numbers for dates, times and timestamps, so microseconds are not lost to Date
const parsers = {
  dateFromDays: (days: number) => days,
  timestampFromMicroseconds: (us: bigint) => us,
}

async function readParquet(bytes: Uint8Array) {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  const metadata = parquetMetadata(file)
  const rows = (await parquetReadObjects({ file, metadata, parsers })) as Dict[]
  return { metadata, rows }
}

/** Days since 1970-01-01 of `YYYY-MM-DD`, by Date (years below 100 too). */
function days(s: string): number {
  if (s === 'infinity') return 2147483647
  const [y, m, d] = s.split('-').map(Number) as [number, number, number]
  const dt = new Date(0)
  dt.setUTCFullYear(y, m - 1, d)
  return dt.getTime() / 86_400_000
}

/** Microseconds of `HH:MM:SS[.f]`. */
function micros(s: string): bigint {
  const [h, m, sec] = s.split(':').map(Number) as [number, number, number]
  return BigInt(Math.round(((h * 60 + m) * 60 + sec) * 1e6))
}

/**
 * A timestamp read back (µs since the epoch) as datastore_search prints it: `timestamp` to the
 * second, `timestamptz` as stored (the fraction without trailing zeros, `+00:00`).
 */
function isoText(us: bigint, tz: boolean): string {
  if (us === 9223372036854775807n) return 'infinity'
  if (us === -9223372036854775807n) return '-infinity'
  const frac = ((us % 1_000_000n) + 1_000_000n) % 1_000_000n
  const secs = (us - frac) / 1_000_000n
  const text = new Date(Number(secs) * 1000).toISOString().slice(0, 19)
  if (!tz) return text
  const f = frac ? '.' + String(frac).padStart(6, '0').replace(/0+$/, '') : ''
  return `${text}${f}+00:00`
}

/** JSON with Python's bare NaN, Infinity and -Infinity (a numeric NaN in the json dump) read as text. */
const lenientJson = (text: string) =>
  JSON.parse(text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (m) => (m.startsWith('"') ? m : `"${m}"`)))

/** A datastore_search value as the Parquet reader should give it back for field `id`. */
function expected(id: string, v: unknown): unknown {
  if (v === null || v === undefined) return null
  switch (id) {
    case '_id':
    case 'b':
      return BigInt(v as number)
    case 'n':
    case 'f':
    case 'f4':
      return Number(v) // 'NaN', 'Infinity' and '-Infinity' come as text from datastore_search
    case 'd':
      return days(v as string)
    case 'tm':
      return micros(v as string)
    default:
      return v
  }
}

/** The read-back value in datastore_search's form, where the two differ in more than type. */
function comparable(id: string, v: unknown): unknown {
  if (v === null || v === undefined) return null
  if (id === 'ts' || id === 'tz') return isoText(v as bigint, id === 'tz')
  return v
}

describe.each([
  { adapter: 'Node', portableDatastore: false },
  { adapter: 'portable (Workers)', portableDatastore: true },
])('parquet and jsonl dumps, $adapter DataStore', ({ portableDatastore }) => {
  let t: TestEnv
  let sys: Who
  let stranger: Who
  let typed: string
  let pubName: string
  let big: string
  let priv: string

  beforeAll(async () => {
    t = await setup({}, { portableDatastore })
    sys = await t.make.sysadmin()
    stranger = await t.make.user()
    const org = await t.make.organization(sys)
    const pub = await t.make.dataset(sys, { owner_org: org.id })
    pubName = pub.name
    typed = await table(pub, FIELDS, RECORDS)
    big = await table(pub, [
      { id: 'n', type: 'int' },
      { id: 'word', type: 'text' },
    ], [])
    for (let from = 0; from < BIG_ROWS; from += 30_000) {
      const records = Array.from({ length: 30_000 }, (_, k) => {
        const n = from + k + 1
        return { n, word: `w${n}` }
      })
      await t.ok('datastore_upsert', { resource_id: big, method: 'insert', records }, sys)
    }
    const hidden = await t.make.dataset(sys, { owner_org: org.id, private: true })
    priv = await table(hidden, [{ id: 'secret', type: 'text' }], [{ secret: 's' }])
  }, 120_000)

  async function table(pkg: { id: string }, fields: object[], records: object[]) {
    const params = { resource: { package_id: pkg.id }, fields, records }
    return (await t.ok('datastore_create', params, sys)).resource_id as string
  }

  async function dump(path: string, as: Who | null = null, headers: Record<string, string> = {}) {
    const res = await t.app.request(path, {
      headers: { ...headers, ...(as ? { authorization: as.apikey } : {}) },
    })
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) }
  }

  const parquetOf = async (path: string, as: Who | null = null) =>
    readParquet((await dump(path, as)).bytes)

  async function search(params: Dict) {
    return t.ok('datastore_search', { limit: 32000, ...params })
  }

  describe('parquet', () => {
    it('answers a Parquet file with its media type and file name', async () => {
      const { res, bytes } = await dump(`/datastore/dump/${typed}?format=parquet`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet')
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${typed}.parquet"`)
      const magic = new TextDecoder().decode(bytes.subarray(0, 4))
      expect([magic, new TextDecoder().decode(bytes.subarray(-4))]).toEqual(['PAR1', 'PAR1'])
    })

    it("holds datastore_search's values, nulls as nulls", async () => {
      const { rows, metadata } = await parquetOf(`/datastore/dump/${typed}?format=parquet`)
      const s = await search({ resource_id: typed })
      const ids = (s.fields as Dict[]).map((f) => f.id)
      expect(metadata.schema.slice(1).map((e) => e.name)).toEqual(ids)
      expect(rows).toHaveLength(RECORDS.length)
      for (const [k, rec] of (s.records as Dict[]).entries()) {
        for (const id of ids) {
          const got = rows[k]![id]
          const want = expected(id, rec[id])
          if (id === 'ts' || id === 'tz') expect(comparable(id, got), `${k} ${id}`).toBe(rec[id])
          else expect(got, `row ${k} ${id}`).toEqual(want)
          if (want === null) expect(got, `row ${k} ${id}`).toBeNull()
        }
      }
      // the typed values, spelled out
      expect(rows[0]).toMatchObject({ b: 9007199254740991n, tx: 'Grüße 🌍 "quoted", ok', ok: true })
      expect(rows[0]!.arr).toEqual(['a', 'ö', null])
      expect(rows[2]).toMatchObject({ i: -2147483648, s: 32767, n: NaN, f: Infinity, d: days('0044-03-15') })
      expect(rows[3]).toMatchObject({ n: 12345678901234567000, f: -Infinity, d: 2147483647 })
      expect(rows[3]!.j).toEqual([1.5, 0, 1e21])
      expect(Object.values(rows[1]!).filter((v) => v !== null)).toEqual([2n, 2])
    })

    it('keeps the microseconds of timestamps, which datastore_search cuts to the second', async () => {
      const { rows } = await parquetOf(`/datastore/dump/${typed}?format=parquet`)
      expect(rows[2]!.ts).toBe(BigInt(Date.UTC(1999, 11, 31, 23, 59, 59)) * 1000n + 123456n)
      expect(rows[2]!.tz).toBe(-500000n) // 1969-12-31T23:59:59.5Z
      expect(rows[0]!.tz).toBe(BigInt(Date.UTC(2020, 0, 2, 1, 4, 5)) * 1000n)
      expect(rows[2]!.tm).toBe(86_400_000_000n)
      expect(rows[3]!.ts).toBe(-9223372036854775807n) // -infinity
      expect((await search({ resource_id: typed })).records[2].ts).toBe('1999-12-31T23:59:59')
    })

    it('types each column from the DataStore type', async () => {
      const { metadata } = await parquetOf(`/datastore/dump/${typed}?format=parquet`)
      const [root, ...columns] = metadata.schema
      expect(root!.num_children).toBe(columns.length)
      for (const c of columns) {
        const want = TYPES[c.name]!
        expect({ ...c }, c.name).toEqual({ name: c.name, repetition_type: 'OPTIONAL', ...want })
      }
      const kv = metadata.key_value_metadata?.find((e) => e.key === 'datastore_fields')
      expect(JSON.parse(kv!.value!)).toEqual((await search({ resource_id: typed, limit: 0 })).fields)
    })

    it('writes row groups of 50,000 rows for a larger table', async () => {

      const { res, bytes } = await dump(`/datastore/dump/${big}?format=parquet`)
      expect(res.status).toBe(200)
      const { metadata, rows } = await readParquet(bytes)
      expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([50_000, 50_000, 20_000])
      expect(Number(metadata.num_rows)).toBe(BIG_ROWS)
      expect(rows).toHaveLength(BIG_ROWS)
      let wrong = 0
      rows.forEach((r, k) => {
        if (r._id !== BigInt(k + 1) || r.n !== k + 1 || r.word !== `w${k + 1}`) wrong++
      })
      expect(wrong).toBe(0)
    }, 60_000)

    it('ends row groups earlier for wide rows', async () => {
      const pkg = await t.make.dataset(sys)
      const long = 'ü' + 'x'.repeat(3000)
      const wide = await table(pkg, [{ id: 'k', type: 'int' }, { id: 'long', type: 'text' }], [])
      for (const from of [0, 2000]) {
        const records = Array.from({ length: 2000 }, (_, k) => ({ k: from + k, long }))
        await t.ok('datastore_upsert', { resource_id: wide, method: 'insert', records }, sys)
      }
      const { metadata, rows } = await parquetOf(`/datastore/dump/${wide}?format=parquet`)
      const sizes = metadata.row_groups.map((g) => Number(g.num_rows))
      expect(sizes.length).toBeGreaterThan(1)
      expect(sizes.reduce((a, b) => a + b)).toBe(4000)
      expect(rows.every((r, k) => r.k === k && r.long === long)).toBe(true)
    })

    it('applies fields, sort, offset and limit', async () => {
      const path = `/datastore/dump/${big}?format=parquet&fields=n&sort=n%20desc&offset=10&limit=60000`
      const { metadata, rows } = await parquetOf(path)
      expect(metadata.schema.slice(1).map((e) => e.name)).toEqual(['n'])
      expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([50_000, 10_000])
      expect(rows[0]).toEqual({ n: BIG_ROWS - 10 })
      expect(rows.at(-1)).toEqual({ n: BIG_ROWS - 10 - 59_999 })
    }, 60_000)

    it('applies filters and q as datastore_search does', async () => {
      const filters = encodeURIComponent(JSON.stringify({ ok: true }))
      const { rows } = await readParquet(
        (await dump(`/datastore/dump/${typed}?format=parquet&filters=${filters}&fields=i,tx`)).bytes,
      )
      expect(rows).toEqual([
        { i: 1, tx: 'Grüße 🌍 "quoted", ok' },
        { i: 2147483647, tx: 'line\nbreak\u2028sep' },
      ])
      const q = await parquetOf(`/datastore/dump/${big}?format=parquet&q=w77777`)
      expect(q.rows.map((r) => r.n)).toEqual([77777])
    })

    it('writes a valid file without rows', async () => {
      const filters = encodeURIComponent(JSON.stringify({ i: 99 }))
      const { metadata, rows } = await readParquet(
        (await dump(`/datastore/dump/${typed}?format=parquet&filters=${filters}`)).bytes,
      )
      expect(rows).toEqual([])
      expect(metadata.row_groups).toEqual([])
      expect(metadata.schema).toHaveLength(FIELDS.length + 2)
    })

    it('ignores bom', async () => {
      const { bytes } = await dump(`/datastore/dump/${typed}?format=parquet&bom=true`)
      expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('PAR1')
    })
  })

  describe('jsonl', () => {
    it('answers one object a line with the json dump\'s values', async () => {
      const { res, bytes } = await dump(`/datastore/dump/${typed}?format=jsonl`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${typed}.jsonl"`)
      const text = new TextDecoder().decode(bytes)
      expect(text.endsWith('}\n')).toBe(true)
      const lines = text.slice(0, -1).split('\n')
      const jsonDump = await dump(`/datastore/dump/${typed}?format=json`)
      const json = lenientJson(new TextDecoder().decode(jsonDump.bytes))
      const ids = (json.fields as Dict[]).map((f) => f.id)
      expect(lines).toHaveLength(json.records.length)
      lines.forEach((line, k) => {
        const o = lenientJson(line)
        expect(Object.keys(o)).toEqual(ids)
        expect(Object.values(o)).toEqual(json.records[k])
      })
      // the same text as the json dump prints for each value (U+2028 escaped as there, and
      // Python's NaN and Infinity)
      expect(lines[3]).toContain('"tx":"line\\nbreak\\u2028sep"')
      expect(lines[2]).toContain('"n":NaN,"f":"Infinity",')
    })

    it('applies the search parameters and writes nothing for no rows', async () => {
      const path = `/datastore/dump/${big}?format=jsonl&fields=n,word&sort=n%20desc&limit=3`
      const text = new TextDecoder().decode((await dump(path)).bytes)
      expect(text).toBe(
        `{"n":${BIG_ROWS},"word":"w${BIG_ROWS}"}\n{"n":${BIG_ROWS - 1},"word":"w${BIG_ROWS - 1}"}\n` +
          `{"n":${BIG_ROWS - 2},"word":"w${BIG_ROWS - 2}"}\n`,
      )
      const none = encodeURIComponent(JSON.stringify({ n: 0 }))
      expect((await dump(`/datastore/dump/${big}?format=jsonl&filters=${none}`)).bytes).toHaveLength(0)
    })
  })

  describe('access and caching', () => {
    it('refuses a private table to an anonymous caller or a stranger in both formats', async () => {
      for (const format of ['parquet', 'jsonl'])
        for (const who of [null, stranger]) {
          const { res, bytes } = await dump(`/datastore/dump/${priv}?format=${format}`, who)
          expect(res.status).toBe(403)
          expect(new TextDecoder().decode(bytes)).toBe('Not authorized to read DataStore resource')
        }
      const own = await dump(`/datastore/dump/${priv}?format=parquet`, sys)
      expect(own.res.status).toBe(200)
      expect((await readParquet(own.bytes)).rows).toEqual([{ _id: 1n, secret: 's' }])
      expect(new TextDecoder().decode((await dump(`/datastore/dump/${priv}?format=jsonl`, sys)).bytes)).toBe(
        '{"_id":1,"secret":"s"}\n',
      )
      expect((await dump(`/datastore/dump/no-such-table?format=parquet`)).res.status).toBe(404)
    })

    it('answers 304 to the ETag of each format, which differs from the csv one', async () => {
      const tags: string[] = []
      for (const format of ['parquet', 'jsonl', 'csv']) {
        const path = `/datastore/dump/${typed}?format=${format}`
        const first = await dump(path)
        const etag = first.res.headers.get('etag')!
        expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
        expect(first.res.headers.get('cache-control')).toMatch(/^public/)
        const again = await dump(path, null, { 'if-none-match': etag })
        expect(again.res.status).toBe(304)
        expect(again.bytes).toHaveLength(0)
        tags.push(etag)
      }
      expect(new Set(tags).size).toBe(3)
      const priv304 = await dump(`/datastore/dump/${priv}?format=parquet`, sys)
      const etag = priv304.res.headers.get('etag')!
      expect(priv304.res.headers.get('cache-control')).toMatch(/^private/)
      const again = (as: Who | null) =>
        dump(`/datastore/dump/${priv}?format=parquet`, as, { 'if-none-match': etag })
      expect((await again(null)).res.status).toBe(403)
      expect((await again(sys)).res.status).toBe(304)
    })

    it('links every format from the resource page', async () => {
      const res = await t.app.request(`/dataset/${pubName}/resource/${typed}`)
      const html = await res.text()
      expect(res.status).toBe(200)
      expect(html).toContain(
        '<nav aria-labelledby="datastore-downloads"><h3 id="datastore-downloads">Download</h3>',
      )
      const link = /<a href="\/datastore\/dump\/([^"?]+)\?format=(\w+)" type="[^"]+">([^<]+)<\/a>/g
      const formats = [
        ['csv', 'CSV'], ['tsv', 'TSV'], ['json', 'JSON'], ['xml', 'XML'],
        ['parquet', 'Parquet'], ['jsonl', 'JSON Lines'],
      ]
      expect([...html.matchAll(link)].map((m) => [m[1], m[2], m[3]])).toEqual(
        formats.map(([f, label]) => [typed, f, label]),
      )
    })

    it('still refuses an unknown format with CKAN\'s message', async () => {
      const { res, bytes } = await dump(`/datastore/dump/${typed}?format=xlsx`)
      expect(res.status).toBe(400)
      const message = "format: Value must be one of ('csv', 'tsv', 'json', 'xml')"
      expect(new TextDecoder().decode(bytes)).toBe(message)
    })
  })
})
