// Unit tests for DataStore column types and value conversion (datastore.md §2, §6.3, §6.6, §7).
import { describe, expect, it } from 'vitest'
import {
  infoKind,
  parseType,
  pgTypeName,
  typeFromName,
  type ColumnType,
} from '../../src/datastore/column-types'
import {
  filterValue,
  fromStored,
  fromStoredSql,
  guessType,
  makeCoercer,
  makeDecoder,
  toStored,
  ValueError,
} from '../../src/datastore/values'

const T = (name: string): ColumnType => typeFromName(name)
const DIMS = 'multidimensional arrays must have array expressions with matching dimensions'

/** The ValueError message toStored throws, or a failure when it does not throw one. */
function storeError(type: string, v: unknown, column?: string): string {
  try {
    const stored = toStored(T(type), v, column)
    return `stored ${JSON.stringify(stored)}`
  } catch (e) {
    if (!(e instanceof ValueError)) throw e
    return e.message
  }
}

function filterError(type: string, v: unknown): string {
  try {
    return `bound ${JSON.stringify(filterValue(T(type), v))}`
  } catch (e) {
    if (!(e instanceof ValueError)) throw e
    return e.message
  }
}

describe('parseType', () => {
  // prettier-ignore
  const ACCEPTED: [string, string, string, boolean, string][] = [
    // input, reported name, kind, array, SQLite declaration
    ['int', 'int4', 'int', false, 'INTEGER'],
    ['integer', 'int4', 'int', false, 'INTEGER'],
    ['INT4', 'int4', 'int', false, 'INTEGER'],
    ['  Integer ', 'int4', 'int', false, 'INTEGER'],
    ['int8', 'int8', 'int', false, 'INTEGER'],
    ['bigint', 'int8', 'int', false, 'INTEGER'],
    ['int2', 'int2', 'int', false, 'INTEGER'],
    ['smallint', 'int2', 'int', false, 'INTEGER'],
    ['float', 'float8', 'float', false, 'REAL'],
    ['float8', 'float8', 'float', false, 'REAL'],
    ['double precision', 'float8', 'float', false, 'REAL'],
    ['DOUBLE   PRECISION', 'float8', 'float', false, 'REAL'],
    ['float4', 'float4', 'float', false, 'REAL'],
    ['real', 'float4', 'float', false, 'REAL'],
    ['float(24)', 'float4', 'float', false, 'REAL'],
    ['float(25)', 'float8', 'float', false, 'REAL'],
    ['numeric', 'numeric', 'numeric', false, 'NUMERIC'],
    ['decimal', 'numeric', 'numeric', false, 'NUMERIC'],
    ['numeric(10,2)', 'numeric', 'numeric', false, 'NUMERIC'],
    ['numeric(10, 2)', 'numeric', 'numeric', false, 'NUMERIC'],
    ['decimal(5)', 'numeric', 'numeric', false, 'NUMERIC'],
    ['text', 'text', 'text', false, 'TEXT'],
    ['varchar', 'varchar', 'text', false, 'TEXT'],
    ['varchar(20)', 'varchar', 'text', false, 'TEXT'],
    ['character varying', 'varchar', 'text', false, 'TEXT'],
    ['character varying(20)', 'varchar', 'text', false, 'TEXT'],
    ['char', 'bpchar', 'text', false, 'TEXT'],
    ['char(3)', 'bpchar', 'text', false, 'TEXT'],
    ['character(3)', 'bpchar', 'text', false, 'TEXT'],
    ['bool', 'bool', 'bool', false, 'INTEGER'],
    ['boolean', 'bool', 'bool', false, 'INTEGER'],
    ['date', 'date', 'date', false, 'TEXT'],
    ['time', 'time', 'time', false, 'TEXT'],
    ['time without time zone', 'time', 'time', false, 'TEXT'],
    ['time(3)', 'time', 'time', false, 'TEXT'],
    ['timestamp', 'timestamp', 'timestamp', false, 'TEXT'],
    ['timestamp without time zone', 'timestamp', 'timestamp', false, 'TEXT'],
    ['timestamp(3) without time zone', 'timestamp', 'timestamp', false, 'TEXT'],
    ['timestamptz', 'timestamptz', 'timestamptz', false, 'TEXT'],
    ['timestamp with time zone', 'timestamptz', 'timestamptz', false, 'TEXT'],
    ['json', 'json', 'json', false, 'TEXT'],
    ['nested', 'json', 'json', false, 'TEXT'],
    ['jsonb', 'jsonb', 'json', false, 'TEXT'],
    ['uuid', 'uuid', 'other', false, 'TEXT'],
    ['interval', 'interval', 'other', false, 'TEXT'],
    ['tsvector', 'tsvector', 'other', false, 'TEXT'],
    ['text[]', '_text', 'text', true, 'TEXT'],
    ['_text', '_text', 'text', true, 'TEXT'],
    ['int[]', '_int4', 'int', true, 'TEXT'],
    ['int[3]', '_int4', 'int', true, 'TEXT'],
    ['int [ ]', '_int4', 'int', true, 'TEXT'],
    ['integer[][]', '_int4', 'int', true, 'TEXT'],
    ['int array', '_int4', 'int', true, 'TEXT'],
    ['_INT4', '_int4', 'int', true, 'TEXT'],
    ['float[]', '_float8', 'float', true, 'TEXT'],
    ['_float8', '_float8', 'float', true, 'TEXT'],
    ['numeric(5,2)[]', '_numeric', 'numeric', true, 'TEXT'],
    ['varchar(10)[]', '_varchar', 'text', true, 'TEXT'],
    ['timestamp[]', '_timestamp', 'timestamp', true, 'TEXT'],
    ['boolean[]', '_bool', 'bool', true, 'TEXT'],
    ['json[]', '_json', 'json', true, 'TEXT'],
    ['nested[]', '_json', 'json', true, 'TEXT'],
  ]
  it.each(ACCEPTED)('accepts %o as %s', (input, name, kind, array, sqlType) => {
    expect(parseType(input)).toEqual({ name, kind, array, sqlType })
  })

  // prettier-ignore
  const REJECTED = [
    'foo', '', '   ', 'int; drop table x', 'int4--', 'text)', '"text"', 'int(5)', 'text(10)',
    'numeric(0)', 'numeric(5,6)', 'numeric(5,)', 'varchar(0)', 'float(54)', 'float(0)',
    'double', 'int with time zone', 'timestamptz with time zone', 'date without time zone',
    '_int', '_integer', '_text[]', '__text', 'int[x]', 'int[', 'array', 'serial', 'int4 int4',
    'time(7)', 'text COLLATE "C"', 'int[3', 'text[]]',
    'constructor', 'toString', '__proto__', '_constructor', 'hasownproperty[]', '_valueof',
  ]
  it.each(REJECTED)('rejects %o', (input) => {
    expect(parseType(input)).toBeNull()
  })

  it('returns one shared object per reported name', () => {
    expect(parseType('int')).toBe(parseType('int4'))
    expect(parseType('integer[]')).toBe(parseType('_int4'))
    expect(parseType('text[]')).toBe(parseType('_text'))
  })
})

