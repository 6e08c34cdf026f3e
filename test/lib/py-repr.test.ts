// Python repr()/str() spellings: each block pins what one former copy of these helpers printed.
import { describe, expect, it } from 'vitest'
import {
  expForm,
  pyFloatRepr,
  pyNumber,
  pyRepr,
  pyReprBrief,
  pyStr,
} from '../../src/lib/py-repr'

describe('pyRepr of a string (package_search messages, formerly model/search-result.ts)', () => {
  it.each([
    ['', "''"],
    ['abc', "'abc'"],
    ["it's", `"it's"`],
    ['say "hi"', `'say "hi"'`],
    [`both ' and "`, `'both \\' and "'`],
    ['back\\slash', "'back\\\\slash'"],
    ['nl\nline', "'nl\\nline'"],
    ['cr\r tab\t', "'cr\\r tab\\t'"],
    ["it's\n", `"it's\\n"`],
    ['nul\u0000 esc\u001b del\u007f', "'nul\u0000 esc\u001b del\u007f'"],
    ['é ☃ 🙂', "'é ☃ 🙂'"],
  ])('%j → %s', (s, out) => {
    expect(pyRepr(s)).toBe(out)
  })
})

describe('pyRepr of a key value (datastore "key not found", formerly records.ts reprValue)', () => {
  it.each([
    [null, 'None'],
    [undefined, 'None'],
    [true, 'True'],
    [false, 'False'],
    [0, '0'],
    [-7, '-7'],
    [1.5, '1.5'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [NaN, 'NaN'],
    [[], '[]'],
    [['a', 1, null, true, [2]], '["a",1,null,true,[2]]'],
    [{}, '{}'],
    [{ a: 1, b: 'x' }, '{"a":1,"b":"x"}'],
  ])('%j → %s', (v, out) => {
    expect(pyRepr(v)).toBe(out)
  })

  it('spells a key list as the message does', () => {
    expect(`[${[7, "it's"].map(pyRepr).join(', ')}]`).toBe(`[7, "it's"]`)
  })
})

describe('pyStr (facet.field "Not a string: x", formerly search/sort.ts)', () => {
  it.each([
    [null, 'None'],
    [true, 'True'],
    [false, 'False'],
    [1, '1'],
    [1.5, '1.5'],
    [1e21, '1e+21'],
    [[], '[]'],
    [['a', 1, null, true, [2]], '["a",1,null,true,[2]]'],
    [{ a: 1, b: 'x' }, '{"a":1,"b":"x"}'],
    ["it's", "it's"],
  ])('%j → %s', (v, out) => {
    expect(pyStr(v)).toBe(out)
  })
})

describe('pyReprBrief (request "JSON decoded to …", formerly http/params.ts)', () => {
  it.each([
    [null, 'None'],
    [true, 'True'],
    [false, 'False'],
    [0, '0'],
    [1.5, '1.5'],
    [1e21, '1e+21'],
    ['not a dict', "'not a dict'"],
    ["it's", "'it\\'s'"],
    [`both ' and "`, `'both \\' and "'`],
    ['back\\slash', "'back\\\\slash'"],
    ['nl\nline', "'nl\nline'"],
    ['cr\r tab\t', "'cr\r tab\t'"],
    [[], '[]'],
    [['a', 1, null, true, [2]], "['a', 1, None, True, [2]]"],
    [{}, '{...}'],
    [[{ a: 1 }], '[{...}]'],
  ])('%j → %s', (v, out) => {
    expect(pyReprBrief(v)).toBe(out)
  })
})

describe('pyFloatRepr and pyNumber (json and xml dumps, formerly datastore/formats.ts)', () => {
  it.each([
    [0, '0.0', '0'],
    [-0, '-0.0', '0'],
    [1, '1.0', '1'],
    [-1, '-1.0', '-1'],
    [1.5, '1.5', '1.5'],
    [0.1, '0.1', '0.1'],
    [1e15, '1000000000000000.0', '1000000000000000'],
    [1e16, '1e+16', '10000000000000000'],
    [123456789012345680, '1.2345678901234568e+17', '123456789012345680'],
    [2 ** 53, '9007199254740992.0', '9007199254740992'],
    [1e-4, '0.0001', '0.0001'],
    [0.00012, '0.00012', '0.00012'],
    [9.99e-5, '9.99e-05', '9.99e-05'],
    [1e-5, '1e-05', '1e-05'],
    [1e-7, '1e-07', '1e-07'],
    [-2.5e-10, '-2.5e-10', '-2.5e-10'],
    [1.5e300, '1.5e+300', '1.5e+300'],
    [1e100, '1e+100', '1e+100'],
    [5e-324, '5e-324', '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308', '1.7976931348623157e+308'],
    [99999999999999.9, '99999999999999.9', '99999999999999.9'],
    [1 / 3, '0.3333333333333333', '0.3333333333333333'],
    [Infinity, 'Infinity', 'Infinity'],
    [-Infinity, '-Infinity', '-Infinity'],
    [NaN, 'NaN', 'NaN'],
  ])('%d → %s / %s', (n, float, num) => {
    expect(pyFloatRepr(n)).toBe(float)
    expect(pyNumber(n)).toBe(num)
  })
})

describe('expForm (PG float output and Python repr, formerly datastore/formats.ts)', () => {
  it.each([
    [1e-7, '1e-07'],
    [1.5e300, '1.5e+300'],
    [-2.5e-10, '-2.5e-10'],
    [1e15, '1e+15'],
    [1e5, '1e+05'],
  ])('%d → %s', (n, out) => {
    expect(expForm(n)).toBe(out)
  })
})
