// Text output of DataStore rows, byte-compatible with CKAN 2.9 on PostgreSQL: the COPY lines of
// records_format csv/tsv and the /datastore/dump layouts (csv, tsv, json, xml; and JSON Lines,
// which CKAN does not have: the json dump's values, one object per line).
//
// Facts this reproduces (CKAN 2.9.11 ckanext/datastore/{backend/postgres.py,writer.py}, PG 15):
// - csv/tsv rows are `COPY (…) TO STDOUT csv DELIMITER …`. The select list wraps arrays in
//   coalesce(array_to_json(col),'null') and json columns in coalesce((col).json,'null'), so a NULL
//   array or json cell prints `null`, not an empty field. json cells hold the text CKAN stored
//   with Python's json.dumps defaults: `, ` and `: ` separators, non-ASCII escaped as \uXXXX.
// - PG prints float8 in shortest round-trip digits, fixed only for exponents -4..14 (1e+15,
//   1e-05); float4 (the `rank` column, reported as `float`) the same with fixed exponents -4..5.
// - The json and xml dumps parse PG's JSON with simplejson and print Python values again: a PG
//   number with `.` or an exponent becomes a float printed by repr (fixed only for exponents
//   -4..15, `.0` appended: 1e15 → 1000000000000000.0, 1e-05), others stay ints. simplejson with
//   ensure_ascii=False still escapes U+2028/U+2029. XML text is Python str(): True/False.
// - The dump headers come from Python's csv module: quote only for the delimiter, `"`, CR, LF;
//   lines end with CRLF while COPY rows end with LF.
// - XML is ElementTree output: attributes in insertion order (`xsi:nil` before `key`), empty
//   text or no children self-closes as `<x />`, tag names are written unescaped.

import { asciiJsonString } from '../lib/json'
import { expForm, pyFloatRepr, pyNumber } from '../lib/py-repr'

export interface OutField {
  id: string
  type: string
  info?: Record<string, unknown>
}

/** Dump writers: header()/row()/footer() strings; the route concatenates them into a stream. */
export interface DumpWriter {
  contentType: string
  extension: string
  header(): string
  /** One record in `fields` order. Stateful for json (the first record has no comma). */
  row(values: unknown[]): string
  footer(): string
}

export const BOM = '\uFEFF'

type Num = (n: number) => string

// ---- numbers --------------------------------------------------------------------------------

/**
 * printf %g-style text with shortest digits: fixed for 1e-4 <= |n| < limit. JS String() is
 * already that fixed form for 1e-6 <= |n| < 1e21, so only the exponent form needs building.
 */
function shortest(n: number, limit: number): string {
  const a = Math.abs(n)
  if (a === 0) return Object.is(n, -0) ? '-0' : '0'
  if (!Number.isFinite(n)) return String(n)
  return a >= 1e-4 && a < limit ? String(n) : expForm(n)
}

/** The double nearest the shortest decimal that reads back as the same float4. */
function float4Value(n: number): number {
  const f = Math.fround(n)
  if (f === 0 || !Number.isFinite(f)) return f
  for (let p = 1; p < 9; p++) {
    const d = Number(f.toPrecision(p))
    if (Math.fround(d) === f) return d
  }
  return Number(f.toPrecision(9))
}

const pgFloat8 = (n: number) => shortest(n, 1e15)
const pgFloat4 = (n: number) => shortest(float4Value(n), 1e6)

/** PG numeric output never uses an exponent. */
function plainDecimal(n: number): string {
  const s = String(n)
  if (!s.includes('e')) return s
  const [mantissa = '', exp = '0'] = n.toExponential().split('e')
  const neg = mantissa.startsWith('-')
  const digits = mantissa.replace('-', '').replace('.', '')
  const point = Number(exp) + 1 // digits before the decimal point
  const body =
    point <= 0
      ? '0.' + '0'.repeat(-point) + digits
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : digits.slice(0, point) + '.' + digits.slice(point)
  return neg ? '-' + body : body
}

/** Exact decimals (numeric values given as text) after simplejson: `.`/exponent → float. */
function pyDecimalText(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 46 || c === 101 || c === 69) return pyFloatRepr(Number(s))
  }
  return s
}

