// datastore_search_sql: result column names as PostgreSQL gives them (its FigureColname, as of
// version 15), read from the statement as written (sql-lex.ts's tree), before any rewrite.
import {
  isGroup,
  isName,
  isOp,
  isWord,
  NOT_CALLS,
  readType,
  significant,
  type Group,
  type Node,
  type Tok,
  type TypeName,
} from './sql-lex'

/** A name for the item ending there; alias: it replaces the item's alias rather than follows it. */
export interface ColumnName {
  name: string
  alias: boolean
}

/** A name and its strength: a column or call (2) beats a cast's type (1), which beats none (0). */
interface Named {
  name: string
  strength: number
}
const UNNAMED: Named = { name: '?column?', strength: 0 }
// Constants are unnamed (up to PostgreSQL 14 true and false were named bool).
const CONSTANTS = ['null', 'true', 'false']
// Words after which a name is an operand, not a bare alias (`a AND b`, `rank() OVER w`).
const OPERATORS = new Set(
  'and or not is in like ilike between distinct from collate as over escape'.split(' '),
)
// Words that end an expression, so never a bare alias (`x IS NULL`, `CASE … END`).
const ENDINGS = ['null', 'true', 'false', 'end', 'isnull', 'notnull']
// Where a select list ends (`IS DISTINCT FROM` and `WITHIN GROUP` do not end it).
const LIST_ENDS = new Set(
  (
    'from where group having window order limit offset fetch union intersect except ' +
    'into for'
  ).split(' '),
)
const PG_TYPES = new Map(
  (
    'int=int4,integer=int4,smallint=int2,bigint=int8,boolean=bool,real=float4,float=float8,' +
    'double precision=float8,decimal=numeric,char=bpchar,character=bpchar,' +
    'character varying=varchar,timestamp without time zone=timestamp,' +
    'timestamp with time zone=timestamptz,time without time zone=time'
  )
    .split(',')
    .map((pair) => pair.split('=') as [string, string]),
)
// Parentheses, CASE in ELSE and subqueries nested deeper than this are left unnamed.
const MAX_NAME_DEPTH = 100

/** PostgreSQL's name of a type: int → int4, float(24) → float4, varchar(9) → varchar. */
function pgTypeName({ name, args }: TypeName): string {
  const precision = args && significant(args.items)[0]
  if (name === 'float' && precision?.k === 'num') {
    return Number(precision.s) <= 24 ? 'float4' : 'float8'
  }
  return PG_TYPES.get(name) ?? name
}

type CaseBounds = Map<number, { end: number; otherwise?: number }>

/** Each CASE's END and ELSE on one level, found in one pass so that nested CASEs stay linear. */
function caseBounds(sig: Node[]): CaseBounds {
  const bounds: CaseBounds = new Map()
  const open: { end: number; otherwise?: number }[] = []
  sig.forEach((n, i) => {
    if (isWord(n, 'case')) {
      open.push({ end: -1 })
      bounds.set(i, open[open.length - 1]!)
    } else if (isWord(n, 'else') && open.length) open[open.length - 1]!.otherwise = i
    else if (isWord(n, 'end') && open.length) open.pop()!.end = i
  })
  return bounds
}

/** The name of sig[from, to): a column, call, cast, CASE or parenthesised one; else ?column?. */
function nameOf(sig: Node[], from: number, to: number, cases: CaseBounds, depth: number): Named {
  const first = depth < MAX_NAME_DEPTH ? operand(sig, from, cases, depth) : undefined
  if (!first) return UNNAMED
  let { end, named } = first
  while (end < to) {
    const type = isOp(sig[end], '::') ? readType(sig, end + 1) : undefined
    if (type) {
      if (named.strength < 2) named = { name: pgTypeName(type), strength: 1 }
      end = type.end + 1
    } else if (isWord(sig[end], 'collate') && isName(sig[end + 1])) end += 2
    else return UNNAMED
  }
  return end === to ? named : UNNAMED
}