describe('typeFromName', () => {
  // prettier-ignore
  it.each([
    'int4', 'int8', 'float8', 'numeric', 'text', 'varchar', 'bpchar', 'bool', 'date', 'time',
    'timestamp', 'timestamptz', 'json', '_text', '_int4', '_float8', '_timestamp', 'uuid',
  ])('round-trips %s', (name) => expect(typeFromName(name).name).toBe(name))

  it('throws on a name outside the allow-list', () => {
    expect(() => typeFromName('foo')).toThrow('unknown DataStore column type "foo"')
  })
})

describe('pgTypeName', () => {
  // prettier-ignore
  it.each([
    ['int4', 'integer'], ['int8', 'bigint'], ['float8', 'double precision'], ['float4', 'real'],
    ['varchar', 'character varying'], ['bpchar', 'character'], ['bool', 'boolean'],
    ['timestamp', 'timestamp without time zone'], ['timestamptz', 'timestamp with time zone'],
    ['time', 'time without time zone'], ['_text', 'text[]'], ['_int4', 'integer[]'],
  ])('spells %s as %s', (name, long) => expect(pgTypeName(T(name))).toBe(long))
})

describe('infoKind', () => {
  // prettier-ignore
  it.each([
    ['int4', 'number'], ['numeric', 'number'], ['int8', 'text'], ['int2', 'text'],
    ['float8', 'text'], ['timestamp', 'date'], ['timestamptz', 'date'], ['date', 'text'],
    ['bool', 'text'], ['json', 'text'], ['_int4', 'text'], ['_timestamp', 'text'],
    ['text', 'text'],
  ])('reports %s as %s', (name, kind) => expect(infoKind(T(name))).toBe(kind))
})

