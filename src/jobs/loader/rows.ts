// A file's rows as text cells, streamed: CSV/TSV through csv-parse, XLSX through the runtime's
// spreadsheet reader (first worksheet only).
import { parse } from 'csv-parse/stream'
import type { Deps } from '../../context'
import { detectDialect } from './dialect'
import { LoadError } from './errors'
import type { SheetCell } from './ports'
import { detectEncoding, sampleStream, sampleText, utf8Stream } from './text'

export type Cells = (string | null)[]
export type FileKind = 'csv' | 'tsv' | 'xlsx'

export async function* csvRows(
  body: ReadableStream<Uint8Array>,
  kind: 'csv' | 'tsv',
): AsyncGenerator<Cells> {
  const { sample, body: all } = await sampleStream(body)
  const { encoding, bom } = detectEncoding(sample)
  const dialect = detectDialect(sampleText(sample, encoding, bom), kind)
  const records = utf8Stream(all, encoding, bom).pipeThrough(
    parse({
      delimiter: dialect.delimiter,
      quote: dialect.quote,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    }) as TransformStream<Uint8Array, string[]>,
  )
  const reader = records.getReader()
  try {
    for (;;) {
      let r: ReadableStreamReadResult<string[]>
      try {
        r = await reader.read()
      } catch (e) {
        if (e instanceof LoadError) throw e
        throw new LoadError(`The file could not be parsed as CSV: ${(e as Error).message}`)
      }
      if (r.done) return
      yield r.value
    }
  } finally {
    reader.releaseLock()
    await records.cancel().catch(() => {})
  }
}

/** A spreadsheet cell as text the type guess reads: dates as ISO timestamps, numbers in full. */
function cellText(c: SheetCell): string | null {
  if (c === null || c === undefined) return null
  if (c instanceof Date) {
    if (Number.isNaN(c.getTime())) return null
    const iso = c.toISOString()
    return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23)
  }
  return String(c)
}

export async function* sheetRows(deps: Deps, body: ReadableStream<Uint8Array>): AsyncGenerator<Cells> {
  const reader = deps.loader?.spreadsheets
  if (!reader) {
    await body.cancel()
    throw new LoadError('XLSX is not supported on Workers')
  }
  for await (const row of reader.firstSheetRows(body)) yield row.map(cellText)
}

export function fileRows(deps: Deps, body: ReadableStream<Uint8Array>, kind: FileKind) {
  return kind === 'xlsx' ? sheetRows(deps, body) : csvRows(body, kind)
}