/** The operand at sig[i], its name and the index after it; undefined for an operator. */
function operand(sig: Node[], i: number, cases: CaseBounds, depth: number) {
  const n = sig[i]
  const args = sig[i + 1]
  if (isGroup(n)) return { end: i + 1, named: nameOfGroup(n, depth + 1) }
  if (n?.k === 'num' || n?.k === 'str' || isWord(n, ...CONSTANTS)) {
    return { end: i + 1, named: UNNAMED }
  }
  if (isWord(n, 'case')) return caseName(sig, i, cases, depth)
  if (isWord(n, 'cast') && isGroup(args)) return { end: i + 2, named: castName(args, depth + 1) }
  if (isWord(n, 'exists') && isGroup(args)) {
    return { end: i + 2, named: { name: 'exists', strength: 2 } }
  }
  if (!isName(n) || isWord(n, 'not')) return undefined
  let j = i
  while (isOp(sig[j + 1], '.') && isName(sig[j + 2])) j += 2
  const name = sig[j] as Tok
  const call = sig[j + 1]
  if (!isGroup(call)) return { end: j + 1, named: { name: name.v, strength: 2 } }
  let end = j + 2
  if (isWord(sig[end], 'within') && isWord(sig[end + 1], 'group') && isGroup(sig[end + 2])) end += 3
  if (isWord(sig[end], 'filter') && isGroup(sig[end + 1])) end += 2
  if (isWord(sig[end], 'over') && (isGroup(sig[end + 1]) || isName(sig[end + 1]))) end += 2
  return { end, named: { name: callName(name, call), strength: 2 } }
}

/** TRIM(…) is named after the function it stands for. */
function callName(name: Tok, args: Group): string {
  if (!isWord(name, 'trim')) return name.v
  const side = args.items.find((n) => n.k !== 'ws')
  return isWord(side, 'leading') ? 'ltrim' : isWord(side, 'trailing') ? 'rtrim' : 'btrim'
}

/** CASE is named after its ELSE branch when that is a column or call. */
function caseName(sig: Node[], i: number, cases: CaseBounds, depth: number) {
  const bounds = cases.get(i)
  if (!bounds || bounds.end < 0) return undefined
  const { otherwise, end } = bounds
  const branch =
    otherwise === undefined ? UNNAMED : nameOf(sig, otherwise + 1, end, cases, depth + 1)
  return { end: end + 1, named: branch.strength === 2 ? branch : { name: 'case', strength: 1 } }
}

/** CAST(x AS type): the name of x if it is strong, else the type's. */
function castName(g: Group, depth: number): Named {
  const sig = significant(g.items)
  let as = -1
  sig.forEach((n, i) => (as = isWord(n, 'as') ? i : as))
  const type = as < 0 ? undefined : readType(sig, as + 1)
  if (!type) return UNNAMED
  const inner = nameOf(sig, 0, as, caseBounds(sig), depth)
  return inner.strength === 2 ? inner : { name: pgTypeName(type), strength: 1 }
}

/** A parenthesised expression is named as its content, a subquery after its first column. */
function nameOfGroup(g: Group, depth: number): Named {
  const sig = significant(g.items)
  const query =
    isWord(sig[0], 'select', 'with', 'values') ||
    sig.some((n) => isWord(n, 'union', 'intersect', 'except'))
  if (!query) return nameOf(sig, 0, sig.length, caseBounds(sig), depth)
  const head = queryHead(g)
  if (!head || isWord(head.g.items[head.at], 'values')) {
    return { name: head ? 'column1' : '?column?', strength: 2 }
  }
  const [from, to] = selectItems(head.g.items, head.at)[0]!
  const item = significant(head.g.items.slice(from, to))
  const alias = aliasOf(item)
  // SQLite also takes a string as an alias
  const name = alias?.k === 'str' ? alias.s.slice(1, -1).replaceAll("''", "'") : alias?.v
  return { name: name ?? nameOf(item, 0, item.length, caseBounds(item), depth).name, strength: 2 }
}

