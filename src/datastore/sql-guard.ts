// datastore_search_sql: checks one user statement and rewrites common PostgreSQL spellings for SQLite.
// The output is rebuilt from our own tokens (comments dropped, PG-only literals re-spelt), so what SQLite
// parses is exactly what was checked. The run-time EXPLAIN table check remains the authority on tables.
import {
  emit,
  group,
  isCallName,
  isGroup,
  isName,
  isOp,
  isWord,
  lex,
  NOT_CALLS,
  readType,
  refuse,
  significant,
  sqlString,
  SqlRefused,
  tok,
  tree,
  word,
  type Group,
  type Node,
  type Tok,
} from './sql-lex'
import { columnNames } from './sql-names'

export { SqlRefused }

export interface GuardedSql {
  /**
   * Rewritten for SQLite, result columns named as PostgreSQL names them, and wrapped as
   * `SELECT * FROM (…) AS t LIMIT maxRows + 1`.
   */
  sql: string
  /** Functions called, lower-cased unless quoted, in order of first use. */
  functions: string[]
  /** Tables named after FROM / JOIN / IN (CTE names excluded); unquoted names lower-cased. */
  tableRefs: string[]
}

// Operators also call functions (LIKE, GLOB, REGEXP, MATCH, -> and ->>): all pure, none listed here.
const ALLOWED_FUNCTIONS = new Set(
  (
    'count sum avg min max total group_concat string_agg array_agg json_agg json_group_array ' +
    'json_group_object upper lower length char_length character_length substr substring replace ' +
    'trim btrim ltrim rtrim concat concat_ws instr coalesce ifnull nullif iif abs round ceil ceiling ' +
    'floor trunc power pow sqrt exp ln log log10 log2 mod sign pi sin cos tan asin acos atan atan2 ' +
    'degrees radians random json json_extract json_array json_object json_each json_tree json_type ' +
    'json_valid json_array_length json_quote date time datetime julianday strftime unixepoch ' +
    'date_trunc date_part extract to_char cast typeof printf format row_number rank dense_rank ' +
    'percent_rank cume_dist ntile lag lead first_value last_value nth_value greatest least like glob ' +
    'char unicode hex'
  ).split(' '),
)

/**
 * The functions a query may call: names matched in any case, and names (CKAN's "double-quoted"
 * entries) matched only as spelt.
 */
export interface AllowedFunctions {
  anyCase: ReadonlySet<string>
  asSpelt: ReadonlySet<string>
}

const BUILT_IN: AllowedFunctions = { anyCase: ALLOWED_FUNCTIONS, asSpelt: new Set() }

/** The allow-list of `service.datastore.sqlsearch.allowed_functions`; empty: the built-in one. */
export function allowedFunctions(entries: readonly string[]): AllowedFunctions {
  if (!entries.length) return BUILT_IN
  const anyCase = new Set<string>()
  const asSpelt = new Set<string>()
  for (const e of entries) {
    if (e.length > 2 && e.startsWith('"') && e.endsWith('"')) asSpelt.add(e.slice(1, -1))
    else anyCase.add(e.toLowerCase())
  }
  return { anyCase, asSpelt }
}

/**
 * ckan: a call is allowed when its name in lower case is an any-case entry, or its name as written
 * is a quoted entry (so with `"count"` listed, `count(*)` is allowed and `CoUnT(*)` is not). A
 * quoted call (`"Upper"(x)`) names exactly that function: PostgreSQL has none but the lower-case
 * ones, so it is allowed only as written in lower case, or as a quoted entry.
 */
function isAllowedCall(n: Tok, allowed: AllowedFunctions): boolean {
  const spelt = n.k === 'qident' ? n.v : n.s
  if (allowed.asSpelt.has(spelt)) return true
  return (n.k === 'ident' || spelt === spelt.toLowerCase()) && allowed.anyCase.has(spelt.toLowerCase())
}

// SQLite's own catalogue and eponymous virtual tables (dbstat, pragma_*), PostgreSQL's, and ours.
const isSystemName = (name: string) =>
  /^(sqlite_|pg_|pragma_|_)/i.test(name) || /^(information_schema|dbstat)$/i.test(name)

// Words that change data; refused anywhere, so `WITH x AS (DELETE …)` never reaches the database.
const WRITES = ['insert', 'update', 'delete', 'merge', 'truncate']

/** Strips one trailing ';'; any other ';' outside strings and comments means several statements. */
function singleStatement(toks: Tok[]): Tok[] {
  let last = toks.length - 1
  if (toks[last]?.k === 'ws') last--
  const body = isOp(toks[last], ';') ? toks.slice(0, last) : toks
  if (body.some((t) => isOp(t, ';'))) throw refuse('Query is not a single statement.')
  return body
}