describe('guessType', () => {
  // prettier-ignore
  it.each([
    [{ a: 1 }, 'json'], [[1, 2], 'json'], [[], 'json'], [5, 'int'], [-5, 'int'], [0, 'int'],
    [1.5, 'float'], [true, 'bool'], [false, 'bool'], [null, 'text'], ['', 'text'],
    ['abc', 'text'], ['12', 'integer'], [' 12 ', 'integer'], ['-12', 'integer'],
    ['+12', 'integer'], ['1.5', 'numeric'], ['1e5', 'numeric'], ['.5', 'numeric'],
    ['5.', 'numeric'], ['nan', 'numeric'], ['-Infinity', 'numeric'], ['1_000', 'text'],
    ['1.5.5', 'text'], ['0x10', 'text'], ['2020-01-01', 'timestamp'], ['2020-1-5', 'timestamp'],
    ['2020-01-01 10:00:00', 'timestamp'], ['2020-01-01T10:00:00', 'timestamp'],
    ['2020-01-01T10:00:00Z', 'timestamp'], ['2020-01-01t10:00:00z', 'timestamp'],
    ['31/12/2020', 'timestamp'], ['12/31/2020', 'timestamp'], ['31-12-2020', 'timestamp'],
    ['12-31-2020', 'timestamp'], ['2020-02-29', 'timestamp'], ['2019-02-29', 'text'],
    ['2020-13-01', 'text'], ['2020-01-01 10:00', 'text'], ['2020-01-01 10:00:00Z', 'text'],
    ['2020-01-01T10:00:60', 'text'], ['20/20/2020', 'text'],
    ['2020-01-01T10:00:00+02:00', 'text'], [' 2020-01-01', 'text'],
  ])('guesses %o as %s', (v, type) => expect(guessType(v)).toBe(type))

  it('guesses types that parseType accepts', () => {
    for (const v of [{}, 1, 1.5, true, '1', '1.5', '2020-01-01', 'x'])
      expect(parseType(guessType(v))).not.toBeNull()
  })
})