/** Where the query in g says SELECT or VALUES; a parenthesised first arm is looked into. */
function queryHead(g: Group): { g: Group; at: number } | undefined {
  const first = g.items.find((n) => n.k !== 'ws')
  if (isGroup(first)) return queryHead(first)
  const at = g.items.findIndex((n) => isWord(n, 'select', 'values'))
  return at < 0 ? undefined : { g, at }
}

/** Index ranges [from, to) in items of the select list after the SELECT at items[at]. */
function selectItems(items: Node[], at: number): [number, number][] {
  const next = (j: number) => (items[j]?.k === 'ws' ? j + 1 : j)
  let i = next(at + 1)
  if (isWord(items[i], 'all')) i = next(i + 1)
  else if (isWord(items[i], 'distinct')) {
    i = next(i + 1)
    if (isWord(items[i], 'on') && isGroup(items[next(i + 1)])) i = next(next(i + 1) + 1)
  }
  const ranges: [number, number][] = []
  let from = i
  let prev: Node | undefined
  for (; i < items.length; i++) {
    const n = items[i]!
    if (n.k === 'ws') continue
    if (isOp(n, ',')) {
      ranges.push([from, i])
      from = i + 1
    } else if (n.k === 'ident' && LIST_ENDS.has(n.v) && !isWord(prev, 'distinct', 'within')) break
    prev = n
  }
  ranges.push([from, i])
  return ranges
}

const isOperand = (n: Node | undefined): n is Tok | Group =>
  n?.k === 'group' || n?.k === 'num' || n?.k === 'str' || isName(n)

/** The alias of a select item: after AS, or a bare name following an operand. */
function aliasOf(item: Node[]): Tok | undefined {
  const last = item[item.length - 1]
  const before = item[item.length - 2]
  if (isWord(before, 'as')) return isGroup(last) ? undefined : last
  if (!isName(last) || isWord(last, ...ENDINGS) || isWord(before, ...OPERATORS)) return undefined
  // the last words of a type: double precision, character varying, with time zone
  const typeWords = isWord(before, 'double', 'character', 'char', 'time')
  if (typeWords && isWord(last, 'precision', 'varying', 'zone')) return undefined
  return isOperand(before) ? last : undefined
}

/**
 * Result column names to give in the outermost select list (of its first arm, if compound), by the
 * index in `g.items` where an item ends: PostgreSQL's name of an item without alias, or the
 * lower-cased spelling of an unquoted alias (`AS Total` is "total" for PostgreSQL) to replace it.
 * Undefined for VALUES, whose columns SQLite names as PostgreSQL does (column1, column2 …).
 */
export function columnNames(root: Group): { g: Group; names: Map<number, ColumnName> } | undefined {
  const head = queryHead(root)
  if (!head || !isWord(head.g.items[head.at], 'select')) return undefined
  const { items } = head.g
  const names = new Map<number, ColumnName>()
  for (const [from, to] of selectItems(items, head.at)) {
    const item = significant(items.slice(from, to))
    const last = item[item.length - 1]
    let end = to - 1
    while (items[end]?.k === 'ws') end--
    const alias = aliasOf(item)
    if (alias) {
      if (alias.k === 'ident' && alias.s !== alias.v) names.set(end, { name: alias.v, alias: true })
      continue
    }
    // `*`, `t.*`, and an incomplete item, whose syntax error stays where it was (`SELECT a + FROM`)
    if (!isOperand(last) || (last.k === 'ident' && NOT_CALLS.has(last.v))) continue
    const cases = caseBounds(item)
    if ([...cases.values()].some((b) => b.end < 0)) continue
    names.set(end, { name: nameOf(item, 0, item.length, cases, 0).name, alias: false })
  }
  return { g: head.g, names }
}
