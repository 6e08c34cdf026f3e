// datastore_search → SQL: output columns, filters, full-text, sort and paging over one table.
import type { InValue } from '@libsql/client'
import { ValidationError } from '../errors'
import { ftsQuery, rankSql, TsQueryError } from './fts'
import { internalNames, quoteIdent } from './ident'
import type { DsTable } from './registry'
import { filterValue, ValueError } from './values'
import { pyFloatRepr } from '../lib/py-repr'

/** The comparison operators a filter dict may use (CKAN 2.12), as SQL. */
const FILTER_OPS: Record<string, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }

/** Whether a filter value is a dict of operators: every key one of eq, in, gt, gte, lt, lte. */
function isOperatorFilter(value: unknown, jsonColumn: boolean): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false
  const keys = Object.keys(value)
  const ops = keys.length > 0 && keys.every((k) => k === 'in' || k in FILTER_OPS)
  if (!ops && !jsonColumn) throw ValidationError.field('filters', `Unknown filter operation: ${keys.filter((k) => k !== 'in' && !(k in FILTER_OPS)).join(', ') || '{}'}`)
  return ops
}


export interface SearchSpec {
  filters?: Record<string, unknown>
  q?: string | Record<string, string>
  /**
   * CKAN 2.10's `full_text` beside a `q` dict: a whole-row search ANDed with the per-column ones,
   * ranked as `rank` (a `full_text` without a `q` dict is passed as the `q` string it acts as).
   */
  fullText?: string
  plain: boolean
  language: string
  distinct: boolean
  fields?: string[]
  sort?: string | string[]
  limit: number
  offset: number
  /**
   * CKAN 2.11 (api_compat 2.11): a number or boolean filter value on a `text` column is compared
   * as Python's str() of it (25 matches "25"), where 2.9 fails with "operator does not exist".
   */
  textFiltersAsText?: boolean
  /**
   * Beyond CKAN (as_of): a subquery (without arguments) giving `_id` and the columns of `t`, read
   * in place of the table. Full text is not available over it (the index covers the present rows).
   */
  source?: string
  /**
   * `source` as the halves of its UNION ALL: a page in `_id` order is then read as a compound
   * SELECT whose ORDER BY merges the halves as they come (each is in `_id` order already), so it
   * reads only the rows up to the page instead of sorting the whole union.
   */
  sourceArms?: string[]
  /**
   * A count of `source` under the search's filters as a sum of counts over these subqueries
   * (each like `source`): those in `plus` added, those in `minus` taken away. Each is an index
   * range where `source` would be read row by row.
   */
  countTerms?: { plus: string[]; minus: string[] }
  /**
   * A deep page in `_id` order seeks (see PlannedSearch.seek) instead of walking `source` up to
   * the offset: `base` is a subquery whose rows `source` mostly shares, in `_id` order (as_of: the
   * table's own rows); `plus` and `minus` count the rest of `source` like countTerms (the base's
   * matches before the seek point are the offset it is taken at), each read in `_id` order (the
   * count stops at the seek point).
   */
  seek?: { base: string; plus: string[]; minus: string[] }
}

/** Python's str() of a JSON number or boolean, as CKAN 2.11 binds it for a text column. */
function pyScalarText(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v !== 'number') return v
  return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : pyFloatRepr(v)
}

/** One output column: a user column (index), `_id`, or a rank column (SQL expression). */
export interface OutColumn {
  id: string
  type: string
  info?: Record<string, unknown>
  /** Position of the user column; -1 for _id; -2 for rank columns. */
  col: number
  expr: string
}

