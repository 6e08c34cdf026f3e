// datastore_search's group_by and aggregates (beyond CKAN): the parameters, their checks against
// the table, and the one statement that groups the matching rows, counts the groups and pages them.
import type { InValue } from '@libsql/client'
import { ValidationError } from '../errors'
import { parseBoundedJson } from '../lib/bounded-json'
import { typeFromName, type ColumnType } from './column-types'
import type { OutField } from './formats'
import { isValidFieldName, quoteIdent } from './ident'
import { toList } from './params'
import { invalidQuery, parseSortClause, planSearch, sortClauses, type SearchSpec } from './query'
import type { DsTable } from './registry'
import { SqlTimeout, sqliteMessage, type DatastoreReader, type DsResult } from './store'
import { makeDecoder, timestampMsOut, type Decoder } from './values'

export const BUCKETS = ['year', 'quarter', 'month', 'week', 'day', 'hour'] as const
export type Bucket = (typeof BUCKETS)[number]

export const AGGREGATE_FUNCTIONS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max', 'median'] as const
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number]

/** A group key: a column, or a date bucket of one; `as` is its output name. */
export interface GroupKey {
  column: string
  bucket?: Bucket
  as: string
}

/** An aggregate; `column` is absent only for `count` (rows); `as` is its output name. */
export interface Aggregate {
  function: AggregateFunction
  column?: string
  as: string
}

export interface Aggregation {
  groupBy: GroupKey[]
  aggregates: Aggregate[]
}

type Err = (field: string, message: string) => void

const SHAPE = {
  group_by: 'Must be a list of column names and {"column": …, "bucket": …, "as": …} objects',
  aggregates: 'Must be a list of {"function": …, "column": …, "as": …} objects',
}

/**
 * A parameter as a list: JSON text (how GET sends it) parsed, one object as a list of one, a
 * comma-separated string of names (group_by only); each item that is JSON object text parsed too.
 */
function listOf(field: 'group_by' | 'aggregates', v: unknown, err: Err): unknown[] | undefined {
  const parse = (text: string) => {
    try {
      return parseBoundedJson(text)
    } catch {
      err(field, 'Cannot parse JSON')
      return undefined
    }
  }
  if (typeof v === 'string') {
    const s = v.trim()
    if (s === '') return []
    if (s.startsWith('[') || s.startsWith('{')) v = parse(s)
    else if (field === 'group_by') return toList(s)
    else return err(field, SHAPE[field]), undefined
    if (v === undefined) return undefined
  }
  const items = Array.isArray(v) ? v : v && typeof v === 'object' ? [v] : undefined
  if (!items) return err(field, SHAPE[field]), undefined
  return items.map((x) => (typeof x === 'string' && x.trim().startsWith('{') ? parse(x.trim()) : x))
}

const isDict = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)
const show = (v: unknown) => JSON.stringify(v)

function outputName(field: string, as: unknown, fallback: string, err: Err): string {
  if (as === undefined || as === null) return fallback
  if (!isValidFieldName(as)) err(field, `"as": ${show(as)} is not a valid field name`)
  return typeof as === 'string' ? as : fallback
}

function parseGroupBy(v: unknown, err: Err): GroupKey[] {
  const keys: GroupKey[] = []
  for (const item of listOf('group_by', v, err) ?? []) {
    if (typeof item === 'string') {
      if (item === '') err('group_by', 'A column name must not be empty')
      else keys.push({ column: item, as: item })
      continue
    }
    if (!isDict(item)) {
      if (item !== undefined) err('group_by', `${show(item)}: ${SHAPE.group_by}`)
      continue
    }
    const extra = Object.keys(item).filter((k) => k !== 'column' && k !== 'bucket' && k !== 'as')
    if (extra.length) err('group_by', `Unknown key "${extra[0]}" in ${show(item)}: use column, bucket and as`)
    const column = item.column
    if (typeof column !== 'string' || column === '') {
      err('group_by', `Missing value: "column" in ${show(item)}`)
      continue
    }
    let bucket: Bucket | undefined
    if (item.bucket !== undefined && item.bucket !== null) {
      const b = typeof item.bucket === 'string' ? item.bucket.trim().toLowerCase() : ''
      if ((BUCKETS as readonly string[]).includes(b)) bucket = b as Bucket
      else err('group_by', `"bucket" must be one of ${BUCKETS.join(', ')}: ${show(item.bucket)}`)
    }
    keys.push({ column, bucket, as: outputName('group_by', item.as, bucket ? `${column}_${bucket}` : column, err) })
  }
  return keys
}

