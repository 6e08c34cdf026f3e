// datastore_search output: field descriptions, the four record formats and the paging links.
import { makeCopyLine, type OutField } from './formats'
import type { OutColumn } from './query'
import type { RecordsFormat } from './search-params'

export function outFields(columns: OutColumn[]): OutField[] {
  return columns.map((c) => (c.info ? { id: c.id, type: c.type, info: c.info } : { id: c.id, type: c.type }))
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

/** start / next / prev: the request path with its query string, offset replaced (relative URLs). */
export function links(requestUrl: string | undefined, offset: number, limit: number) {
  const url = new URL(requestUrl ?? 'http://localhost/api/3/action/datastore_search')
  const params = new URLSearchParams(url.search)
  params.delete('offset')
  const at = (o?: number) => {
    const p = new URLSearchParams(params)
    if (o !== undefined) p.set('offset', String(o))
    const qs = p.toString()
    return url.pathname + (qs ? `?${qs}` : '')
  }
  const out: Record<string, string> = { start: at(), next: at(offset + limit) }
  if (offset - limit > 0) out.prev = at(offset - limit)
  return out
}
