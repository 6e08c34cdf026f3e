// The allow-list of DataStore column types: the PostgreSQL spellings CKAN accepts, the names it
// reports, and the SQLite declaration each is stored under. No other type string reaches DDL.

export type BaseKind =
  | 'int'
  | 'float'
  | 'numeric'
  | 'text'
  | 'bool'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'json'
  | 'other'

export interface ColumnType {
  /** Reported (PostgreSQL internal) name: 'int4', 'varchar', '_text', ... */
  name: string
  /** Kind of the value, or of the element for arrays. */
  kind: BaseKind
  array: boolean
  /** Declared SQLite column type (tables are not STRICT). */
  sqlType: 'INTEGER' | 'REAL' | 'NUMERIC' | 'TEXT'
}

interface Base {
  kind: BaseKind
  /** PostgreSQL's format_type() spelling, used in error messages. */
  long: string
  /** Which type modifier `(…)` the input may carry. */
  mod?: 'precision' | 'length' | 'fraction' | 'float'
}

const base = (kind: BaseKind, long: string, mod?: Base['mod']): Base => ({ kind, long, mod })

/** Internal names: what CKAN reports, and what a stored column type is. */
const BASES: Record<string, Base> = {
  int4: base('int', 'integer'),
  int8: base('int', 'bigint'),
  int2: base('int', 'smallint'),
  oid: base('int', 'oid'),
  float8: base('float', 'double precision'),
  float4: base('float', 'real'),
  numeric: base('numeric', 'numeric', 'precision'),
  text: base('text', 'text'),
  varchar: base('text', 'character varying', 'length'),
  bpchar: base('text', 'character', 'length'),
  name: base('text', 'name'),
  bool: base('bool', 'boolean'),
  date: base('date', 'date'),
  time: base('time', 'time without time zone', 'fraction'),
  timestamp: base('timestamp', 'timestamp without time zone', 'fraction'),
  timestamptz: base('timestamptz', 'timestamp with time zone', 'fraction'),
  json: base('json', 'json'),
  jsonb: base('json', 'jsonb'),
  timetz: base('other', 'time with time zone', 'fraction'),
  interval: base('other', 'interval', 'fraction'),
  uuid: base('other', 'uuid'),
  tsvector: base('other', 'tsvector'),
  tsquery: base('other', 'tsquery'),
  inet: base('other', 'inet'),
  cidr: base('other', 'cidr'),
  macaddr: base('other', 'macaddr'),
  money: base('other', 'money'),
  bytea: base('other', 'bytea'),
  xml: base('other', 'xml'),
}

/** Other accepted spellings → internal name. */
const ALIASES: Record<string, string> = {
  int: 'int4',
  integer: 'int4',
  bigint: 'int8',
  smallint: 'int2',
  float: 'float8',
  'double precision': 'float8',
  real: 'float4',
  decimal: 'numeric',
  'character varying': 'varchar',
  char: 'bpchar',
  character: 'bpchar',
  boolean: 'bool',
  nested: 'json', // ckan: the pre-9.2 composite type name, reported as json
  'time without time zone': 'time',
  'time with time zone': 'timetz',
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
}

const SQL_TYPES: Record<BaseKind, ColumnType['sqlType']> = {
  int: 'INTEGER',
  bool: 'INTEGER',
  float: 'REAL',
  numeric: 'NUMERIC',
  text: 'TEXT',
  date: 'TEXT',
  time: 'TEXT',
  timestamp: 'TEXT',
  timestamptz: 'TEXT',
  json: 'TEXT',
  other: 'TEXT',
}

// user words are looked up in plain objects: never let `constructor` & co. match the prototype
const isOwn = (o: object, key: string) => Object.hasOwn(o, key)

const cache = new Map<string, ColumnType>()