// PostgreSQL's operator characters (less '`', which sql-lex reads as a quote, as SQLite does).
const PG_OPERATOR = /^[-+*/<>=~!@#%^&|?]+$/
const isPgOperator = (t: Tok | undefined) => t?.k === 'op' && PG_OPERATOR.test(t.s)
// Words PostgreSQL reserves that cannot begin an operand.
const NOT_OPERANDS = new Set(
  (
    'from where group having order limit offset union intersect except window fetch for into as ' +
    'on using then else end when and or asc desc in returning collate'
  ).split(' '),
)

/**
 * PostgreSQL reads a run of operator characters as one operator (sql-lex splits it into SQLite's:
 * `**` is two, and SQLite fails at the second). The run may end as several operators (`*-` is `*`
 * then `-`), but each one before the last is followed by an operator, which may begin an operand.
 * An operator (prefix or infix; PostgreSQL has no postfix ones) needs an operand after it: where
 * a ')', ',', ';', the end or a reserved word such as FROM follows instead, PostgreSQL fails at
 * that token (`SELECT ** FROM t`: syntax error at or near "FROM"). A lone `*` is the star of
 * `SELECT *`, `t.*` and `count(*)`; after USING (`ORDER BY a USING <`), a '.' or OPERATOR( an
 * operator is a name, not an operation. Linear: runs of whitespace are one token.
 */
function checkOperands(toks: Tok[]): void {
  let prev: Tok | undefined // the significant tokens before toks[i]
  let prev2: Tok | undefined
  for (let i = 0; i < toks.length; ) {
    const t = toks[i]!
    if (!isPgOperator(t)) {
      if (t.k !== 'ws') {
        prev2 = prev
        prev = t
      }
      i++
      continue
    }
    let run = ''
    let j = i
    while (isPgOperator(toks[j])) run += toks[j++]!.s
    const name =
      isWord(prev, 'using') || isOp(prev, '.') || (isOp(prev, '(') && isWord(prev2, 'operator'))
    if (run !== '*' && !name) {
      const next = toks[toks[j]?.k === 'ws' ? j + 1 : j]
      if (!next) throw new SqlRefused('syntax error at end of input', 'syntax')
      if (isOp(next, ')') || isOp(next, ',') || isOp(next, ';') || isWord(next, ...NOT_OPERANDS)) {
        throw new SqlRefused(`syntax error at or near "${next.s}"`, 'syntax')
      }
    }
    prev2 = prev
    prev = toks[j - 1]
    i = j
  }
}

function checkShape(root: Group, toks: Tok[]): void {
  let head = significant(root.items)[0]
  while (isGroup(head)) head = significant(head.items)[0]
  if (!head) throw refuse('syntax error at end of input')
  if (!isWord(head, 'select', 'with', 'values')) {
    if (head.k !== 'ident') throw refuse(`syntax error at or near "${head.s}"`)
    throw refuse(`cannot execute ${head.s.toUpperCase()} in a read-only transaction`)
  }
  const write = toks.find((t) => isWord(t, ...WRITES))
  if (write) throw refuse(`cannot execute ${write.s.toUpperCase()} in a read-only transaction`)
}

/** `name [(cols)] AS [NOT] [MATERIALIZED] (` right after WITH, RECURSIVE or ',' defines a CTE. */
function isCteName(sig: Node[], i: number): boolean {
  if (!isWord(sig[i - 1], 'with', 'recursive') && !isOp(sig[i - 1], ',')) return false
  const as = isGroup(sig[i + 1]) ? i + 2 : i + 1
  return (
    isWord(sig[as], 'as') && (isGroup(sig[as + 1]) || isWord(sig[as + 1], 'not', 'materialized'))
  )
}

function checkFunctions(g: Group, names: Set<string>, allowed: AllowedFunctions): Set<string> {
  const sig = significant(g.items)
  sig.forEach((n, i) => {
    if (isGroup(n)) return checkFunctions(n, names, allowed)
    if (!isCallName(n) || !isGroup(sig[i + 1])) return
    // a type (CAST(x AS varchar(9)), x::numeric(9,2)), an alias column list or a CTE: no call
    if (isWord(sig[i - 1], 'as') || isOp(sig[i - 1], '::') || isCteName(sig, i)) return
    // character varying(9)
    if (isWord(n, 'varying') && isWord(sig[i - 1], 'character', 'char')) return
    if (!isAllowedCall(n, allowed)) {
      throw new SqlRefused(`Not authorized to call function ${n.v}`, 'auth')
    }
    names.add(n.v)
  })
  return names
}

const CLAUSE_WORDS = new Set(
  (
    'where join inner left right full outer cross natural on using group order limit offset having ' +
    'window union intersect except fetch for returning indexed not tablesample'
  ).split(' '),
)

/** Reads the table list after FROM / JOIN / IN at sig[i]; refuses system tables. */
function readTables(sig: Node[], i: number, refs: string[]): void {
  const kind = (sig[i] as Tok).v
  for (let j = i + 1; ; j++) {
    if (isWord(sig[j], 'lateral')) j++
    const n = sig[j]
    if (isCallName(n)) {
      const parts = [n.v]
      while (isOp(sig[j + 1], '.') && isName(sig[j + 2])) {
        parts.push((sig[j + 2] as Tok).v)
        j += 2
      }
      if (parts.some(isSystemName)) {
        throw new SqlRefused('Not authorized to access system tables', 'auth')
      }
      // a table-valued function is checked as a call
      if (isGroup(sig[j + 1])) j++
      else refs.push((parts[0] === 'public' ? parts.slice(1) : parts).join('.'))
    } else if (!isGroup(n)) return
    if (kind === 'in') return
    const alias = isWord(sig[j + 1], 'as') ? j + 2 : j + 1
    const a = sig[alias]
    if (isName(a) && !(a.k === 'ident' && CLAUSE_WORDS.has(a.v))) {
      j = isGroup(sig[alias + 1]) ? alias + 1 : alias
    }
    if (kind !== 'from' || !isOp(sig[j + 1], ',')) return
    j++
  }
}

/** Tables named after FROM / JOIN / IN, skipping FROM inside calls (extract, substring, trim). */
function collectTables(g: Group, inCall: boolean, refs: string[], ctes: Set<string>): void {
  const sig = significant(g.items)
  sig.forEach((n, i) => {
    if (isGroup(n)) return collectTables(n, isCallName(sig[i - 1]), refs, ctes)
    if (isName(n) && isCteName(sig, i)) ctes.add(n.v)
    if (inCall || !isWord(n, 'from', 'join', 'in')) return
    if (isWord(n, 'from') && isWord(sig[i - 1], 'distinct')) return // IS [NOT] DISTINCT FROM
    readTables(sig, i, refs)
  })
}

// ---------------------------------------------------------------------------------------------------
// Rewrites of PostgreSQL spellings

// Maps, not objects: a user-supplied name such as `constructor` must not find a prototype member.
const TYPES = new Map<string, string>()
const defineTypes = (sqlite: string, names: string) =>
  names.split(',').forEach((n) => TYPES.set(n, sqlite))
defineTypes('INTEGER', 'int,integer,int2,int4,int8,smallint,bigint,serial,bigserial,bool,boolean')
defineTypes('REAL', 'float,float4,float8,real,double precision')
defineTypes('NUMERIC', 'numeric,decimal')
defineTypes(
  'TEXT',
  'text,varchar,char,character,character varying,name,citext,json,jsonb,uuid,date,time,timestamp,' +
    'timestamptz,timestamp without time zone,timestamp with time zone,time without time zone',
)

/**
 * Index of the CASE that the END at out[end] closes. Linear overall: a cast wraps that CASE into
 * one group, which an enclosing CASE's search then steps over at once.
 */
function caseStart(out: Node[], end: number): number {
  let depth = 0
  for (let i = end; i >= 0; i--) {
    if (isWord(out[i], 'end')) depth++
    else if (isWord(out[i], 'case') && --depth === 0) return i
  }
  throw refuse('syntax error at or near "::"')
}

/** Removes and returns the operand that ends `out` (PostgreSQL's `::` binds tightest). */
function popOperand(out: Node[]): Node[] {
  const sigAt = (i: number) => (out[i]?.k === 'ws' ? i - 1 : i)
  const end = sigAt(out.length - 1)
  let start = end
  const last = out[start]
  if (isGroup(last)) {
    if (isCallName(out[sigAt(start - 1)])) start = sigAt(start - 1)
  } else if (isWord(last, 'end')) {
    start = caseStart(out, start)
  } else if (!last || last.k === 'op' || (last.k === 'ident' && NOT_CALLS.has(last.v))) {
    throw refuse('syntax error at or near "::"')
  }
  while (isOp(out[sigAt(start - 1)], '.') && isName(out[sigAt(sigAt(start - 1) - 1)])) {
    start = sigAt(sigAt(start - 1) - 1)
  }
  return out.splice(start).slice(0, end + 1 - start)
}

/** `expr::type` → `CAST(expr AS <sqlite type>)`, chains included. */
function rewriteCasts(items: Node[]): Node[] {
  const out: Node[] = []
  for (let i = 0; i < items.length; i++) {
    if (!isOp(items[i], '::')) {
      out.push(items[i]!)
      continue
    }
    const operand = popOperand(out)
    const type = readType(items, i + 1)
    if (!type) throw refuse('syntax error at or near "::"')
    const sqliteType = TYPES.get(type.name)
    if (!sqliteType) throw refuse(`type "${type.name}" does not exist`)
    out.push(word('CAST'), group([...operand, word(' AS '), word(sqliteType)]))
    i = type.end
  }
  return out
}

/** 'a=1 b=2' → Map { a → '1', b → '2' } */
const pairs = (list: string) =>
  new Map(list.split(' ').map((pair) => pair.split('=') as [string, string]))

const TRUNC = pairs(
  'year=%Y-01-01T00:00:00 month=%Y-%m-01T00:00:00 day=%Y-%m-%dT00:00:00 ' +
    'hour=%Y-%m-%dT%H:00:00 minute=%Y-%m-%dT%H:%M:00 second=%Y-%m-%dT%H:%M:%S',
)
const PART = pairs('year=%Y month=%m day=%d hour=%H minute=%M dow=%w doy=%j epoch=%s')
// to_char pictures we can express: the ISO fields, "quoted text" and separators.
const PICTURE = /YYYY|MM|DD|HH24|MI|SS|"[^"%]*"|[-/:., T]/gy
const PICTURE_FIELDS = pairs('YYYY=%Y MM=%m DD=%d HH24=%H MI=%M SS=%S')

