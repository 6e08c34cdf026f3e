// activity_diff's layouts against Python's own output (fixtures/activity-diff.json, made with difflib).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DIFF_TYPES, diffObjects, pyJsonDump } from '../../src/model/activity-diff'

interface Case {
  before: unknown
  after: unknown
  unified: string
  context: string
  html: string
}
const { cases } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures/activity-diff.json'), 'utf8'),
) as {
  cases: Case[]
}

describe('pyJsonDump', () => {
  it('indents by two, sorts keys and escapes non-ASCII as Python json.dumps does', () => {
    expect(pyJsonDump({ b: [1, 2.5, {}], a: 'é\u007f', c: [], d: null, e: true })).toBe(
      '{\n  "a": "\\u00e9\\u007f",\n  "b": [\n    1,\n    2.5,\n    {}\n  ],\n  "c": [],\n  "d": null,\n  "e": true\n}',
    )
  })
})

describe('diffObjects', () => {
  it.each(cases.map((c, i) => [i, c] as const))('lays out case %i exactly as difflib', (_, c) => {
    for (const type of DIFF_TYPES) expect(diffObjects(c.before, c.after, type), type).toBe(c[type])
  })

  it('gives no unified or context text for equal objects', () => {
    expect(diffObjects({ a: 1 }, { a: 1 }, 'unified')).toBe('')
    expect(diffObjects({ a: 1 }, { a: 1 }, 'context')).toBe('')
    expect(diffObjects({ a: 1 }, { a: 1 }, 'html')).toContain(
      '<a href="#difflib_chg_to0__top">t</a>',
    )
  })
})