function parseAggregates(v: unknown, err: Err): Aggregate[] {
  const out: Aggregate[] = []
  for (const item of listOf('aggregates', v, err) ?? []) {
    if (!isDict(item)) {
      if (item !== undefined) err('aggregates', `${show(item)}: ${SHAPE.aggregates}`)
      continue
    }
    const extra = Object.keys(item).filter((k) => k !== 'function' && k !== 'column' && k !== 'as')
    if (extra.length) err('aggregates', `Unknown key "${extra[0]}" in ${show(item)}: use function, column and as`)
    const fn = typeof item.function === 'string' ? item.function.trim().toLowerCase() : undefined
    if (!fn) {
      err('aggregates', `Missing value: "function" in ${show(item)}`)
      continue
    }
    if (!(AGGREGATE_FUNCTIONS as readonly string[]).includes(fn)) {
      err('aggregates', `Unknown function "${fn}": use ${AGGREGATE_FUNCTIONS.join(', ')}`)
      continue
    }
    const column = item.column === undefined || item.column === null ? undefined : item.column
    if (column !== undefined && (typeof column !== 'string' || column === '')) {
      err('aggregates', `"column" must be a column name: ${show(column)}`)
      continue
    }
    if (column === undefined && fn !== 'count') {
      err('aggregates', `Missing value: "${fn}" needs a "column"`)
      continue
    }
    const fallback = column === undefined ? 'count' : `${fn}_${column}`
    out.push({ function: fn as AggregateFunction, column, as: outputName('aggregates', item.as, fallback, err) })
  }
  return out
}

/**
 * group_by and aggregates of a datastore_search call (undefined when neither is sent or both are
 * empty), with the checks that need no table: shapes, functions, buckets, output names, and the
 * parameters that make no sense beside them. Problems go to `err`, field by field.
 */
export function aggregationParams(
  input: Record<string, unknown>,
  with_: { distinct: boolean; includeNextPage: boolean },
  err: Err,
): Aggregation | undefined {
  const sent = (v: unknown) => v !== undefined && v !== null && v !== ''
  if (!sent(input.group_by) && !sent(input.aggregates)) return undefined
  const groupBy = sent(input.group_by) ? parseGroupBy(input.group_by, err) : []
  const aggregates = sent(input.aggregates) ? parseAggregates(input.aggregates, err) : []
  const seen = new Set<string>()
  for (const [field, names] of [['group_by', groupBy.map((k) => k.as)], ['aggregates', aggregates.map((a) => a.as)]] as const) {
    for (const name of names) {
      if (seen.has(name)) err(field, `Duplicate output name "${name}": give one of them another "as"`)
      seen.add(name)
    }
  }
  if (!groupBy.length && !aggregates.length) return undefined
  if (with_.distinct) err('distinct', 'distinct cannot be combined with group_by or aggregates: every group is one row already')
  if (with_.includeNextPage)
    err('include_next_page', 'include_next_page pages rows in _id order; groups are paged with offset')
  return { groupBy, aggregates }
}

/** The normalised parameters, as the answer echoes them. */
export function aggregationEcho(a: Aggregation) {
  return {
    group_by: a.groupBy.map((k) => (k.bucket ? { column: k.column, bucket: k.bucket, as: k.as } : { column: k.column, as: k.as })),
    aggregates: a.aggregates.map((x) => (x.column === undefined ? { function: x.function, as: x.as } : { ...x })),
  }
}

// ---------------------------------------------------------------- planning

const NUMBER_KINDS = new Set(['int', 'float', 'numeric'])
const DATE_KINDS = new Set(['date', 'timestamp', 'timestamptz'])
const isNumber = (t: ColumnType) => !t.array && NUMBER_KINDS.has(t.kind)
/** Scalar types whose stored text or number orders and compares as their values do (min, max, group keys). */
const ordered = (t: ColumnType) => !t.array && t.kind !== 'json' && (t.kind !== 'other' || t.name === 'uuid')

