// Byte-exact checks of the COPY csv/tsv lines and the four dump layouts. Expected COPY texts were
// taken from PostgreSQL 15 (`COPY (…) TO STDOUT csv`) and the dump texts from CKAN 2.9's writers.
import { describe, expect, it } from 'vitest'
import { BOM, dumpWriter, makeCopyLine, type OutField } from '../../src/datastore/formats'

const f = (id: string, type: string, info?: Record<string, unknown>): OutField =>
  info ? { id, type, info } : { id, type }

// The fields and first record of CKAN's own dump tests (datastore.md §10).
const BOOK_FIELDS = [
  f('_id', 'int'),
  f('bük', 'text'),
  f('author', 'text'),
  f('published', 'timestamp'),
  f('characters', '_text'),
  f('random_letters', '_text'),
  f('nested', 'json'),
]
const ANNA = [
  1,
  'annakarenina',
  'tolstoy',
  '2005-03-01T00:00:00',
  ['Princess Anna', 'Sergius'],
  ['a', 'e', 'x'],
  ['b', { moo: 'moo' }],
]
const WAR = [2, 'warandpeace', 'tolstoy', null, null, [], { a: 'b' }]

function dump(format: 'csv' | 'tsv' | 'json' | 'xml', fields: OutField[], rows: unknown[][]) {
  const w = dumpWriter(format, fields)
  let out = w.header()
  for (const r of rows) out += w.row(r)
  return out + w.footer()
}

const csvCell = (type: string, v: unknown) =>
  makeCopyLine([f('x', type), f('y', 'int')], ',')([v, 1])
const jsonCell = (type: string, v: unknown) =>
  dump('json', [f('x', type)], [[v]])
    .split('\n')[3]!
    .slice(4)