describe('toStored', () => {
  // prettier-ignore
  const STORED: [string, unknown, unknown][] = [
    ['int4', 12, 12], ['int4', '12', 12], ['int4', ' -12 ', -12], ['int4', '+7', 7],
    ['int4', '007', 7], ['int4', 2.5, 3], ['int4', -2.5, -3], ['int4', 2.4, 2], ['int4', -0, 0],
    ['int4', 2147483647, 2147483647], ['int4', '-2147483648', -2147483648],
    ['int2', '32767', 32767], ['int8', 9007199254740991, 9007199254740991],
    ['int8', '-9007199254740991', -9007199254740991],
    ['float8', 1.5, 1.5], ['float8', '1.5', 1.5], ['float8', ' 1e3 ', 1000], ['float8', '.5', 0.5],
    ['float8', '-5.', -5], ['float8', 'NaN', 'NaN'], ['float8', 'nan', 'NaN'],
    ['float8', 'Infinity', '1e999'], ['float8', '-inf', '-1e999'], ['float8', '0', 0],
    ['float4', '1.5', 1.5], ['float4', 3e38, 3e38],
    ['numeric', 10.5, 10.5], ['numeric', '10.50', 10.5], ['numeric', '1.5e1', 15],
    ['numeric', ' -0.000 ', 0], ['numeric', '123456789012345', 123456789012345],
    ['numeric', '0.1000000000000000000000', 0.1],
    ['numeric', '12345678901234567890.123', '12345678901234567890.123'],
    ['numeric', '1234567890123456789e-3', '1234567890123456.789'],
    ['numeric', '9007199254740993', '9007199254740993'],
    ['numeric', '1e-400', '0.' + '0'.repeat(399) + '1'],
    ['numeric', 'NaN', 'NaN'], ['numeric', 'infinity', '1e999'],
    ['text', 'abc', 'abc'], ['text', '', ''], ['text', 5, '5'], ['text', 1.5, '1.5'],
    ['text', 1e21, '1000000000000000000000'], ['text', 1e-7, '0.0000001'], ['text', true, 'true'],
    ['varchar', 'x', 'x'],
    ['bool', true, 1], ['bool', false, 0], ['bool', 't', 1], ['bool', 'TRUE', 1],
    ['bool', ' yes ', 1],
    ['bool', 'y', 1], ['bool', 'on', 1], ['bool', '1', 1], ['bool', 'tr', 1], ['bool', 'f', 0],
    ['bool', 'False', 0], ['bool', 'no', 0], ['bool', 'n', 0], ['bool', 'off', 0],
    ['bool', 'of', 0],
    ['bool', '0', 0],
    ['date', '2020-01-02', '2020-01-02'], ['date', '2020-1-2', '2020-01-02'],
    ['date', '01/02/2020', '2020-01-02'], ['date', '1-2-2020', '2020-01-02'],
    ['date', '20200102', '2020-01-02'], ['date', '2020-01-02 23:59:59', '2020-01-02'],
    ['date', '2020/01/02', '2020-01-02'], ['date', 'infinity', 'infinity'],
    ['date', '-infinity', '-infinity'], ['date', 'epoch', '1970-01-01'],
    ['time', '10:00', '10:00:00'], ['time', '1:2:3', '01:02:03'],
    ['time', '10:00:00.5', '10:00:00.5'],
    ['time', '10:00:00.123456789', '10:00:00.123457'], ['time', '24:00:00', '24:00:00'],
    ['time', '2020-01-01 10:30', '10:30:00'], ['time', '10:00:00+02', '10:00:00'],
    ['time', '10:00 PM', '22:00:00'], ['time', '12:00 am', '00:00:00'],
    ['time', 'allballs', '00:00:00'],
    ['timestamp', '2020-01-01T10:00:00', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01', '2020-01-01T00:00:00'],
    ['timestamp', '2020-01-01 10:00', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01T10:00:00Z', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01 10:00:00+05:30', '2020-01-01T10:00:00'],
    ['timestamp', '01/02/2020', '2020-01-02T00:00:00'],
    ['timestamp', '12/31/2020 1:02:03', '2020-12-31T01:02:03'],
    ['timestamp', '2020-01-01T10:00:00.250', '2020-01-01T10:00:00.25'],
    ['timestamp', '2020-01-01T10:00:00.000', '2020-01-01T10:00:00'],
    ['timestamp', '2020-12-31 23:59:59.9999999', '2021-01-01T00:00:00'],
    ['timestamp', '2020-12-31 24:00:00', '2021-01-01T00:00:00'],
    ['timestamp', '2020-12-31 23:59:60', '2021-01-01T00:00:00'],
    ['timestamp', '2020-01-01t10:00:00', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01T10:00:00 ', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01T10:00:00.120', '2020-01-01T10:00:00.12'],
    ['timestamp', '2020-01-01 10:00:00.000001', '2020-01-01T10:00:00.000001'],
    ['timestamp', '2020-01-01T10:00:00.1234565', '2020-01-01T10:00:00.123457'],
    ['timestamp', '2020-01-01T10:00:00.5Z', '2020-01-01T10:00:00.5'],
    ['timestamp', '2020-01-01T10:00:00+01:00', '2020-01-01T10:00:00'],
    ['timestamp', '2020.01.02', '2020-01-02T00:00:00'],
    ['timestamptz', '2020-01-01T10:00:00.5-01:30', '2020-01-01T11:30:00.5+00:00'],
    ['timestamptz', '2020-01-01 10:00 GMT', '2020-01-01T10:00:00+00:00'],
    ['timestamptz', '-infinity', '-infinity'],
    ['timestamp', '  2020-01-01   10:00:00  ', '2020-01-01T10:00:00'],
    ['timestamp', 'infinity', 'infinity'], ['timestamp', 'epoch', '1970-01-01T00:00:00'],
    ['timestamptz', '2020-01-01T10:00:00Z', '2020-01-01T10:00:00+00:00'],
    ['timestamptz', '2020-01-01 10:00:00', '2020-01-01T10:00:00+00:00'],
    ['timestamptz', '2020-01-01T10:00:00+02:00', '2020-01-01T08:00:00+00:00'],
    ['timestamptz', '2020-01-01T01:00:00+0530', '2019-12-31T19:30:00+00:00'],
    ['timestamptz', '2020-01-01T23:00:00-02', '2020-01-02T01:00:00+00:00'],
    ['timestamptz', '2020-01-01 10:00:00.5 UTC', '2020-01-01T10:00:00.5+00:00'],
    ['timestamptz', '2020-01-01', '2020-01-01T00:00:00+00:00'],
    ['json', { a: 1, b: [true, null] }, '{"a":1,"b":[true,null]}'], ['json', [1, 'x'], '[1,"x"]'],
    ['json', 'abc', '"abc"'], ['json', 5, '5'], ['json', false, 'false'],
    ['uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['uuid', '{a0eebc999c0b4ef8bb6d6bb9bd380a11}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['uuid', 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['interval', '1 day', '1 day'],
    ['_text', ['a', 'b'], '["a","b"]'], ['_text', [], '[]'], ['_text', ['a', null], '["a",null]'],
    ['_text', [1, true], '["1","true"]'], ['_int4', [1, '2', 2.5], '[1,2,3]'],
    ['_int4', [[1, 2], [3, 4]], '[[1,2],[3,4]]'],
    ['_float8', ['NaN', 1.5, 'inf'], '["NaN",1.5,"Infinity"]'],
    ['_numeric', ['10.50', 1], '[10.5,1]'], ['_bool', [true, 'f', 'yes'], '[true,false,true]'],
    ['_timestamp', ['2020-01-01', '01/02/2020 10:00'], '["2020-01-01T00:00:00","2020-01-02T10:00:00"]'],
    ['_json', [{ a: 1 }, 'x', 2], '[{"a":1},"x",2]'],
    ['_text', '{a,b}', '["a","b"]'],
    ['_text', ' { a , "b c" , NULL, "NULL", \\N } ', '["a","b c",null,"NULL","N"]'],
    ['_text', '{"a\\"b","c\\\\d"}', '["a\\"b","c\\\\d"]'], ['_text', '{}', '[]'],
    ['_int4', '{1, 2 ,3}', '[1,2,3]'], ['_int4', '{{1,2},{3,4}}', '[[1,2],[3,4]]'],
    ['_bool', '{t,f}', '[true,false]'], ['_json', '{"{\\"a\\": 1}",2}', '[{"a":1},2]'],
  ]
  it.each(STORED)('stores %s %o as %o', (type, v, stored) => {
    expect(toStored(T(type), v)).toEqual(stored)
  })

  it.each(['int4', 'text', 'bool', 'json', '_text', 'timestamp', 'numeric'])(
    'stores null and undefined in %s as NULL',
    (type) => {
      expect(toStored(T(type), null)).toBeNull()
      expect(toStored(T(type), undefined)).toBeNull()
    },
  )

  // prettier-ignore
  const REJECTED: [string, unknown, string][] = [
    ['int4', 'abc', 'invalid input syntax for type integer: "abc"'],
    ['int4', '', 'invalid input syntax for type integer: ""'],
    ['int4', '   ', 'invalid input syntax for type integer: "   "'],
    ['int4', '12.5', 'invalid input syntax for type integer: "12.5"'],
    ['int4', '1e3', 'invalid input syntax for type integer: "1e3"'],
    ['int4', '-', 'invalid input syntax for type integer: "-"'],
    ['int4', '1 2', 'invalid input syntax for type integer: "1 2"'],
    ['int4', '2147483648', 'value "2147483648" is out of range for type integer'],
    ['int4', '99999999999999999999', 'value "99999999999999999999" is out of range for type integer'],
    ['int4', 2147483648, 'integer out of range'],
    ['int4', 3e20, 'integer out of range'],
    ['int4', true, 'invalid input syntax for type integer: "true"'],
    ['int4', { a: 1 }, 'invalid input syntax for type integer: "{"a":1}"'],
    ['int4', [1], 'invalid input syntax for type integer: "[1]"'],
    ['int2', '32768', 'value "32768" is out of range for type smallint'],
    ['int2', -32769, 'smallint out of range'],
    ['int2', 'x', 'invalid input syntax for type smallint: "x"'],
    ['int8', 'x', 'invalid input syntax for type bigint: "x"'],
    ['int8', '9223372036854775807', 'value "9223372036854775807" is out of range for type bigint'],
    ['int8', 2 ** 53, 'bigint out of range'],
    ['float8', 'abc', 'invalid input syntax for type double precision: "abc"'],
    ['float8', '', 'invalid input syntax for type double precision: ""'],
    ['float8', '1e', 'invalid input syntax for type double precision: "1e"'],
    ['float8', '0x10', 'invalid input syntax for type double precision: "0x10"'],
    ['float8', '1,5', 'invalid input syntax for type double precision: "1,5"'],
    ['float8', '1e400', '"1e400" is out of range for type double precision'],
    ['float8', '1e-400', '"1e-400" is out of range for type double precision'],
    ['float8', false, 'invalid input syntax for type double precision: "false"'],
    ['float4', 'x', 'invalid input syntax for type real: "x"'],
    ['float4', '1e39', '"1e39" is out of range for type real'],
    ['float4', 1e39, '"1e+39" is out of range for type real'],
    ['numeric', 'abc', 'invalid input syntax for type numeric: "abc"'],
    ['numeric', '', 'invalid input syntax for type numeric: ""'],
    ['numeric', '   ', 'invalid input syntax for type numeric: "   "'],
    ['numeric', '1.2.3', 'invalid input syntax for type numeric: "1.2.3"'],
    ['numeric', '$5', 'invalid input syntax for type numeric: "$5"'],
    ['numeric', '1e400', 'value overflows numeric format'],
    ['numeric', true, 'invalid input syntax for type numeric: "true"'],
    ['text', { a: 1 }, 'invalid input syntax for type text: "{"a":1}"'],
    ['text', ['a'], 'invalid input syntax for type text: "["a"]"'],
    ['text', 'a\u0000b', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['bool', 'maybe', 'invalid input syntax for type boolean: "maybe"'],
    ['bool', '', 'invalid input syntax for type boolean: ""'],
    ['bool', 'o', 'invalid input syntax for type boolean: "o"'],
    ['bool', 'truex', 'invalid input syntax for type boolean: "truex"'],
    ['bool', '2', 'invalid input syntax for type boolean: "2"'],
    ['bool', 1, 'invalid input syntax for type boolean: "1"'],
    ['date', 'x', 'invalid input syntax for type date: "x"'],
    ['date', '', 'invalid input syntax for type date: ""'],
    ['date', '10:00', 'invalid input syntax for type date: "10:00"'],
    ['date', '2020-02-30', 'date/time field value out of range: "2020-02-30"'],
    ['date', '13/01/2020', 'date/time field value out of range: "13/01/2020"'],
    ['date', '2020-00-10', 'date/time field value out of range: "2020-00-10"'],
    ['date', 20200101, 'invalid input syntax for type date: "20200101"'],
    ['time', '2020-01-01', 'invalid input syntax for type time: "2020-01-01"'],
    ['time', '25:00', 'date/time field value out of range: "25:00"'],
    ['time', '10:60', 'date/time field value out of range: "10:60"'],
    ['time', '24:00:01', 'date/time field value out of range: "24:00:01"'],
    ['time', '13:00 pm', 'date/time field value out of range: "13:00 pm"'],
    ['time', 'infinity', 'invalid input syntax for type time: "infinity"'],
    ['timestamp', 'abc', 'invalid input syntax for type timestamp: "abc"'],
    ['timestamp', 'now', 'invalid input syntax for type timestamp: "now"'],
    ['timestamp', '2020-01-01T', 'invalid input syntax for type timestamp: "2020-01-01T"'],
    ['timestamp', '2020-01-01 10', 'invalid input syntax for type timestamp: "2020-01-01 10"'],
    ['timestamp', '2020-01-01 10:00:00 EST', 'invalid input syntax for type timestamp: "2020-01-01 10:00:00 EST"'],
    ['timestamp', '2020-01-01 10:00:00+5:3', 'invalid input syntax for type timestamp: "2020-01-01 10:00:00+5:3"'],
    ['timestamp', '2020-01-01 10:00:00.', 'invalid input syntax for type timestamp: "2020-01-01 10:00:00."'],
    ['timestamp', '2020-01-01x', 'invalid input syntax for type timestamp: "2020-01-01x"'],
    ['timestamp', '202-01-01', 'invalid input syntax for type timestamp: "202-01-01"'],
    ['timestamp', '01/02/20', 'invalid input syntax for type timestamp: "01/02/20"'],
    ['timestamp', '2020-01-32', 'date/time field value out of range: "2020-01-32"'],
    ['timestamp', '0000-01-01', 'date/time field value out of range: "0000-01-01"'],
    ['timestamp', '2020-01-01 10:00+16', 'date/time field value out of range: "2020-01-01 10:00+16"'],
    ['timestamp', 5, 'invalid input syntax for type timestamp: "5"'],
    ['timestamptz', 'x', 'invalid input syntax for type timestamp with time zone: "x"'],
    ['timestamptz', '9999-12-31 23:00-02', 'timestamp out of range: "9999-12-31 23:00-02"'],
    ['uuid', 'abc', 'invalid input syntax for type uuid: "abc"'],
    ['uuid', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 'invalid input syntax for type uuid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1"'],
    ['uuid', 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11', 'invalid input syntax for type uuid: "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11"'],
    ['uuid', '{a0eebc999c0b4ef8bb6d6bb9bd380a11', 'invalid input syntax for type uuid: "{a0eebc999c0b4ef8bb6d6bb9bd380a11"'],
    ['_text', 'abc', 'malformed array literal: "abc"'],
    ['_text', '', 'malformed array literal: ""'],
    ['_text', '["a","b"]', 'malformed array literal: "["a","b"]"'],
    ['_text', '{a,,b}', 'malformed array literal: "{a,,b}"'],
    ['_text', '{a', 'malformed array literal: "{a"'],
    ['_text', '{"a}', 'malformed array literal: "{"a}"'],
    ['_text', '{a}x', 'malformed array literal: "{a}x"'],
    ['_text', '{a"b}', 'malformed array literal: "{a"b}"'],
    ['_int4', '{{1,2},{3}}', 'malformed array literal: "{{1,2},{3}}"'],
    ['_int4', '{{1,2},3}', 'malformed array literal: "{{1,2},3}"'],
    ['_text', 5, 'malformed array literal: "5"'],
    ['_text', { a: 1 }, 'malformed array literal: "{"a":1}"'],
    ['_int4', ['x'], 'invalid input syntax for type integer: "x"'],
    ['_int4', [true], 'invalid input syntax for type integer: "true"'],
    ['_int4', [[1, 2], [3]], DIMS],
    ['_int4', [[1], 2], DIMS],
    ['_int4', [1, [2]], DIMS],
    ['_timestamp', ['2020-02-30'], 'date/time field value out of range: "2020-02-30"'],
    ['_json', '{"{x"}', 'invalid input syntax for type json'],
    ['json', 10n, 'invalid input syntax for type json'],
    ['json', () => 1, 'invalid input syntax for type json'],
  ]
  it.each(REJECTED)('rejects %s %o', (type, v, message) => {
    expect(storeError(type, v)).toBe(message)
  })

  it('names the column in type mismatches when given one', () => {
    expect(storeError('int4', true, 'n')).toBe(
      'column "n" is of type integer but expression is of type boolean',
    )
    expect(storeError('bool', 1, 'b')).toBe(
      'column "b" is of type boolean but expression is of type integer',
    )
    expect(storeError('bool', 3000000000, 'b')).toBe(
      'column "b" is of type boolean but expression is of type bigint',
    )
    expect(storeError('date', 1.5, 'd')).toBe(
      'column "d" is of type date but expression is of type numeric',
    )
    expect(storeError('text', { a: 1 }, 't')).toBe(
      'column "t" is of type text but expression is of type json',
    )
    expect(storeError('_text', 5, 'a')).toBe(
      'column "a" is of type text[] but expression is of type integer',
    )
    // syntax errors keep PostgreSQL's input message
    expect(storeError('int4', 'abc', 'n')).toBe('invalid input syntax for type integer: "abc"')
  })

  it('keeps no parse state from one value to the next', () => {
    const co = makeCoercer(T('timestamptz'))
    expect(co('2020-01-01T10:00:00.5+02:00')).toBe('2020-01-01T08:00:00.5+00:00')
    expect(co('2020-01-01')).toBe('2020-01-01T00:00:00+00:00')
    expect(co('2020-01-01 10:00 pm')).toBe('2020-01-01T22:00:00+00:00')
    expect(co('2020-01-02 10:00')).toBe('2020-01-02T10:00:00+00:00')
  })

  it('makeCoercer returns the same values as toStored', () => {
    const co = makeCoercer(T('int4'))
    expect([co('5'), co(5), co(null), co(undefined)]).toEqual([5, 5, null, null])
    expect(() => co('x')).toThrow(ValueError)
  })
})

describe('fromStored', () => {
  // prettier-ignore
  const OUT: [string, unknown, unknown][] = [
    ['int4', 5, 5], ['int8', 5n, 5], ['int4', null, null], ['int4', undefined, null],
    ['float8', 1.5, 1.5], ['float8', 'NaN', 'NaN'], ['float8', Infinity, 'Infinity'],
    ['float8', -Infinity, '-Infinity'], ['numeric', 10.5, 10.5], ['numeric', 7, 7],
    ['numeric', '12345678901234567890.5', 12345678901234567000], ['numeric', 'NaN', 'NaN'],
    ['numeric', Infinity, 'Infinity'], ['numeric', null, null],
    ['bool', 1, true], ['bool', 0, false], ['bool', 0n, false], ['bool', 1n, true],
    ['bool', null, null],
    ['text', 'abc', 'abc'], ['date', '2020-01-02', '2020-01-02'],
    ['time', '10:00:00.5', '10:00:00.5'],
    ['timestamp', '2020-01-01T10:00:00', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01T10:00:00.25', '2020-01-01T10:00:00'],
    ['timestamp', 'infinity', 'infinity'], ['timestamp', null, null],
    ['timestamptz', '2020-01-01T10:00:00.5+00:00', '2020-01-01T10:00:00.5+00:00'],
    ['json', '{"a":[1,2]}', { a: [1, 2] }], ['json', '"x"', 'x'], ['json', null, null],
    ['_text', '["a",null]', ['a', null]], ['_int4', '[[1,2],[3,4]]', [[1, 2], [3, 4]]],
    ['_timestamp', '["2020-01-01T10:00:00.5"]', ['2020-01-01T10:00:00.5']],
    ['_numeric', '[10.5]', [10.5]], ['_text', null, null],
  ]
  it.each(OUT)('reads %s %o as %o', (type, stored, out) => {
    expect(fromStored(T(type), stored)).toEqual(out)
    expect(makeDecoder(T(type))(stored)).toEqual(out)
  })
})

describe('fromStoredSql', () => {
  // prettier-ignore
  const OUT: [string, unknown, unknown][] = [
    ['numeric', 10.5, '10.5'], ['numeric', 7, '7'],
    ['numeric', 1.2345e25, '12345000000000000000000000'],
    ['numeric', 1e-7, '0.0000001'], ['numeric', 'NaN', 'NaN'], ['numeric', Infinity, 'Infinity'],
    ['numeric', 5n, '5'], ['numeric', null, null],
    ['timestamp', '2020-01-01T10:00:00', '2020-01-01T10:00:00'],
    ['timestamp', '2020-01-01T10:00:00.25', '2020-01-01T10:00:00.250000'],
    ['timestamp', '2020-01-01T10:00:00.123456', '2020-01-01T10:00:00.123456'],
    ['timestamptz', '2020-01-01T10:00:00.5+00:00', '2020-01-01T10:00:00.500000+00:00'],
    ['timestamptz', '2020-01-01T10:00:00+00:00', '2020-01-01T10:00:00+00:00'],
    ['time', '10:00:00.5', '10:00:00.500000'], ['date', '2020-01-02', '2020-01-02'],
    ['int4', 5, 5], ['float8', Infinity, 'Infinity'], ['bool', 1, true],
    ['json', '{"a":1}', { a: 1 }], ['_numeric', '[10.5,[1]]', ['10.5', ['1']]],
    ['_timestamp', '["2020-01-01T10:00:00.5",null]', ['2020-01-01T10:00:00.500000', null]],
    ['_text', '["a"]', ['a']], ['_numeric', null, null],
  ]
  it.each(OUT)('reads %s %o as %o', (type, stored, out) => {
    expect(fromStoredSql(T(type), stored)).toEqual(out)
  })
})

describe('round trips', () => {
  // prettier-ignore
  const CASES: [string, unknown, unknown][] = [
    ['int4', '42', 42], ['float8', '-1.25e2', -125], ['numeric', '3.14', 3.14],
    ['bool', 'yes', true],
    ['text', 'héllo', 'héllo'], ['date', '12/31/1999', '1999-12-31'],
    ['timestamp', '2020-06-01 08:30:00.75', '2020-06-01T08:30:00'],
    ['timestamptz', '2020-06-01T08:30:00-01:00', '2020-06-01T09:30:00+00:00'],
    ['json', { k: ['v', 1] }, { k: ['v', 1] }], ['_text', '{x,y}', ['x', 'y']],
    ['_float8', [1, 'NaN', '-inf'], [1, 'NaN', '-Infinity']],
  ]
  it.each(CASES)('writes and reads %s %o as %o', (type, input, out) => {
    expect(fromStored(T(type), toStored(T(type), input))).toEqual(out)
  })

  it('keeps timestamps in time order as text', () => {
    const stored = [
      '2020-01-01 10:00:00.5',
      '2020-01-01 10:00',
      '2019-12-31T23:59:59',
      '-infinity',
      'infinity',
    ].map((v) => toStored(T('timestamp'), v) as string)
    expect([...stored].sort()).toEqual([
      '-infinity',
      '2019-12-31T23:59:59',
      '2020-01-01T10:00:00',
      '2020-01-01T10:00:00.5',
      'infinity',
    ])
  })
})

describe('filterValue', () => {
  // prettier-ignore
  const BOUND: [string, unknown, unknown][] = [
    ['int4', 5, 5], ['int4', '5', 5], ['int4', ' 5 ', 5], ['int4', 5.5, 5.5], ['int4', 3e9, 3e9],
    ['float8', '1.5', 1.5], ['float8', 2, 2], ['float8', 'inf', '1e999'],
    ['numeric', '10.50', 10.5],
    ['numeric', 10, 10], ['bool', true, 1], ['bool', false, 0], ['bool', 'f', 0],
    ['bool', 'yes', 1],
    ['text', 'abc', 'abc'], ['text', '5', '5'], ['varchar', 'x', 'x'],
    ['timestamp', '2020-01-01', '2020-01-01T00:00:00'],
    ['timestamp', '2020-01-01T10:00:00Z', '2020-01-01T10:00:00'],
    ['timestamptz', '2020-01-01 12:00+02', '2020-01-01T10:00:00+00:00'],
    ['date', '01/02/2020', '2020-01-02'],
    ['time', '9:05', '09:05:00'], ['json', { a: 1 }, '{"a":1}'], ['json', 'x', '"x"'],
    ['_text', ['a', 'b'], '["a","b"]'], ['_int4', ['1', 2], '[1,2]'],
    ['_text', '{a,b}', '["a","b"]'],
    ['int4', null, null], ['text', undefined, null],
  ]
  it.each(BOUND)('binds %s filter %o as %o', (type, v, bound) => {
    expect(filterValue(T(type), v)).toEqual(bound)
  })

  // prettier-ignore
  const REJECTED: [string, unknown, string][] = [
    ['text', 5, 'operator does not exist: text = integer'],
    ['text', 1.5, 'operator does not exist: text = numeric'],
    ['text', 3000000000, 'operator does not exist: text = bigint'],
    ['text', true, 'operator does not exist: text = boolean'],
    ['text', { a: 1 }, 'operator does not exist: text = json'],
    ['varchar', 5, 'operator does not exist: character varying = integer'],
    ['int4', true, 'operator does not exist: integer = boolean'],
    ['int4', 'abc', 'invalid input syntax for type integer: "abc"'],
    ['int4', '5.5', 'invalid input syntax for type integer: "5.5"'],
    ['int4', '3000000000', 'value "3000000000" is out of range for type integer'],
    ['numeric', 'abc', 'invalid input syntax for type numeric: "abc"'],
    ['numeric', false, 'operator does not exist: numeric = boolean'],
    ['float8', 'x', 'invalid input syntax for type double precision: "x"'],
    ['bool', 1, 'operator does not exist: boolean = integer'],
    ['bool', 'maybe', 'invalid input syntax for type boolean: "maybe"'],
    ['timestamp', 5, 'operator does not exist: timestamp without time zone = integer'],
    ['timestamp', 'soon', 'invalid input syntax for type timestamp: "soon"'],
    ['date', true, 'operator does not exist: date = boolean'],
    ['_text', 5, 'operator does not exist: text[] = integer'],
    ['_text', 'x', 'malformed array literal: "x"'],
    ['_int4', ['x'], 'invalid input syntax for type integer: "x"'],
    ['uuid', 5, 'operator does not exist: uuid = integer'],
  ]
  it.each(REJECTED)('rejects %s filter %o', (type, v, message) => {
    expect(filterError(type, v)).toBe(message)
  })

  it('matches what toStored writes for equal values', () => {
    const cases: [string, unknown, unknown][] = [
      ['timestamp', '2020-01-01 00:00', '2020-01-01'],
      ['int4', 7, '7'],
      ['bool', true, 't'],
      ['_text', ['a'], '{a}'],
      ['numeric', 2.5, '2.50'],
    ]
    for (const [type, written, filter] of cases)
      expect(filterValue(T(type), filter)).toEqual(toStored(T(type), written))
  })
})