function strftimeFormat(picture: string): string | undefined {
  PICTURE.lastIndex = 0
  const parts = picture.match(PICTURE) ?? []
  if (parts.join('') !== picture) return undefined
  return parts.map((p) => PICTURE_FIELDS.get(p) ?? p.replaceAll('"', '')).join('')
}

const literal = (arg: Node[] | undefined) => {
  const sig = significant(arg ?? [])
  const t = sig[0]
  if (sig.length !== 1 || t?.k !== 'str' || !t.s.startsWith("'")) return undefined
  return t.s.slice(1, -1).replaceAll("''", "'")
}
const strftime = (format: string, expr: Node[]) => [
  word('strftime'),
  group([sqlString(format), tok('op', ', '), ...expr.slice(expr[0]?.k === 'ws' ? 1 : 0)]),
]
const castInt = (inner: Node[]) => [word('CAST'), group([...inner, word(' AS INTEGER')])]

const RENAMES = pairs(
  'string_agg=group_concat array_agg=json_group_array json_agg=json_group_array btrim=trim ' +
    'char_length=length character_length=length greatest=max least=min',
)

/** The replacement for a call of `name` with argument group g, or undefined to keep it. */
function rewriteCall(name: string, g: Group): Node[] | undefined {
  if (name === 'extract') {
    // extract(year FROM x) is date_part('year', x)
    const sig = significant(g.items)
    const part = isName(sig[0]) && isWord(sig[1], 'from') ? PART.get(sig[0].v) : undefined
    return part ? castInt(strftime(part, g.items.slice(g.items.indexOf(sig[1]!) + 1))) : undefined
  }
  const args: Node[][] = [[]]
  for (const n of g.items) {
    if (isOp(n, ',')) args.push([])
    else args[args.length - 1]!.push(n)
  }
  const unit = literal(args[0])?.toLowerCase() ?? ''
  if (args.length === 2) {
    const trunc = TRUNC.get(unit)
    const part = PART.get(unit)
    if (name === 'date_trunc' && trunc) return strftime(trunc, args[1]!)
    if (name === 'date_part' && part) return castInt(strftime(part, args[1]!))
    const format = name === 'to_char' ? strftimeFormat(literal(args[1]) ?? '') : undefined
    if (format) return strftime(format, args[0]!)
  }
  // PostgreSQL's greatest(x) is x; SQLite's one-argument max() would aggregate
  if ((name === 'greatest' || name === 'least') && args.length === 1) return [g]
  const renamed = RENAMES.get(name)
  return renamed ? [word(renamed), g] : undefined
}

