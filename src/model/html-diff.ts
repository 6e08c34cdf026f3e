// activity_diff diff_type=html: the side-by-side table of Python's difflib.HtmlDiff().make_table.
import { diffArrays, diffChars } from 'diff'

// difflib marks changed text with \0 + kind … \1 while it lays rows out, then turns the marks
// into spans once the text has been escaped.
const ADD = '\0+'
const SUB = '\0-'
const CHG = '\0^'
const END = '\x01'

/** One side of a row: a line number and its (marked) text, or a blank filler. */
type Cell = { num: number; text: string } | null
type Row = { from: Cell; to: Cell; changed: boolean }

/** ckan wraps lines before diffing them: pieces of up to 70 characters ending in a space. */
const wrap = (lines: string[]) => lines.flatMap((l) => l.match(/.{1,70}(?:\s+|$)/g) ?? [])

/** Share of characters two lines have in common (SequenceMatcher.ratio, on the library's diff). */
function similarity(a: string, b: string, parts = diffChars(a, b)): number {
  if (!a.length && !b.length) return 1
  const common = parts.filter((p) => !p.added && !p.removed).reduce((n, p) => n + p.value.length, 0)
  return (2 * common) / (a.length + b.length)
}

/** The changed characters of a similar pair of lines, marked on both sides. */
function markPair(a: string, b: string, parts = diffChars(a, b)): [string, string] {
  let from = ''
  let to = ''
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!
    const next = parts[i + 1]
    if (!p.added && !p.removed) {
      from += p.value
      to += p.value
    } else if (next && (next.added || next.removed) && next.added !== p.added) {
      // a removal next to an addition is a change on both sides
      const [rem, add] = p.removed ? [p, next] : [next, p]
      from += CHG + rem.value + END
      to += CHG + add.value + END
      i++
    } else if (p.removed) from += SUB + p.value + END
    else to += ADD + p.value + END
  }
  return [from, to]
}

const whole = (mark: string, line: string) => mark + (line || ' ') + END

// Past this many line pairs a block is not searched for similar lines (difflib has no limit;
// this keeps one request from comparing huge replaced blocks pair by pair).
const MAX_PAIRS = 40_000

type Pair = { from?: string; to?: string; changed: boolean }

/** Removed and added lines paired off in order, blanks where one side runs out. */
function plainPairs(dels: string[], adds: string[]): Pair[] {
  return Array.from({ length: Math.max(dels.length, adds.length) }, (_, k) => ({
    from: dels[k] === undefined ? undefined : whole(SUB, dels[k]!),
    to: adds[k] === undefined ? undefined : whole(ADD, adds[k]!),
    changed: true,
  }))
}

/**
 * ndiff's _fancy_replace as rows: the most similar pair of lines (more than 3/4 alike) is shown
 * side by side with its changed characters, and the lines before and after it are aligned the
 * same way; with no such pair, removed and added lines are paired off in order.
 */
function alignBlock(dels: string[], adds: string[]): Pair[] {
  if (!dels.length || !adds.length) return plainPairs(dels, adds)
  let best = 0.74
  let found: { i: number; j: number; parts: ReturnType<typeof diffChars> } | undefined
  if (dels.length * adds.length <= MAX_PAIRS)
    for (let j = 0; j < adds.length; j++)
      for (let i = 0; i < dels.length; i++) {
        const [a, b] = [dels[i]!, adds[j]!]
        // difflib's real_quick_ratio: an upper bound from the lengths alone
        if ((2 * Math.min(a.length, b.length)) / (a.length + b.length || 1) <= best) continue
        const parts = diffChars(a, b)
        const r = similarity(a, b, parts)
        if (r > best) [best, found] = [r, { i, j, parts }]
      }
  if (!found) return plainPairs(dels, adds)
  const [a, b] = [dels[found.i]!, adds[found.j]!]
  const [from, to] = a === b ? [a, b] : markPair(a, b, found.parts)
  return [
    ...alignBlock(dels.slice(0, found.i), adds.slice(0, found.j)),
    { from, to, changed: a !== b },
    ...alignBlock(dels.slice(found.i + 1), adds.slice(found.j + 1)),
  ]
}