/** The stored date/timestamp text `ref` cut down to the start of its bucket, in the column's own format. */
function bucketSql(ref: string, kind: string, bucket: Bucket): string {
  const day = (() => {
    switch (bucket) {
      case 'year':
        return `substr(${ref}, 1, 4) || '-01-01'`
      case 'quarter':
        return (
          `substr(${ref}, 1, 5) || CASE WHEN substr(${ref}, 6, 2) <= '03' THEN '01' WHEN substr(${ref}, 6, 2) <= '06' ` +
          `THEN '04' WHEN substr(${ref}, 6, 2) <= '09' THEN '07' ELSE '10' END || '-01'`
        )
      case 'month':
        return `substr(${ref}, 1, 7) || '-01'`
      // PostgreSQL's weeks start on Monday (ISO)
      case 'week':
        return `date(substr(${ref}, 1, 10), '-6 days', 'weekday 1')`
      case 'day':
        return `substr(${ref}, 1, 10)`
      case 'hour':
        return `substr(${ref}, 1, 13)`
    }
  })()
  const time = bucket === 'hour' ? ':00:00' : 'T00:00:00'
  const cut = kind === 'date' ? day : `${day} || '${time}${kind === 'timestamptz' ? '+00:00' : ''}'`
  // as PostgreSQL's date_trunc: infinity stays infinity
  return `CASE WHEN ${ref} IN ('infinity', '-infinity') THEN ${ref} ELSE ${cut} END`
}

const INT8 = typeFromName('int8')
const FLOAT8 = typeFromName('float8')
const NUMERIC = typeFromName('numeric')

/** The output type of an aggregate, as PostgreSQL types it (median: percentile_cont's float8). */
function aggregateType(fn: AggregateFunction, t: ColumnType | undefined): ColumnType {
  if (fn === 'count' || fn === 'count_distinct') return INT8
  if (fn === 'median') return FLOAT8
  if (fn === 'min' || fn === 'max') return t!
  if (t!.kind === 'float') return FLOAT8
  if (t!.kind === 'numeric') return NUMERIC
  return fn === 'sum' ? INT8 : NUMERIC
}

interface Output {
  id: string
  type: ColumnType
  info?: Record<string, unknown>
}

export interface PlannedAggregate {
  /** Every output column (group keys, then aggregates); `visible` picks and orders the answer's. */
  outputs: Output[]
  visible: number[]
  /** The page: the visible columns, then the number of groups (at most maxGroups + 1). */
  sql: string
  args: InValue[]
  /** The number of groups (at most maxGroups + 1), for a page that holds no row to say it. */
  countSql: string
  countArgs: InValue[]
}

const typeName = (t: ColumnType) => t.name

/**
 * Checks group_by, aggregates, fields and sort against the table (every problem at once, field
 * by field) and plans the statement. Filters and full text come from planSearch, so they apply first.
 */