/** One shared frozen object per reported name, so callers may cache per-type work on identity. */
function columnType(internal: string, array: boolean): ColumnType {
  const name = array ? `_${internal}` : internal
  let t = cache.get(name)
  if (!t) {
    const kind = BASES[internal]!.kind
    const sqlType = array ? 'TEXT' : SQL_TYPES[kind]
    cache.set(name, (t = Object.freeze({ name, kind, array, sqlType })))
  }
  return t
}

// base name, optional "(modifier)", optional time zone clause, e.g. "timestamp(3) with time zone"
const SHAPE =
  /^([a-z][a-z0-9]*(?: [a-z][a-z0-9]*)*?) ?(?:\((\d+)(?: ?, ?(-?\d+))?\))?( with(?:out)? time zone)?$/
// trailing "[]", "[3]", "array" or "array[3]"
const ARRAY_SUFFIX = /(?: ?\[ ?\d* ?\]| array(?: ?\[ ?\d* ?\])?)$/

function validModifier(mod: Base['mod'], p: number, s: string | undefined): boolean {
  if (mod === 'precision')
    return p >= 1 && p <= 1000 && (s === undefined || (Number(s) >= 0 && Number(s) <= p))
  if (s !== undefined) return false
  if (mod === 'length') return p >= 1 && p <= 10485760
  if (mod === 'fraction') return p <= 6
  return mod === 'float' && p >= 1 && p <= 53
}

/** Internal name of a scalar type spelling, or undefined. */
function scalarName(text: string): string | undefined {
  const m = SHAPE.exec(text)
  if (!m) return undefined
  const [, word, precision, scale, zone] = m
  const spelling = zone ? word + zone : word!
  let internal = isOwn(ALIASES, spelling) ? ALIASES[spelling]! : spelling
  // only `time` and `timestamp` take a time zone clause
  if (zone && word !== 'time' && word !== 'timestamp') return undefined
  if (precision !== undefined) {
    const p = Number(precision)
    if (word === 'float') {
      if (!validModifier('float', p, scale)) return undefined
      internal = p <= 24 ? 'float4' : 'float8'
    } else if (!validModifier(BASES[internal]?.mod, p, scale)) return undefined
  }
  return isOwn(BASES, internal) ? internal : undefined
}

/**
 * Parses a user type string ('int', 'double precision', 'numeric(10,2)', 'text[]', '_text',
 * 'nested', ...). null when not a valid type: the caller reports
 * `"<type>" is not a valid field type`.
 */
export function parseType(input: string): ColumnType | null {
  if (typeof input !== 'string') return null
  let text = input.trim().toLowerCase().replace(/\s+/g, ' ')
  let array = false
  for (let m = ARRAY_SUFFIX.exec(text); m; m = ARRAY_SUFFIX.exec(text)) {
    text = text.slice(0, m.index).trimEnd()
    array = true
  }
  if (text.startsWith('_')) {
    // PostgreSQL's own array type names (`_int4`) are exact internal names, and not nestable
    if (array || !isOwn(BASES, text.slice(1))) return null
    return columnType(text.slice(1), true)
  }
  const internal = scalarName(text)
  return internal === undefined ? null : columnType(internal, array)
}

/** The ColumnType of a stored reported name (also accepts any parseType spelling, e.g. `int`). */
export function typeFromName(name: string): ColumnType {
  const t = cache.get(name) ?? parseType(name)
  if (!t) throw new Error(`unknown DataStore column type ${JSON.stringify(name)}`)
  return t
}

/** PostgreSQL's long spelling (`integer`, `text[]`), as it appears in its error messages. */
export function pgTypeName(t: ColumnType): string {
  const long = BASES[t.array ? t.name.slice(1) : t.name]!.long
  return t.array ? `${long}[]` : long
}

/** datastore_info schema value: 'number' for int4/numeric, 'date' for timestamps (§8). */
export function infoKind(t: ColumnType): 'number' | 'date' | 'text' {
  if (t.array) return 'text'
  if (t.name === 'int4' || t.name === 'numeric') return 'number'
  return t.kind === 'timestamp' || t.kind === 'timestamptz' ? 'date' : 'text'
}