/** The table's rows: unchanged lines side by side, each run of changes aligned by alignBlock. */
function rowsOf(a: string[], b: string[]): Row[] {
  const rows: Row[] = []
  let na = 0
  let nb = 0
  const changes = diffArrays(a, b)
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!
    if (!c.added && !c.removed) {
      for (const line of c.value)
        rows.push({
          from: { num: ++na, text: line },
          to: { num: ++nb, text: line },
          changed: false,
        })
      continue
    }
    const dels: string[] = []
    const adds: string[] = []
    for (; i < changes.length && (changes[i]!.added || changes[i]!.removed); i++)
      (changes[i]!.added ? adds : dels).push(...changes[i]!.value)
    i--
    for (const p of alignBlock(dels, adds))
      rows.push({
        from: p.from === undefined ? null : { num: ++na, text: p.from },
        to: p.to === undefined ? null : { num: ++nb, text: p.to },
        changed: p.changed,
      })
  }
  return rows
}

/** difflib's _format_line. */
function cell(side: 'from' | 'to', c: Cell): string {
  if (!c) return '<td class="diff_header"></td><td nowrap="nowrap"></td>'
  const text = c.text
    .replace(/&/g, '&amp;')
    .replace(/>/g, '&gt;')
    .replace(/</g, '&lt;')
    .replace(/ /g, '&nbsp;')
    .replace(/\s+$/, '')
  const header = `<td class="diff_header" id="${side}0_${c.num}">${c.num}</td>`
  return `${header}<td nowrap="nowrap">${text}</td>`
}

const TABLE_HEAD = `
    <table class="diff" id="difflib_chg_to0__top"
           cellspacing="0" cellpadding="0" rules="groups" >
        <colgroup></colgroup> <colgroup></colgroup> <colgroup></colgroup>
        <colgroup></colgroup> <colgroup></colgroup> <colgroup></colgroup>
        
        <tbody>
`
const TABLE_TAIL = `        </tbody>
    </table>`

/** HtmlDiff().make_table(a, b) of one table on a page (anchor prefix 0, full text, no headers). */
export function htmlDiffTable(fromLines: string[], toLines: string[]): string {
  const rows = rowsOf(wrap(fromLines), wrap(toLines))
  let froms = rows.map((r) => cell('from', r.from))
  let tos = rows.map((r) => cell('to', r.to))
  let flags = rows.map((r) => r.changed)
  // difflib _convert_flags: an anchor 5 lines above each change, a link to the next one beside it
  const nextId = flags.map(() => '')
  const nextHref = flags.map(() => '')
  let changes = 0
  let inChange = false
  let last = 0
  flags.forEach((flag, i) => {
    if (!flag) return void (inChange = false)
    if (inChange) return
    inChange = true
    last = i
    nextId[Math.max(0, i - 5)] = ` id="difflib_chg_to0__${changes}"`
    changes++
    nextHref[i] = `<a href="#difflib_chg_to0__${changes}">n</a>`
  })
  if (!flags.length) {
    flags = [false]
    nextId.push('')
    nextHref.push('')
    froms = tos = ['<td></td><td>&nbsp;Empty File&nbsp;</td>']
  }
  if (!flags[0]) nextHref[0] = '<a href="#difflib_chg_to0__0">f</a>'
  nextHref[last] = '<a href="#difflib_chg_to0__top">t</a>'
  const body = flags
    .map(
      (_, i) =>
        `            <tr><td class="diff_next"${nextId[i]}>${nextHref[i]}</td>${froms[i]}` +
        `<td class="diff_next">${nextHref[i]}</td>${tos[i]}</tr>\n`,
    )
    .join('')
  return (TABLE_HEAD + body + TABLE_TAIL)
    .replaceAll(ADD, '<span class="diff_add">')
    .replaceAll(SUB, '<span class="diff_sub">')
    .replaceAll(CHG, '<span class="diff_chg">')
    .replaceAll(END, '</span>')
    .replaceAll('\t', '&nbsp;')
}