describe('makeCopyLine', () => {
  it('writes the spec TSV row with arrays and nested json', () => {
    expect(makeCopyLine(BOOK_FIELDS, '\t')(ANNA)).toBe(
      '1\tannakarenina\ttolstoy\t2005-03-01T00:00:00\t"[""Princess Anna"",""Sergius""]"' +
        '\t"[""a"",""e"",""x""]"\t"[""b"", {""moo"": ""moo""}]"\n',
    )
  })

  it('prints NULL arrays and json as null, other NULLs as nothing, empty arrays unquoted', () => {
    expect(makeCopyLine(BOOK_FIELDS, ',')(WAR)).toBe(
      '2,warandpeace,tolstoy,,null,[],"{""a"": ""b""}"\n',
    )
  })

  it('quotes only for the delimiter, quotes, CR and LF', () => {
    const line = makeCopyLine([f('a', 'text'), f('b', 'text'), f('c', 'text'), f('d', 'text')], ',')
    expect(line(['a,b', 'c"d', 'l\nm', 'a\rb'])).toBe('"a,b","c""d","l\nm","a\rb"\n')
    expect(line(['a\tb', ' sp ', '\\N', 'bük'])).toBe('a\tb, sp ,\\N,bük\n')
    const tsv = makeCopyLine([f('a', 'text'), f('b', 'text')], '\t')
    expect(tsv(['a\tb', 'a,b'])).toBe('"a\tb"\ta,b\n')
  })

  it('tells the empty string ("") from NULL (nothing)', () => {
    const line = makeCopyLine([f('a', 'text'), f('b', 'text'), f('c', 'int4')], ',')
    expect(line(['', null, null])).toBe('"",,\n')
    expect(line([undefined, '', 0])).toBe(',"",0\n')
  })

  it('quotes a lone \\. only in a single-column row', () => {
    expect(makeCopyLine([f('a', 'text')], ',')(['\\.'])).toBe('"\\."\n')
    expect(makeCopyLine([f('a', 'text'), f('b', 'int4')], ',')(['\\.', 4])).toBe('\\.,4\n')
  })

  it('writes booleans as t/f, also when they arrive as 0/1', () => {
    const line = makeCopyLine([f('a', 'bool'), f('b', 'bool'), f('c', 'bool'), f('d', 'bool')], ',')
    expect(line([true, false, 1, 0])).toBe('t,f,t,f\n')
  })

  it('prints float8 as PostgreSQL does', () => {
    const cases: [number, string][] = [
      [1.5, '1.5'],
      [1, '1'],
      [-2, '-2'],
      [0.0001, '0.0001'],
      [1e-5, '1e-05'],
      [1e-7, '1e-07'],
      [1e14, '100000000000000'],
      [123456789012345, '123456789012345'],
      [1e15, '1e+15'],
      [1e16, '1e+16'],
      [123456789012345678, '1.2345678901234568e+17'],
      [1e21, '1e+21'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [-1e-300, '-1e-300'],
      [0, '0'],
    ]
    for (const [v, text] of cases) expect(csvCell('float8', v)).toBe(`${text},1\n`)
  })

  it('prints float4 and the rank column (float) with float4 digits', () => {
    const cases: [number, string][] = [
      [1.5, '1.5'],
      [0.1, '0.1'],
      [123456, '123456'],
      [1e6, '1e+06'],
      [1234567, '1.234567e+06'],
      [1e-5, '1e-05'],
      [1e-4, '0.0001'],
      [3.4e38, '3.4e+38'],
      [0.06079271, '0.06079271'],
      [Math.fround(0.0607927), '0.0607927'],
    ]
    for (const [v, text] of cases) expect(csvCell('float4', v)).toBe(`${text},1\n`)
    expect(csvCell('float', 0.1)).toBe('0.1,1\n')
  })

  it('prints numeric without exponent and keeps decimal text as given', () => {
    expect(csvCell('numeric', 10.5)).toBe('10.5,1\n')
    expect(csvCell('numeric', '10.50')).toBe('10.50,1\n')
    expect(csvCell('numeric', 1e20)).toBe('100000000000000000000,1\n')
    expect(csvCell('numeric', 1e21)).toBe('1000000000000000000000,1\n')
    expect(csvCell('numeric', 1e-5)).toBe('0.00001,1\n')
    expect(csvCell('numeric', -1.5e-7)).toBe('-0.00000015,1\n')
    expect(csvCell('numeric', 1.25e22)).toBe('12500000000000000000000,1\n')
  })

  it('prints integers and the _id as plain digits', () => {
    expect(makeCopyLine([f('_id', 'int'), f('n', 'int8')], ',')([7, 9007199254740991])).toBe(
      '7,9007199254740991\n',
    )
  })

  it('writes arrays as PostgreSQL array_to_json text', () => {
    expect(csvCell('_text', ['a,b', 'c"d', 'bük', 'l\nm', null])).toBe(
      '"[""a,b"",""c\\""d"",""bük"",""l\\nm"",null]",1\n',
    )
    expect(csvCell('_float8', [1e16, 1.5, 1e-5, 1e15, 1e14, 0.0001])).toBe(
      '"[1e+16,1.5,1e-05,1e+15,100000000000000,0.0001]",1\n',
    )
    expect(csvCell('_numeric', ['1.50', 2])).toBe('"[1.50,2]",1\n')
    expect(csvCell('_bool', [true, false])).toBe('"[true,false]",1\n')
    expect(csvCell('_int4', [1])).toBe('[1],1\n')
    expect(makeCopyLine([f('x', 'int[]')], '\t')([[1, 2]])).toBe('[1,2]\n')
  })

  it('writes json cells as Python json.dumps text, non-ASCII escaped', () => {
    expect(csvCell('json', { a: 'bük' })).toBe('"{""a"": ""b\\u00fck""}",1\n')
    expect(csvCell('json', [1, 2])).toBe('"[1, 2]",1\n')
    expect(csvCell('json', { a: { b: [1, 2.5, null, true] }, c: {} })).toBe(
      '"{""a"": {""b"": [1, 2.5, null, true]}, ""c"": {}}",1\n',
    )
    expect(csvCell('json', ['😀\u007f\u2028', 'tab\t'])).toBe(
      '"[""\\ud83d\\ude00\\u007f\\u2028"", ""tab\\t""]",1\n',
    )
    expect(csvCell('json', 0.00001)).toBe('1e-05,1\n')
    expect(csvCell('json', 'x')).toBe('"""x""",1\n')
    expect(csvCell('json', null)).toBe('null,1\n')
  })

  it('writes timestamps as given and an empty row for no fields', () => {
    expect(csvCell('timestamp', '2005-03-01T00:00:00')).toBe('2005-03-01T00:00:00,1\n')
    expect(makeCopyLine([], ',')([])).toBe('\n')
  })
})

describe('dumpWriter csv/tsv', () => {
  it('writes the header with CRLF and the rows with LF', () => {
    const fields = [f('_id', 'int'), f('book', 'text')]
    expect(
      dump('csv', fields, [
        [1, 'annakarenina'],
        [2, 'warandpeace'],
      ]),
    ).toBe('_id,book\r\n1,annakarenina\n2,warandpeace\n')
  })

  it('writes the spec TSV dump', () => {
    expect(dump('tsv', BOOK_FIELDS, [ANNA])).toBe(
      '_id\tbük\tauthor\tpublished\tcharacters\trandom_letters\tnested\r\n' +
        '1\tannakarenina\ttolstoy\t2005-03-01T00:00:00\t"[""Princess Anna"",""Sergius""]"' +
        '\t"[""a"",""e"",""x""]"\t"[""b"", {""moo"": ""moo""}]"\n',
    )
  })

  it('quotes header names only when needed', () => {
    const fields = [f('a,b', 'text'), f('c\td', 'text'), f('e"f', 'text'), f('g\nh', 'text')]
    expect(dumpWriter('csv', fields).header()).toBe('"a,b",c\td,"e""f","g\nh"\r\n')
    expect(dumpWriter('tsv', fields).header()).toBe('a,b\t"c\td"\t"e""f"\t"g\nh"\r\n')
  })

  it('writes only the header for an empty table and names its media type', () => {
    const w = dumpWriter('csv', [f('_id', 'int')])
    expect([w.header(), w.footer()]).toEqual(['_id\r\n', ''])
    expect([w.contentType, w.extension]).toEqual(['text/csv; charset=utf-8', 'csv'])
    const t = dumpWriter('tsv', [])
    expect([t.contentType, t.extension]).toEqual([
      'text/tab-separated-values; charset=utf-8',
      'tsv',
    ])
  })
})

describe('dumpWriter json', () => {
  it('writes the spec layout with compact items', () => {
    const fields = [f('_id', 'int'), f('book', 'text')]
    expect(
      dump('json', fields, [
        [1, 'annakarenina'],
        [2, 'warandpeace'],
      ]),
    ).toBe(
      '{\n  "fields": [{"id":"_id","type":"int"},{"id":"book","type":"text"}],\n' +
        '  "records": [\n    [1,"annakarenina"],\n    [2,"warandpeace"]\n]}\n',
    )
  })

  it('writes arrays and nested json compactly, unicode raw', () => {
    expect(dump('json', BOOK_FIELDS, [ANNA, WAR])).toBe(
      '{\n  "fields": [{"id":"_id","type":"int"},{"id":"bük","type":"text"},' +
        '{"id":"author","type":"text"},{"id":"published","type":"timestamp"},' +
        '{"id":"characters","type":"_text"},{"id":"random_letters","type":"_text"},' +
        '{"id":"nested","type":"json"}],\n  "records": [\n' +
        '    [1,"annakarenina","tolstoy","2005-03-01T00:00:00",["Princess Anna","Sergius"],' +
        '["a","e","x"],["b",{"moo":"moo"}]],\n' +
        '    [2,"warandpeace","tolstoy",null,null,[],{"a":"b"}]\n]}\n',
    )
  })

  it('writes an empty table as an empty records list', () => {
    expect(dump('json', [f('_id', 'int')], [])).toBe(
      '{\n  "fields": [{"id":"_id","type":"int"}],\n  "records": [\n]}\n',
    )
  })

  it('includes field info', () => {
    const fields = [f('book', 'text', { label: 'Bök', notes: '' })]
    expect(dumpWriter('json', fields).header()).toBe(
      '{\n  "fields": [{"id":"book","type":"text","info":{"label":"Bök","notes":""}}],\n  "records": [',
    )
  })

  it('escapes quotes, control characters and U+2028/U+2029 like simplejson', () => {
    expect(jsonCell('text', 'a"b\\c\n\t\u0001\u2028\u2029é')).toBe(
      '["a\\"b\\\\c\\n\\t\\u0001\\u2028\\u2029é"]',
    )
    const w = dumpWriter('json', [f('x\u2028', 'text')])
    expect(w.header()).toContain('{"id":"x\\u2028","type":"text"}')
  })

  it('prints numbers as Python does after parsing PostgreSQL JSON', () => {
    const float8: [number, string][] = [
      [1, '1'],
      [1.5, '1.5'],
      [1e14, '100000000000000'],
      [1e15, '1000000000000000.0'],
      [1e16, '1e+16'],
      [0.0001, '0.0001'],
      [1e-5, '1e-05'],
      [123456789012345678, '1.2345678901234568e+17'],
    ]
    for (const [v, text] of float8) expect(jsonCell('float8', v)).toBe(`[${text}]`)
    expect(jsonCell('float4', 1e6)).toBe('[1000000.0]')
    expect(jsonCell('float4', 123456)).toBe('[123456]')
    expect(jsonCell('float', Math.fround(0.0607927))).toBe('[0.0607927]')
    expect(jsonCell('numeric', '10.50')).toBe('[10.5]')
    expect(jsonCell('numeric', '100000000000000000000')).toBe('[100000000000000000000]')
    expect(jsonCell('numeric', 1e21)).toBe('[1000000000000000000000]')
    expect(jsonCell('numeric', 1e-5)).toBe('[1e-05]')
    expect(jsonCell('int4', 42)).toBe('[42]')
    expect(jsonCell('_float8', [1e16, 2])).toBe('[[1e+16,2]]')
    expect(jsonCell('_numeric', ['1.50', 2])).toBe('[[1.5,2]]')
    expect(jsonCell('json', { a: 0.00001, b: 3 })).toBe('[{"a":1e-05,"b":3}]')
  })

  it('writes booleans and nulls as JSON literals', () => {
    expect(jsonCell('bool', true)).toBe('[true]')
    expect(jsonCell('bool', 0)).toBe('[false]')
    expect(jsonCell('text', null)).toBe('[null]')
    expect(jsonCell('json', null)).toBe('[null]')
  })

  it('names its media type', () => {
    const w = dumpWriter('json', [])
    expect([w.contentType, w.extension]).toEqual(['application/json; charset=utf-8', 'json'])
  })

  it('starts a fresh writer without the leading comma', () => {
    const fields = [f('a', 'int4')]
    const w1 = dumpWriter('json', fields)
    expect(w1.row([1]) + w1.row([2])).toBe('\n    [1],\n    [2]')
    expect(dumpWriter('json', fields).row([3])).toBe('\n    [3]')
  })
})

describe('dumpWriter xml', () => {
  const HEAD = '<data xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'

  it('writes the spec example', () => {
    expect(dump('xml', BOOK_FIELDS, [ANNA])).toBe(
      HEAD +
        '<row _id="1"><bük>annakarenina</bük><author>tolstoy</author>' +
        '<published>2005-03-01T00:00:00</published><characters><value key="0">Princess Anna</value>' +
        '<value key="1">Sergius</value></characters><random_letters><value key="0">a</value>' +
        '<value key="1">e</value><value key="2">x</value></random_letters><nested>' +
        '<value key="0">b</value><value key="1"><value key="moo">moo</value></value></nested>' +
        '</row>\n</data>\n',
    )
  })

  it('marks NULLs with xsi:nil and self-closes empty values', () => {
    expect(dumpWriter('xml', BOOK_FIELDS).row(WAR)).toBe(
      '<row _id="2"><bük>warandpeace</bük><author>tolstoy</author>' +
        '<published xsi:nil="true" /><characters xsi:nil="true" /><random_letters />' +
        '<nested><value key="a">b</value></nested></row>\n',
    )
    const w = dumpWriter('xml', [f('_id', 'int'), f('t', 'text'), f('j', 'json')])
    expect(w.row([3, '', [null, {}, '', { 'k"<&\n': 1 }]])).toBe(
      '<row _id="3"><t /><j><value xsi:nil="true" key="0" /><value key="1" />' +
        '<value key="2" /><value key="3"><value key="k&quot;&lt;&amp;&#10;">1</value></value>' +
        '</j></row>\n',
    )
  })

  it('escapes text, prints booleans as True/False and numbers as Python does', () => {
    const fields = [
      f('_id', 'int'),
      f('s', 'text'),
      f('b', 'bool'),
      f('x', 'float8'),
      f('n', 'numeric'),
      f('j', 'json'),
    ]
    expect(
      dumpWriter('xml', fields).row([1, 'a<b>&"c"\'\n', false, 1e15, '10.50', [true, 1.5]]),
    ).toBe(
      '<row _id="1"><s>a&lt;b&gt;&amp;"c"\'\n</s><b>False</b><x>1000000000000000.0</x>' +
        '<n>10.5</n><j><value key="0">True</value><value key="1">1.5</value></j></row>\n',
    )
  })

  it('makes _id an attribute only when it is the first field', () => {
    expect(dumpWriter('xml', [f('book', 'text'), f('_id', 'int')]).row(['x', 5])).toBe(
      '<row><book>x</book><_id>5</_id></row>\n',
    )
    expect(dumpWriter('xml', [f('_id', 'int')]).row([5])).toBe('<row _id="5" />\n')
    expect(dumpWriter('xml', [f('_id', 'int'), f('a', 'int4')]).row(['ab"c', 0])).toBe(
      '<row _id="ab&quot;c"><a>0</a></row>\n',
    )
  })

  it('writes column names unchanged and an empty table as the bare data element', () => {
    expect(dumpWriter('xml', [f('a b', 'text')]).row(['x'])).toBe('<row><a b>x</a b></row>\n')
    const w = dumpWriter('xml', [f('_id', 'int')])
    expect(w.header() + w.footer()).toBe(HEAD + '</data>\n')
    expect([w.contentType, w.extension]).toEqual(['text/xml; charset=utf-8', 'xml'])
  })
})

describe('BOM', () => {
  it('is U+FEFF, encoded as EF BB BF', () => {
    expect([...new TextEncoder().encode(BOM)]).toEqual([0xef, 0xbb, 0xbf])
  })
})
