// datastore_search output: field descriptions, the four record formats and the paging links.
import { makeCopyLine, type OutField } from './formats'
import type { OutColumn } from './query'
import { fieldDict } from './registry'
import type { RecordsFormat } from './search-params'

export function outFields(columns: OutColumn[]): OutField[] {
  return columns.map(fieldDict)
}

export function formatRecords(format: RecordsFormat, fields: OutField[], rows: unknown[][]): unknown {
  if (format === 'lists') return rows
  if (format === 'csv' || format === 'tsv') {
    const line = makeCopyLine(fields, format === 'csv' ? ',' : '\t')
    let s = ''
    for (const r of rows) s += line(r)
    return s
  }
  return rows.map((r) => {
    const o: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++) o[fields[i]!.id] = r[i]
    return o
  })
}

/** Python's urlencode (quote_plus): only letters, digits and `_.-~` stay as they are. */
const pyQuote = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replaceAll('%20', '+')

/**
 * start / next / prev: the request path with its query string, `offset` left out or set
 * (relative URLs). ckan: the query is read into a dict, so a repeated key keeps its first
 * position and its last value, blank values are dropped and `offset` keeps its place.
 */
export function links(requestUrl: string | undefined, offset: number, limit: number) {
  const url = new URL(requestUrl ?? 'http://localhost/api/3/action/datastore_search')
  const args = new Map<string, string>()
  for (const [k, v] of url.searchParams) if (v !== '') args.set(k, v)
  const at = (o?: number) => {
    const a = new Map(args)
    if (o === undefined) a.delete('offset')
    else a.set('offset', String(o))
    const qs = [...a].map(([k, v]) => `${pyQuote(k)}=${pyQuote(v)}`).join('&')
    return url.pathname + (qs ? `?${qs}` : '')
  }
  const out: Record<string, string> = { start: at(), next: at(offset + limit) }
  if (offset - limit > 0) out.prev = at(offset - limit)
  return out
}