export function planAggregate(t: DsTable, spec: SearchSpec, a: Aggregation, maxGroups: number): PlannedAggregate {
  const errors: Record<string, string[]> = {}
  const err: Err = (k, m) => void (errors[k] ??= []).push(m)
  const columnOf = (field: string, name: string) => {
    const pos = t.position.get(name)
    if (pos === undefined) err(field, `Column "${name}" does not exist`)
    return pos
  }

  const outputs: Output[] = []
  const keyExprs: string[] = []
  for (const k of a.groupBy) {
    const pos = columnOf('group_by', k.column)
    if (pos === undefined) continue
    const type = t.types[pos]!
    const ref = `t.${quoteIdent(k.column)}`
    if (k.bucket) {
      if (!DATE_KINDS.has(type.kind) || type.array)
        err('group_by', `Bucket "${k.bucket}" needs a date or timestamp column: "${k.column}" is ${typeName(type)}`)
      else if (k.bucket === 'hour' && type.kind === 'date')
        err('group_by', `Bucket "hour" needs a timestamp column: "${k.column}" is date`)
      else {
        outputs.push({ id: k.as, type })
        keyExprs.push(bucketSql(ref, type.kind, k.bucket))
      }
      continue
    }
    if (!ordered(type)) {
      err('group_by', `Column "${k.column}" (${typeName(type)}) cannot be grouped: only columns of scalar types can`)
      continue
    }
    const info = t.columns[pos]!.info
    outputs.push(info && k.as === k.column ? { id: k.as, type, info } : { id: k.as, type })
    keyExprs.push(ref)
  }

  // aggregate expressions over a column reference (the table's, or the windowed rows' for median)
  const aggExprs: ((ref: (pos: number) => string) => string)[] = []
  const medians = new Set<number>()
  const used = new Set<number>()
  for (const x of a.aggregates) {
    const pos = x.column === undefined ? undefined : columnOf('aggregates', x.column)
    if (x.column !== undefined && pos === undefined) continue
    const type = pos === undefined ? undefined : t.types[pos]!
    const fn = x.function
    if (type && (fn === 'sum' || fn === 'avg' || fn === 'median') && !isNumber(type)) {
      err('aggregates', `"${fn}" needs a number column: "${x.column}" is ${typeName(type)}`)
      continue
    }
    if (type && (fn === 'min' || fn === 'max') && !ordered(type)) {
      err('aggregates', `"${fn}" cannot be applied to "${x.column}" (${typeName(type)})`)
      continue
    }
    if (type && fn === 'count_distinct' && type.kind === 'json' && !type.array) {
      err('aggregates', `"count_distinct" cannot be applied to "${x.column}" (json values have no equality)`)
      continue
    }
    outputs.push({ id: x.as, type: aggregateType(fn, type) })
    if (pos === undefined) {
      aggExprs.push(() => 'count(*)')
      continue
    }
    used.add(pos)
    if (fn === 'median') {
      medians.add(pos)
      // the middle value, or the mean of the two middle ones, of the non-null values in order
      aggExprs.push((ref) => `avg(CASE WHEN w.r${pos} IN ((w.n${pos} + 1) / 2, (w.n${pos} + 2) / 2) THEN ${ref(pos)} END)`)
    } else {
      const sqlFn = fn === 'count_distinct' ? 'count' : fn
      const distinct = fn === 'count_distinct' ? 'DISTINCT ' : ''
      aggExprs.push((ref) => `${sqlFn}(${distinct}${ref(pos)})`)
    }
  }

  // output columns and order
  const index = new Map(outputs.map((o, i) => [o.id, i]))
  const names = outputs.map((o) => o.id).join(', ')
  let visible = outputs.map((_, i) => i)
  if (spec.fields) {
    visible = []
    for (const f of spec.fields) {
      const i = index.get(f)
      if (i === undefined) err('fields', `invalid value "${f}": with group_by or aggregates, fields are the output columns (${names})`)
      else visible.push(i)
    }
  }
  const order: string[] = []
  const sorted = new Set<number>()
  for (const clause of spec.sort === undefined ? [] : sortClauses(spec.sort)) {
    const { name, dir, nulls } = parseSortClause(clause)
    const i = index.get(name)
    if (i === undefined) {
      err('sort', `invalid value "${clause.trim()}": with group_by or aggregates, sort by the output columns (${names})`)
      continue
    }
    // PostgreSQL: NULLs sort as larger than every value
    order.push(`g.c${i} ${dir} NULLS ${nulls ?? (dir === 'ASC' ? 'LAST' : 'FIRST')}`)
    sorted.add(i)
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)
  // then the group keys, so that pages over groups are stable
  a.groupBy.forEach((_, i) => sorted.has(i) || order.push(`g.c${i} ASC NULLS LAST`))

  // filters and full text exactly as datastore_search applies them
  const base = planSearch(t, { ...spec, fields: undefined, sort: undefined, distinct: false })
  const group = keyExprs.length ? ` GROUP BY ${keyExprs.join(', ')}` : ''
  const col = (pos: number) => `t.${quoteIdent(t.columns[pos]!.id)}`
  let grouped: string
  if (!medians.size) {
    const select = [...keyExprs, ...aggExprs.map((f) => f(col))].map((e, i) => `${e} AS c${i}`)
    grouped = `SELECT ${select.join(', ')}${base.from}${group}`
  } else {
    // median: a window numbers each group's values in order as the rows stream past (one read of
    // the table, one sort), and the outer GROUP BY picks the middle ones beside the other aggregates
    const partition = keyExprs.length ? `PARTITION BY ${keyExprs.join(', ')} ` : ''
    const inner = [
      ...keyExprs.map((e, i) => `${e} AS k${i}`),
      ...[...used].map((p) => `${col(p)} AS v${p}`),
      ...[...medians].flatMap((p) => [
        `row_number() OVER (${partition}ORDER BY ${col(p)} NULLS LAST) AS r${p}`,
        `count(${col(p)}) OVER (${partition.trimEnd()}) AS n${p}`,
      ]),
    ]
    const keys = keyExprs.map((_, i) => `w.k${i}`)
    const select = [...keys, ...aggExprs.map((f) => f((p) => `w.v${p}`))].map((e, i) => `${e} AS c${i}`)
    grouped =
      `SELECT ${select.join(', ')} FROM (SELECT ${inner.join(', ')}${base.from}) w` +
      (keys.length ? ` GROUP BY ${keys.join(', ')}` : '')
  }
  // no more groups than one past the limit are made: enough to know the limit is passed
  const limited = `${grouped} LIMIT ?`
  const args = [...base.countArgs, maxGroups + 1]
  const cols = visible.map((i) => `g.c${i}`)
  return {
    outputs,
    visible,
    sql:
      `SELECT ${[...cols, 'count(*) OVER ()'].join(', ')} FROM (${limited}) g` +
      (order.length ? ` ORDER BY ${order.join(', ')}` : '') +
      ' LIMIT ? OFFSET ?',
    args: [...args, spec.limit, spec.offset],
    countSql: `SELECT count(*) FROM (${limited})`,
    countArgs: args,
  }
}