// ---- column kinds ---------------------------------------------------------------------------

interface Kind {
  /** PG's output text of a number of this type (COPY cells, array_to_json items). */
  copyNum: Num
  /** The same number after PG JSON → simplejson → Python print (json and xml dumps). */
  pyNum: Num
  /** numeric: strings are exact decimals, printed as numbers. */
  decimal: boolean
  bool: boolean
}

const kind = (copyNum: Num, pyNum: Num, decimal = false, bool = false) =>
  ({ copyNum, pyNum, decimal, bool }) as Kind
const INT = kind(String, String)
const FLOAT8 = kind(pgFloat8, (n) =>
  Number.isInteger(n) && Math.abs(n) < 1e15 ? String(n) : pyFloatRepr(n),
)
const FLOAT4 = kind(pgFloat4, (n) => {
  const d = float4Value(n)
  return Number.isInteger(d) && Math.abs(d) < 1e6 ? String(d) : pyFloatRepr(d)
})
const NUMERIC = kind(
  plainDecimal,
  (n) => (Number.isInteger(n) ? plainDecimal(n) : pyFloatRepr(n)),
  true,
)
const BOOL = kind(String, pyNumber, false, true)
const OTHER = kind(String, pyNumber)

// Reported type names; `float` is what CKAN reports for rank columns, which are PG `real`.
const KINDS: Record<string, Kind> = { float8: FLOAT8, float4: FLOAT4, float: FLOAT4, bool: BOOL }
for (const t of ['int', 'int2', 'int4', 'int8', 'oid']) KINDS[t] = INT
KINDS.numeric = NUMERIC

type Column = { shape: 'scalar' | 'array' | 'json'; kind: Kind }

function columnOf(type: string): Column {
  const t = type.toLowerCase()
  if (t === 'json' || t === 'nested' || t === 'jsonb') return { shape: 'json', kind: OTHER }
  const array = t.startsWith('_') || t.endsWith('[]')
  const base = t.startsWith('_') ? t.slice(1) : array ? t.slice(0, -2) : t
  return { shape: array ? 'array' : 'scalar', kind: KINDS[base] ?? OTHER }
}

/** PG's output text of a number in a scalar column of `type` (a COPY cell), for a caller's own loop. */
export const copyNumberOf = (type: string): Num => columnOf(type).kind.copyNum

// SQLite keeps booleans as 0/1; a row that still carries them prints like PG's bool.
const asBool = (v: unknown) => (typeof v === 'number' ? v !== 0 : v)

// ---- JSON texts -----------------------------------------------------------------------------

interface JsonStyle {
  num: Num
  str: (s: string) => string
  item: string
  key: string
}

function toJson(v: unknown, st: JsonStyle): string {
  if (v === null || v === undefined) return 'null'
  switch (typeof v) {
    case 'string':
      return st.str(v)
    case 'number':
      return st.num(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'bigint':
      return String(v)
  }
  let out = ''
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) out += (i ? st.item : '') + toJson(v[i], st)
    return '[' + out + ']'
  }
  const obj = v as Record<string, unknown>
  for (const k in obj) {
    if (obj[k] === undefined) continue
    out += (out ? st.item : '') + st.str(k) + st.key + toJson(obj[k], st)
  }
  return '{' + out + '}'
}

// PG's escape_json and JSON.stringify escape the same characters.
const PG_JSON: JsonStyle = { num: String, str: JSON.stringify, item: ',', key: ':' }
const STORED_JSON: JsonStyle = { num: pyNumber, str: asciiJsonString, item: ', ', key: ': ' }
const DUMP_JSON: JsonStyle = { num: pyNumber, str: JSON.stringify, item: ',', key: ':' }

const arrayStyle = (base: JsonStyle, k: Kind, py: boolean): JsonStyle => ({
  ...base,
  num: py ? k.pyNum : k.copyNum,
  str: k.decimal ? (py ? pyDecimalText : (s) => s) : base.str,
})

/** simplejson (ensure_ascii=False) escapes the JavaScript line terminators; JSON.stringify doesn't. */
function escapeLineSeparators(s: string): string {
  if (s.indexOf('\u2028') < 0 && s.indexOf('\u2029') < 0) return s
  return s.replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029')
}