export interface PlannedSearch {
  columns: OutColumn[]
  /** The page query (LIMIT/OFFSET bound last). */
  sql: string
  args: InValue[]
  /** The match count query, with its arguments. */
  countSql: string
  countSqlArgs: InValue[]
  /** The arguments of `where`, `from` and `allSql` (and of countSql, but for countTerms). */
  countArgs: InValue[]
  /**
   * A page in ascending `_id` order at a deep offset k over a `source` with SearchSpec.seek:
   * `at` gives the `_id` x of the base's row at an offset and the number c of matches before x
   * (counted by the seek's terms), `page` the matches from x on at offset k - c, right whenever
   * c <= k (searchTable tries a few x).
   */
  seek?: {
    at: { sql: string; args: (offset: number) => InValue[] }
    page: { sql: string; args: (x: InValue, limit: number, offset: number) => InValue[] }
  }
  /** The rows query without paging (the dump streams it). */
  allSql: string
  /** ` WHERE ...` over alias `t` (empty when nothing is filtered), with countArgs. */
  where: string
  /** ` FROM <table> t [JOIN <full text>] [WHERE ...]`: the matching rows, with countArgs (group_by reads them). */
  from: string
}

const invalid = (field: string, value: string) =>
  ValidationError.field(field, `invalid value "${value}"`)

/** CKAN's "Invalid query" error with the statement that failed (datastore.md §6.7). */
export function invalidQuery(orig: string, statement: string, params: unknown[]): ValidationError {
  return new ValidationError({
    query: ['Invalid query'],
    info: { statement: [statement], params: [params], orig: [orig] },
  })
}

/** Splits a sort string at commas outside double quotes. */
export function sortClauses(sort: string | string[]): string[] {
  if (Array.isArray(sort)) return sort.map(String)
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (const ch of sort) {
    if (ch === '"') quoted = !quoted
    if (ch === ',' && !quoted) {
      out.push(cur)
      cur = ''
    } else cur += ch
  }
  out.push(cur)
  return out.filter((c) => c.trim() !== '')
}

const NULLS = /\s+nulls\s+(first|last)\s*$/i
const DIRECTION = /\s+(asc|desc)\s*$/i

/** A sort clause read: `<column> [asc|desc] [nulls first|last]`, the column unquoted. */
export function parseSortClause(clause: string): { name: string; dir: 'ASC' | 'DESC'; nulls?: 'FIRST' | 'LAST' } {
  let rest = ' ' + clause.trim()
  let nulls: 'FIRST' | 'LAST' | undefined
  let m = NULLS.exec(rest)
  if (m) {
    nulls = m[1]!.toUpperCase() as 'FIRST' | 'LAST'
    rest = rest.slice(0, m.index)
  }
  let dir: 'ASC' | 'DESC' = 'ASC'
  m = DIRECTION.exec(rest)
  if (m) {
    dir = m[1]!.toUpperCase() as 'ASC' | 'DESC'
    rest = rest.slice(0, m.index)
  }
  let name = rest.trim()
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"'))
    name = name.slice(1, -1).replaceAll('""', '"')
  return { name, dir, nulls }
}

/** `<column> [asc|desc] [nulls first|last]` → ORDER BY term, or undefined when the column is unknown. */
function sortTerm(clause: string, byName: Map<string, OutColumn>, t: DsTable): string | undefined {
  const { name, dir, nulls: given } = parseSortClause(clause)
  const col = byName.get(name)
  if (!col) return undefined
  // PostgreSQL: NULLs sort as larger than every value
  const nulls = given ?? (dir === 'ASC' ? 'LAST' : 'FIRST')
  const type = col.col >= 0 ? t.types[col.col] : undefined
  if (type?.array) return arraySortTerms(col.expr, dir, nulls, type.kind === 'float' || type.kind === 'numeric')
  return `${col.expr} ${dir} NULLS ${nulls}`
}

/** Elements of an array column compared one by one in its sort; longer arrays tie-break as text. */
const ARRAY_SORT_ELEMENTS = 16

/**
 * ORDER BY terms for an array column (stored as JSON text) in PostgreSQL's order: element by
 * element, an array that is a prefix of another before it, NULL elements after every value; the
 * column's NULLs by `nulls`. The first ARRAY_SORT_ELEMENTS elements are compared so; arrays that
 * agree on all of them are ordered by their JSON text.
 */
