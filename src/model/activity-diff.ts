// activity_diff's text: two objects dumped as CKAN dumps them, laid out as Python's difflib does.
import { structuredPatch, type StructuredPatchHunk } from 'diff'
import { asciiJsonString } from '../lib/json'
import { pyNumber } from '../lib/py-repr'
import { htmlDiffTable } from './html-diff'

export const DIFF_TYPES = ['unified', 'context', 'html'] as const
export type DiffType = (typeof DIFF_TYPES)[number]

/** Python's json.dumps(value, indent=2, sort_keys=True): ASCII only, `,` then newline, `: `. */
export function pyJsonDump(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : pyNumber(value)
  if (typeof value === 'string') return asciiJsonString(value)
  const inner = indent + '  '
  if (Array.isArray(value)) {
    if (!value.length) return '[]'
    return `[\n${value.map((v) => inner + pyJsonDump(v, inner)).join(',\n')}\n${indent}]`
  }
  const obj = value as Record<string, unknown>
  const keys = Object.keys(obj).sort()
  if (!keys.length) return '{}'
  const items = keys.map((k) => `${inner}${asciiJsonString(k)}: ${pyJsonDump(obj[k], inner)}`)
  return `{\n${items.join(',\n')}\n${indent}}`
}

/** The diff of two objects' dumps in one of difflib's layouts (CKAN's activity_diff). */
export function diffObjects(before: unknown, after: unknown, type: DiffType): string {
  const a = pyJsonDump(before).split('\n')
  const b = pyJsonDump(after).split('\n')
  if (type === 'html') return htmlDiffTable(a, b)
  // Both texts end with a newline, so the library adds no "\ No newline" markers.
  const hunks = structuredPatch('', '', a.join('\n') + '\n', b.join('\n') + '\n', '', '', {
    context: 3,
  }).hunks
  // ckan joins difflib's lines with '\n'; its header lines end in '\n' already.
  return (type === 'unified' ? unified(hunks) : context(hunks)).join('\n')
}

/** difflib._format_range_unified, from a 1-based start and a length. */
function unifiedRange(start: number, length: number): string {
  if (length === 1) return `${start}`
  return `${length ? start : start - 1},${length}`
}

function unified(hunks: StructuredPatchHunk[]): string[] {
  if (!hunks.length) return []
  const out = ['--- \n', '+++ \n']
  for (const h of hunks) {
    out.push(
      `@@ -${unifiedRange(h.oldStart, h.oldLines)} +${unifiedRange(h.newStart, h.newLines)} @@\n`,
    )
    out.push(...h.lines)
  }
  return out
}

/** difflib._format_range_context. */
function contextRange(start: number, length: number): string {
  const first = length ? start : start - 1
  return length <= 1 ? `${first}` : `${first},${first + length - 1}`
}

type Op = { tag: 'equal' | 'replace' | 'delete' | 'insert'; old: string[]; new: string[] }

/** A hunk as difflib's opcodes: runs of context, and each run of changes as one opcode. */
function opcodes(h: StructuredPatchHunk): Op[] {
  const ops: Op[] = []
  for (const line of h.lines) {
    const kind = line[0]
    const text = line.slice(1)
    const last = ops[ops.length - 1]
    if (kind === ' ') {
      if (last?.tag === 'equal') {
        last.old.push(text)
        last.new.push(text)
      } else ops.push({ tag: 'equal', old: [text], new: [text] })
      continue
    }
    const op: Op = last && last.tag !== 'equal' ? last : { tag: 'delete', old: [], new: [] }
    if (op !== last) ops.push(op)
    ;(kind === '-' ? op.old : op.new).push(text)
    op.tag = op.old.length && op.new.length ? 'replace' : op.old.length ? 'delete' : 'insert'
  }
  return ops
}

const PREFIX = { equal: '  ', replace: '! ', delete: '- ', insert: '+ ' }

function context(hunks: StructuredPatchHunk[]): string[] {
  if (!hunks.length) return []
  const out = ['*** \n', '--- \n']
  for (const h of hunks) {
    const ops = opcodes(h)
    out.push('***************\n', `*** ${contextRange(h.oldStart, h.oldLines)} ****\n`)
    if (ops.some((o) => o.tag === 'replace' || o.tag === 'delete'))
      for (const o of ops) if (o.tag !== 'insert') out.push(...o.old.map((l) => PREFIX[o.tag] + l))
    out.push(`--- ${contextRange(h.newStart, h.newLines)} ----\n`)
    if (ops.some((o) => o.tag === 'replace' || o.tag === 'insert'))
      for (const o of ops) if (o.tag !== 'delete') out.push(...o.new.map((l) => PREFIX[o.tag] + l))
  }
  return out
}