/** `name (…) AS (` or `… AS [NOT] MATERIALIZED`: the name before items[groupAt] is a CTE's. */
function namesCte(items: Node[], groupAt: number): boolean {
  const next = (j: number) => (items[j]?.k === 'ws' ? j + 1 : j)
  const as = next(groupAt + 1)
  const after = items[next(as + 1)]
  return isWord(items[as], 'as') && (isGroup(after) || isWord(after, 'not', 'materialized'))
}

function rewriteCalls(items: Node[]): Node[] {
  const out: Node[] = []
  for (let i = 0; i < items.length; i++) {
    const n = items[i]!
    const at = items[i + 1]?.k === 'ws' ? i + 2 : i + 1
    const g = items[at]
    const before = out[out.length - 1]?.k === 'ws' ? out[out.length - 2] : out[out.length - 1]
    // A quoted name is rewritten too: the guard let it through only if it is an allowed
    // function's name exactly, as PostgreSQL would find it ("greatest"(…) works there).
    const replaced =
      isName(n) && isGroup(g) && !isWord(before, 'as') && !namesCte(items, at)
        ? rewriteCall(n.v, g)
        : undefined
    if (replaced) {
      out.push(...replaced)
      i = at
    } else out.push(n)
  }
  return out
}

/** ILIKE and the ~~ operators → LIKE; `public.x` → `"x"`. */
function rewriteSpellings(items: Node[]): Node[] {
  const out: Node[] = []
  const at = (j: number) => (items[j]?.k === 'ws' ? j + 1 : j)
  for (let i = 0; i < items.length; i++) {
    const n = items[i]!
    const target = items[at(at(i + 1) + 1)]
    if (isName(n) && n.v === 'public' && isOp(items[at(i + 1)], '.') && isName(target)) {
      out.push(target.k === 'qident' ? target : tok('qident', `"${target.v}"`, target.v))
      i = at(at(i + 1) + 1)
    } else if (isWord(n, 'ilike')) out.push(word('LIKE'))
    else if (isOp(n, '~~') || isOp(n, '~~*')) out.push(word(' LIKE '))
    else if (isOp(n, '!~~') || isOp(n, '!~~*')) out.push(word(' NOT LIKE '))
    else out.push(n)
  }
  return out
}