// ---- COPY csv/tsv ---------------------------------------------------------------------------

/** The unquoted COPY text of one cell, or null for SQL NULL. */
function copyCell(f: OutField): (v: unknown) => string | null {
  const { shape, kind: k } = columnOf(f.type)
  if (shape === 'json') return (v) => (v == null ? 'null' : toJson(v, STORED_JSON))
  if (shape === 'array') {
    const st = arrayStyle(PG_JSON, k, false)
    return (v) => (v == null ? 'null' : toJson(v, st))
  }
  const num = k.copyNum
  const cell = (v: unknown): string | null => {
    if (v === null || v === undefined) return null
    if (typeof v === 'string') return v
    if (typeof v === 'number') return num(v)
    if (typeof v === 'boolean') return v ? 't' : 'f'
    return toJson(v, PG_JSON)
  }
  return k.bool ? (v) => cell(asBool(v)) : cell
}

function needsQuote(s: string, delim: number): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === delim || c === 34 || c === 10 || c === 13) return true
  }
  return false
}

const quote = (s: string) => '"' + (s.includes('"') ? s.replaceAll('"', '""') : s) + '"'

/**
 * One PG COPY CSV/TSV line (ends with '\n') per row of output values in `fields` order. A cell
 * is quoted only for the delimiter, '"', CR or LF; '' → `""`; NULL → nothing (`null` for array
 * and json columns, as CKAN selects them).
 */
export function makeCopyLine(
  fields: OutField[],
  delimiter: ',' | '\t',
): (row: unknown[]) => string {
  const cells = fields.map(copyCell)
  const n = cells.length
  const d = delimiter.charCodeAt(0)
  // COPY quotes a lone `\.` so it cannot read back as the end-of-data marker
  const single = n === 1
  return (row) => {
    let line = ''
    for (let i = 0; i < n; i++) {
      const t = cells[i]!(row[i])
      if (i) line += delimiter
      if (t === null) continue
      line += t === '' || needsQuote(t, d) || (single && t === '\\.') ? quote(t) : t
    }
    return line + '\n'
  }
}

// ---- dumps ----------------------------------------------------------------------------------

function textDump(fields: OutField[], delimiter: ',' | '\t'): DumpWriter {
  const d = delimiter.charCodeAt(0)
  const header =
    fields.map((f) => (needsQuote(f.id, d) ? quote(f.id) : f.id)).join(delimiter) + '\r\n'
  const row = makeCopyLine(fields, delimiter)
  return {
    contentType:
      delimiter === ',' ? 'text/csv; charset=utf-8' : 'text/tab-separated-values; charset=utf-8',
    extension: delimiter === ',' ? 'csv' : 'tsv',
    header: () => header,
    row,
    footer: () => '',
  }
}

/** A cell as simplejson prints the value parsed from PG's JSON. */
export function dumpCell(f: OutField): (v: unknown) => string {
  const { shape, kind: k } = columnOf(f.type)
  if (shape === 'json') return (v) => toJson(v, DUMP_JSON)
  if (shape === 'array') {
    const st = arrayStyle(DUMP_JSON, k, true)
    return (v) => toJson(v, st)
  }
  const num = k.pyNum
  const cell = (v: unknown): string => {
    if (typeof v === 'string') return k.decimal ? pyDecimalText(v) : JSON.stringify(v)
    if (typeof v === 'number') return num(v)
    return toJson(v, DUMP_JSON)
  }
  return k.bool ? (v) => cell(asBool(v)) : cell
}

function jsonDump(fields: OutField[]): DumpWriter {
  const cells = fields.map(dumpCell)
  const n = cells.length
  let first = true
  const row = (values: unknown[]) => {
    let line = first ? '\n    [' : ',\n    ['
    first = false
    for (let i = 0; i < n; i++) line += (i ? ',' : '') + cells[i]!(values[i])
    return escapeLineSeparators(line + ']')
  }
  return {
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    header: () =>
      escapeLineSeparators(`{\n  "fields": ${toJson(fields, DUMP_JSON)},\n  "records": [`),
    row,
    footer: () => '\n]}\n',
  }
}

