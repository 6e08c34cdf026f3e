// Node: the loader's ports: XLSX through exceljs' streaming WorkbookReader (first worksheet
// only), DNS lookups for the SSRF guard, and SHA-256 for the file hash check.
import { createHash } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import type { LoaderPorts, SheetCell } from '../jobs/loader/ports'

/** A cell's value as the loader takes it: formulas by their result, rich text as plain text. */
function cellValue(v: unknown): SheetCell {
  if (v === null || v === undefined) return null
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date) return v
  const o = v as { result?: unknown; richText?: { text: string }[]; text?: unknown; error?: unknown }
  if ('result' in o) return cellValue(o.result)
  if (o.richText) return o.richText.map((r) => r.text).join('')
  if (o.text !== undefined) return cellValue(o.text)
  if (o.error !== undefined) return null
  return String(v)
}

async function* firstSheetRows(body: ReadableStream<Uint8Array>): AsyncGenerator<SheetCell[]> {
  // loaded on the first spreadsheet: exceljs costs a process ~20 MB of memory (6.6 MB of heap)
  const { default: ExcelJS } = await import('exceljs')
  const input = Readable.fromWeb(body as unknown as NodeWebStream<Uint8Array>)
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache', // date cells are numbers with a date style: the styles tell them apart
    hyperlinks: 'ignore',
    entries: 'ignore',
  })
  // exceljs 4.4 race (exceljs#3064): a workbook whose xl/workbook.xml is stored last (as exceljs
  // itself writes them) may have its worksheets parsed before that entry, and `this.model.sheets`
  // then throws (~3 % of reads of a two-sheet exceljs file on Node 20). With an empty model the
  // worksheets parse without their names, which the loader does not use.
  ;(reader as unknown as { model?: object }).model ??= {}
  try {
    for await (const sheet of reader) {
      // empty rows are not emitted, as blank lines of a CSV are skipped
      for await (const row of sheet) {
        const values = row.values as unknown[]
        yield values.slice(1).map(cellValue)
      }
      return // the first worksheet only
    }
  } finally {
    input.destroy()
  }
}

export function nodeLoaderPorts(): LoaderPorts {
  return {
    spreadsheets: { firstSheetRows },
    resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
    sha256: () => {
      const hash = createHash('sha256')
      return { update: (chunk) => void hash.update(chunk), hex: async () => hash.digest('hex') }
    },
  }
}