function arraySortTerms(expr: string, dir: string, nulls: string, numeric: boolean): string {
  const terms = [`(${expr} IS NULL) ${nulls === 'LAST' ? 'ASC' : 'DESC'}`]
  for (let i = 0; i < ARRAY_SORT_ELEMENTS; i++) {
    const at = `'$[${i}]'`
    // -1: no element there (a shorter array), 0: a value, 1: a NULL element
    terms.push(`coalesce(json_type(${expr}, ${at}) = 'null', -1) ${dir}`)
    const v = `json_extract(${expr}, ${at})`
    // float and numeric arrays keep their infinities as text; NaN (text) sorts after them, as in PostgreSQL
    terms.push(
      numeric
        ? `CASE ${v} WHEN '-Infinity' THEN -9e999 WHEN 'Infinity' THEN 9e999 ELSE ${v} END ${dir}`
        : `${v} ${dir}`,
    )
  }
  terms.push(`${expr} ${dir}`)
  return terms.join(', ')
}

export function planSearch(t: DsTable, spec: SearchSpec): PlannedSearch {
  const tbl = spec.source ? `(${spec.source})` : quoteIdent(t.id)
  const fts = quoteIdent(internalNames(t.id).fts)
  const nfts = Math.max(1, t.columns.length)
  const where: string[] = []
  const args: InValue[] = []
  let join = ''

  const available: OutColumn[] = [{ id: '_id', type: 'int', col: -1, expr: 't."_id"' }]
  t.columns.forEach((c, i) =>
    available.push({ id: c.id, type: c.type, info: c.info, col: i, expr: `t.${quoteIdent(c.id)}` }),
  )
  const ranks: OutColumn[] = []

  // full text
  const q = spec.q
  if (typeof q === 'string' && q !== '') {
    const fq = fullText(() => ftsQuery(q, { plain: spec.plain, language: spec.language }))
    if (fq.match === null) where.push('0')
    else if (fq.negate) {
      where.push(`t."_id" NOT IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`)
      args.push(fq.match)
    } else {
      join = ` JOIN ${fts} f ON f.rowid = t."_id"`
      where.push(`f.${fts} MATCH ?`)
      args.push(fq.match)
    }
    const expr = join ? rankSql(`f.${fts}`, nfts) : '0.0'
    ranks.push({ id: 'rank', type: 'float', col: -2, expr })
  } else if (q && typeof q === 'object') {
    const matches: string[] = []
    for (const [colId, text] of Object.entries(q)) {
      const pos = t.position.get(colId)
      if (pos === undefined || typeof text !== 'string') throw invalid('q', colId)
      const fq = fullText(() => ftsQuery(text, { plain: spec.plain, language: spec.language, column: pos }))
      if (fq.match === null) where.push('0')
      else if (fq.negate) {
        where.push(`t."_id" NOT IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`)
        args.push(fq.match)
      } else matches.push(fq.match)
      ranks.push({ id: `rank ${colId}`, type: 'float', col: -2, expr: '' })
    }
    if (matches.length) {
      join = ` JOIN ${fts} f ON f.rowid = t."_id"`
      where.push(`f.${fts} MATCH ?`)
      args.push(matches.map((m) => `(${m})`).join(' AND '))
    }
    for (const r of ranks) r.expr = join ? rankSql(`f.${fts}`, nfts, t.position.get(r.id.slice(5))) : '0.0'
    // full_text with a q dict: the whole-row search on an FTS join of its own, so each rank
    // counts only its own query; `rank` comes first, as CKAN lists it
    if (spec.fullText) {
      const text = spec.fullText
      const fq = fullText(() => ftsQuery(text, { plain: spec.plain, language: spec.language }))
      let expr = '0.0'
      if (fq.match === null) where.push('0')
      else if (fq.negate) {
        where.push(`t."_id" NOT IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`)
        args.push(fq.match)
      } else {
        join += ` JOIN ${fts} g ON g.rowid = t."_id"`
        where.push(`g.${fts} MATCH ?`)
        args.push(fq.match)
        expr = rankSql(`g.${fts}`, nfts)
      }
      ranks.unshift({ id: 'rank', type: 'float', col: -2, expr })
    }
  }

  // filters
  for (const [colId, value] of Object.entries(spec.filters ?? {})) {
    const pos = colId === '_id' ? -1 : t.position.get(colId)
    if (pos === undefined) throw invalid('filters', colId)
    const ref = pos === -1 ? 't."_id"' : `t.${quoteIdent(colId)}`
    const type = pos === -1 ? undefined : t.types[pos]!
    const asText = spec.textFiltersAsText && pos !== -1 && t.columns[pos]!.type === 'text'
    const bind = (v: unknown): InValue => {
      try {
        return type ? filterValue(type, asText ? pyScalarText(v) : v) : idValue(v)
      } catch (e) {
        if (e instanceof ValueError) throw invalidQuery(e.message, `SELECT ... WHERE ${ref} = ?`, [v])
        throw e
      }
    }
    // CKAN 2.12: a dict of operators ({"gt": 100}, {"in": [1, 2]}, …), ANDed; keyset paging sends
    // {"_id": {"gt": <last _id>}} (a json column keeps plain dicts as values to match)
    if (isOperatorFilter(value, type?.kind === 'json')) {
      for (const [op, operand] of Object.entries(value as Record<string, unknown>)) {
        if (op === 'in') {
          const list = Array.isArray(operand) ? operand.filter((v) => v !== null && v !== undefined).map(bind) : null
          if (!list) throw ValidationError.field('filters', `The "in" operation of "${colId}" takes a list`)
          if (!list.length) where.push('0')
          else where.push(`${ref} IN (${list.map(() => '?').join(', ')})`)
          args.push(...list)
        } else {
          if (operand === null || operand === undefined || typeof operand === 'object')
            throw ValidationError.field('filters', `The "${op}" operation of "${colId}" takes one value`)
          where.push(`${ref} ${FILTER_OPS[op]} ?`)
          args.push(bind(operand))
        }
      }
      continue
    }
    const values = Array.isArray(value) && !(type?.array) ? value : [value]
    const bound: InValue[] = []
    for (const v of values) {
      if (v === null || v === undefined) continue
      try {
        bound.push(type ? filterValue(type, asText ? pyScalarText(v) : v) : idValue(v))
      } catch (e) {
        if (e instanceof ValueError) throw invalidQuery(e.message, `SELECT ... WHERE ${ref} = ?`, [v])
        throw e
      }
    }
    if (!bound.length) where.push('0')
    else if (bound.length === 1) where.push(`${ref} = ?`)
    else where.push(`${ref} IN (${bound.map(() => '?').join(', ')})`)
    args.push(...bound)
  }

  // output columns
  const byName = new Map([...available, ...ranks].map((c) => [c.id, c]))
  let columns: OutColumn[]
  if (spec.fields) {
    columns = spec.fields.map((f) => {
      const c = byName.get(f)
      if (!c) throw invalid('fields', f)
      return c
    })
  } else columns = [...available, ...ranks]

  // order
  let order: string[]
  if (spec.sort !== undefined && sortClauses(spec.sort).length) {
    order = sortClauses(spec.sort).map((clause) => {
      const term = sortTerm(clause, byName, t)
      if (!term) throw invalid('sort', clause.trim())
      return term
    })
  } else if (ranks.length && join) order = [...ranks.map((r) => `${r.expr} DESC`), 't."_id" ASC']
  else order = spec.distinct ? [] : ['t."_id" ASC']

  const select = columns.map((c) => c.expr).join(', ') || 't."_id"'
  const whereSql = where.length ? ` WHERE ${where.join(' AND ')}` : ''
  const from = ` FROM ${tbl} t${join}${whereSql}`
  const allSql =
    `SELECT ${spec.distinct ? 'DISTINCT ' : ''}${select}${from}` +
    (order.length ? ` ORDER BY ${order.join(', ')}` : '')
  // Only a whole-row MATCH: the full-text table alone knows the matches (its triggers keep it row
  // for row with the table), so count there and rank-page there before touching the table.
  const onlyMatch = join !== '' && where.length === 1 && typeof q === 'string' && !spec.distinct
  const terms = spec.countTerms && !join && !spec.distinct ? spec.countTerms : undefined
  const termCount = (src: string) => `(SELECT count(*) FROM (${src}) t${whereSql})`
  const countSqlArgs = terms ? [...terms.plus, ...terms.minus].flatMap(() => args) : args
  const countSql = terms
    ? `SELECT ${terms.plus.map(termCount).join(' + ')}${terms.minus.map((m) => ` - ${termCount(m)}`).join('')}`
    : spec.distinct
    ? `SELECT count(*) FROM (SELECT DISTINCT ${select}${from})`
    : onlyMatch
      ? `SELECT count(*) FROM ${fts} WHERE ${fts} MATCH ?`
      : `SELECT count(*)${from}`
  const rankPaged = onlyMatch && (spec.sort === undefined || !sortClauses(spec.sort).length)
  const b = 'm.b'
  const pageSql = rankPaged
    ? `WITH m AS (SELECT rowid AS id, bm25(${fts}) AS b FROM ${fts} WHERE ${fts} MATCH ? ` +
      `ORDER BY b ASC, rowid ASC LIMIT ? OFFSET ?) SELECT ` +
      (columns.map((c) => (c.col === -2 ? `(-${b} / (1.0 - ${b}))` : c.expr)).join(', ') || 't."_id"') +
      ` FROM m JOIN ${tbl} t ON t."_id" = m.id ORDER BY m.b ASC, m.id ASC`
    : `${allSql} LIMIT ? OFFSET ?`
  const idAt = columns.findIndex((c) => c.col === -1)
  const idOrder = order.length === 1 && /^t\."_id" (ASC|DESC)$/.exec(order[0]!.replace(/ NULLS (FIRST|LAST)$/, ''))
  if (spec.sourceArms && !join && !spec.distinct && idAt >= 0 && idOrder) {
    const arms = spec.sourceArms.map((arm) => `SELECT ${select} FROM (${arm}) t${whereSql}`)
    const and = (term: string) => (whereSql ? `${whereSql} AND ${term}` : ` WHERE ${term}`)
    const sourceArms = spec.sourceArms
    const by = spec.seek
    const seek =
      by && idOrder[1] === 'ASC'
        ? {
            at: {
              sql:
                `WITH x AS (SELECT t."_id" AS id FROM (${by.base}) t${whereSql} ORDER BY t."_id" LIMIT 1 OFFSET ?) SELECT x.id, ? ` +
                by.plus.map((src) => ` + (SELECT count(*) FROM (${src}) t${and('t."_id" < x.id')})`).join('') +
                by.minus.map((src) => ` - (SELECT count(*) FROM (${src}) t${and('t."_id" < x.id')})`).join('') +
                ' FROM x',
              args: (offset: number) => [...args, offset, offset, ...[...by.plus, ...by.minus].flatMap(() => args)],
            },
            page: {
              sql:
                sourceArms.map((arm) => `SELECT ${select} FROM (${arm}) t${and('t."_id" >= ?')}`).join(' UNION ALL ') +
                ` ORDER BY ${idAt + 1} ASC LIMIT ? OFFSET ?`,
              args: (x: InValue, limit: number, offset: number) => [...sourceArms.flatMap(() => [...args, x]), limit, offset],
            },
          }
        : undefined
    return {
      seek,
      columns,
      sql: `${arms.join(' UNION ALL ')} ORDER BY ${idAt + 1} ${idOrder[1]} LIMIT ? OFFSET ?`,
      args: [...arms.flatMap(() => args), spec.limit, spec.offset],
      countSql,
      countSqlArgs,
      countArgs: args,
      allSql,
      where: whereSql,
      from,
    }
  }
  return {
    columns,
    // both forms bind the query's arguments, then LIMIT and OFFSET
    sql: pageSql,
    args: [...args, spec.limit, spec.offset],
    countSql,
    countSqlArgs,
    countArgs: args,
    allSql,
    where: whereSql,
    from,
  }
}

function fullText<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    if (e instanceof TsQueryError) throw invalidQuery(e.message, 'to_tsquery', [])
    throw e
  }
}

function idValue(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  if (!Number.isInteger(n)) throw new ValueError(`invalid input syntax for type integer: "${String(v)}"`)
  return n
}