function rewrite(g: Group): Group {
  const items = g.items.map((n) => (isGroup(n) ? rewrite(n) : n))
  return group(rewriteSpellings(rewriteCalls(rewriteCasts(items))))
}

// SQLite names an unaliased item after its (rewritten) text, PostgreSQL after the expression's
// shape; clients read records by PostgreSQL's names (`records[0].count`). Both take a compound's
// names from its first arm, so only that arm is named.

/** Gives the items of the outermost select list the names PostgreSQL gives them. */
function nameColumns(root: Group): void {
  const list = columnNames(root)
  if (!list) return
  list.g.items = list.g.items.flatMap((n, i) => {
    const column = list.names.get(i)
    if (!column) return [n]
    const quoted = tok('qident', `"${column.name.replaceAll('"', '""')}"`, column.name)
    return column.alias ? [quoted] : [n, word(' AS '), quoted]
  })
}

/** Checks and rewrites one datastore_search_sql statement; throws SqlRefused. */
export function guardSql(input: string, maxRows: number, allowed = BUILT_IN): GuardedSql {
  const all = lex(input)
  const toks = singleStatement(all)
  checkOperands(all)
  const root = tree(toks)
  checkShape(root, toks)
  const functions = [...checkFunctions(root, new Set(), allowed)]
  const refs: string[] = []
  const ctes = new Set<string>()
  collectTables(root, false, refs, ctes)
  nameColumns(root)
  const sql = emit(rewrite(root).items).trim()
  const limit = Math.max(0, Math.floor(maxRows)) + 1
  return {
    sql: `SELECT * FROM (${sql}) AS t LIMIT ${limit}`,
    functions,
    tableRefs: [...new Set(refs)].filter((r) => !ctes.has(r)),
  }
}

/** PostgreSQL wording for the SQLite messages clients are known to match on. */
export function pgMessage(sqliteMessage: string): string {
  const msg = sqliteMessage.replace(/^SQLITE_[A-Z_]+: /, '')
  let m: RegExpExecArray | null
  if ((m = /^near "(.*)": syntax error$/s.exec(msg))) return `syntax error at or near "${m[1]}"`
  if (msg === 'incomplete input') return 'syntax error at end of input'
  if ((m = /^no such table: (?:main\.)?(.*)$/s.exec(msg)))
    return `relation "${m[1]}" does not exist`
  if ((m = /^no such column: (.*)$/s.exec(msg))) return `column "${m[1]}" does not exist`
  if ((m = /^no such function: (.*)$/s.exec(msg))) return `function ${m[1]} does not exist`
  return msg
}