// ---------------------------------------------------------------- running

function decoderOf(type: ColumnType, msInTimestamp?: boolean): Decoder {
  const d = msInTimestamp && type.kind === 'timestamp' && !type.array ? timestampMsOut : makeDecoder(type)
  return (v) => (v === null || v === undefined ? null : d(v))
}

export interface AggregateOutcome {
  fields: OutField[]
  rows: unknown[][]
  /** The number of groups (1 without group_by). */
  total: number
}

/**
 * Runs an aggregation where datastore_search runs its slow searches: on the time-limited SQL
 * runner when the reader has one (Node's interruptible pool, an abortable request to a libSQL
 * server), stopped at `timeoutMs` with "Search took too long"; more than `maxGroups` groups is a
 * Validation Error.
 */
export async function aggregateTable(
  db: DatastoreReader,
  t: DsTable,
  spec: SearchSpec,
  a: Aggregation,
  opts: { maxGroups: number; timeoutMs?: number; msInTimestamp?: boolean },
): Promise<AggregateOutcome> {
  const plan = planAggregate(t, spec, a, opts.maxGroups)
  const runner = opts.timeoutMs !== undefined ? db.sql : undefined
  const deadline = Date.now() + (opts.timeoutMs ?? 0)
  const query = async (sql: string, args: InValue[], maxRows: number): Promise<DsResult> => {
    try {
      if (!runner) return await db.query(sql, args)
      const r = await runner.run(sql, { args, timeoutMs: Math.max(1, deadline - Date.now()), maxRows })
      return { columns: r.columns.map((c) => c.name), rows: r.rows }
    } catch (e) {
      if (e instanceof SqlTimeout) throw ValidationError.field('query', 'Search took too long')
      throw invalidQuery(sqliteMessage(e), sql, args)
    }
  }
  const page = await query(plan.sql, plan.args, Math.max(1, spec.limit))
  const n = plan.visible.length
  let groups = page.rows.length ? Number(page.rows[0]![n]) : undefined
  // a page past the last group (or of no rows) does not say how many there are
  groups ??= Number((await query(plan.countSql, plan.countArgs, 1)).rows[0]?.[0] ?? 0)
  if (groups > opts.maxGroups)
    throw ValidationError.field(
      'group_by',
      `This query makes more than ${opts.maxGroups} groups, the limit of service.datastore.aggregate.max_groups: ` +
        'filter the rows first, group by fewer columns or use a coarser bucket',
    )
  const outputs = plan.visible.map((i) => plan.outputs[i]!)
  const dec = outputs.map((o) => decoderOf(o.type, opts.msInTimestamp))
  return {
    fields: outputs.map((o) => (o.info ? { id: o.id, type: o.type.name, info: o.info } : { id: o.id, type: o.type.name })),
    rows: page.rows.map((r) => dec.map((d, i) => d(r[i]))),
    total: groups,
  }
}