/**
 * JSON Lines: one object per row keyed by field id, holding the json dump's values as it prints
 * them. `application/x-ndjson` is the media type that clients of line-delimited JSON already
 * send and recognise (none is registered; jsonlines.org's `application/jsonl` is a proposal).
 */
function jsonLinesDump(fields: OutField[]): DumpWriter {
  const cells = fields.map(dumpCell)
  const keys = fields.map((f, i) => (i ? ',' : '{') + JSON.stringify(f.id) + ':')
  const n = cells.length
  const row = (values: unknown[]) => {
    let line = n ? '' : '{'
    for (let i = 0; i < n; i++) line += keys[i]! + cells[i]!(values[i])
    return escapeLineSeparators(line + '}\n')
  }
  return {
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'jsonl',
    header: () => '',
    row,
    footer: () => '',
  }
}

const escText = (s: string) =>
  needsXmlEscape(s) ? s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;') : s

function needsXmlEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 38 || c === 60 || c === 62) return true
  }
  return false
}

// ElementTree (Python ≥ 3.9) also turns CR, LF and TAB in attribute values into references.
const escAttr = (s: string) =>
  escText(s)
    .replaceAll('"', '&quot;')
    .replaceAll('\r', '&#13;')
    .replaceAll('\n', '&#10;')
    .replaceAll('\t', '&#09;')

/** Python str() of a scalar. */
function pyText(v: unknown, k: Kind): string {
  if (typeof v === 'string') return k.decimal ? pyDecimalText(v) : v
  if (typeof v === 'number') return k.pyNum(v)
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  return String(v)
}

/** One element: `open` is `<tag`, `attr` the optional ` key="…"`. */
function xmlNode(open: string, close: string, attr: string, v: unknown, k: Kind): string {
  if (v === null || v === undefined) return open + ' xsi:nil="true"' + attr + ' />'
  let inner = ''
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++)
      inner += xmlNode('<value', '</value>', ` key="${i}"`, v[i], k)
  } else if (typeof v === 'object') {
    const obj = v as Record<string, unknown>
    for (const key in obj) {
      if (obj[key] === undefined) continue
      inner += xmlNode('<value', '</value>', ` key="${escAttr(key)}"`, obj[key], k)
    }
  } else inner = escText(pyText(v, k))
  return inner === '' ? open + attr + ' />' : open + attr + '>' + inner + close
}

function xmlCell(f: OutField): (v: unknown) => string {
  const { shape, kind: k } = columnOf(f.type)
  const open = '<' + f.id
  const close = '</' + f.id + '>'
  const itemKind = shape === 'json' ? OTHER : k
  return (v) => xmlNode(open, close, '', k.bool ? asBool(v) : v, itemKind)
}

function xmlDump(fields: OutField[]): DumpWriter {
  // ckan: _id becomes an attribute of <row> only when it is the first column
  const idAttr = fields[0]?.id === '_id'
  const cells = fields.map(xmlCell)
  const row = (values: unknown[]) => {
    let inner = ''
    for (let i = idAttr ? 1 : 0; i < cells.length; i++) inner += cells[i]!(values[i])
    const open = idAttr ? `<row _id="${escAttr(pyText(values[0], INT))}"` : '<row'
    return (inner === '' ? open + ' />' : open + '>' + inner + '</row>') + '\n'
  }
  return {
    contentType: 'text/xml; charset=utf-8',
    extension: 'xml',
    header: () => '<data xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n',
    row,
    footer: () => '</data>\n',
  }
}

/** A fresh writer per dump (the json writer remembers whether a record was written). */
export function dumpWriter(
  format: 'csv' | 'tsv' | 'json' | 'xml' | 'jsonl',
  fields: OutField[],
): DumpWriter {
  switch (format) {
    case 'csv':
      return textDump(fields, ',')
    case 'tsv':
      return textDump(fields, '\t')
    case 'json':
      return jsonDump(fields)
    case 'xml':
      return xmlDump(fields)
    case 'jsonl':
      return jsonLinesDump(fields)
  }
}
