// Node: the loader's ports: XLSX through exceljs (first worksheet only; small files whole, large
// ones through its streaming WorkbookReader), DNS lookups for the SSRF guard, and SHA-256 for the
// file hash check.
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
  // a shared string exceljs could not resolve (entries lost in a file too large to read again)
  if ('sharedString' in o) throw new Error('The spreadsheet could not be read completely: load it again')
  return String(v)
}

/** Compressed bytes kept to read a workbook again when exceljs lost entries (see below). */
const REREAD_BYTES = 64 * 1024 * 1024
const READ_ATTEMPTS = 5

type Reader = { model?: { sheets?: unknown }; sharedStrings?: unknown; styles?: unknown }

/**
 * exceljs 4.4's streaming reader races (exceljs#3064): in a workbook whose worksheets are stored
 * before xl/sharedStrings.xml, xl/styles.xml and xl/workbook.xml (as exceljs itself writes them),
 * those later entries are sometimes lost, ~3 % of reads of such a file here. The worksheets were
 * then parsed without them: `model.sheets` threw, strings came out as objects, dates as numbers.
 * Which entries the archive has is in its bytes; a read that lacks one is detected when the first
 * worksheet comes (before any row is given out) and done again from the kept bytes.
 */
function lostEntries(reader: Reader, initialStyles: unknown, bytes: Buffer): boolean {
  if (!reader.model?.sheets && bytes.includes('xl/workbook.xml')) return true
  if (reader.sharedStrings === undefined && bytes.includes('xl/sharedStrings.xml')) return true
  return reader.styles === initialStyles && bytes.includes('xl/styles.xml')
}

/**
 * Files up to this size are read whole, by exceljs' non-streaming reader (through the archive's
 * central directory, which the race above cannot touch); larger ones stream.
 */
const WHOLE_BYTES = 4 * 1024 * 1024

async function* firstSheetRows(body: ReadableStream<Uint8Array>): AsyncGenerator<SheetCell[]> {
  // loaded on the first spreadsheet: exceljs costs a process ~20 MB of memory (6.6 MB of heap)
  const { default: ExcelJS } = await import('exceljs')
  const source = body.getReader()
  const head: Uint8Array[] = []
  let headBytes = 0
  for (;;) {
    const r = await source.read()
    if (r.done) {
      // a small file: the first worksheet in the workbook's order, empty rows left out
      const wb = new ExcelJS.Workbook()
      await wb.xlsx.load(Buffer.concat(head) as never)
      const sheet = wb.worksheets.find(Boolean)
      const rows: SheetCell[][] = []
      sheet?.eachRow({ includeEmpty: false }, (row) => void rows.push((row.values as unknown[]).slice(1).map(cellValue)))
      yield* rows
      return
    }
    head.push(r.value)
    headBytes += r.value.length
    if (headBytes > WHOLE_BYTES) break
  }
  // a large file streams: what was read so far, then the rest
  body = new ReadableStream<Uint8Array>({
    start(ctl) {
      for (const chunk of head) ctl.enqueue(chunk)
      head.length = 0
    },
    async pull(ctl) {
      const r = await source.read()
      if (r.done) ctl.close()
      else ctl.enqueue(r.value)
    },
    cancel: (reason) => source.cancel(reason),
  })
  // the compressed bytes as they are read, up to REREAD_BYTES (a larger file is not read again)
  const kept: Uint8Array[] = []
  let keptBytes = 0
  const teed = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        if (keptBytes >= 0) {
          keptBytes += chunk.length
          if (keptBytes > REREAD_BYTES) {
            kept.length = 0
            keptBytes = -1
          } else kept.push(chunk)
        }
        ctl.enqueue(chunk)
      },
    }),
  )
  let input = Readable.fromWeb(teed as unknown as NodeWebStream<Uint8Array>)
  for (let attempt = 1; ; attempt++) {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
      worksheets: 'emit',
      sharedStrings: 'cache',
      styles: 'cache', // date cells are numbers with a date style: the styles tell them apart
      hyperlinks: 'ignore',
      entries: 'ignore',
    })
    const r = reader as unknown as Reader
    const initialStyles = r.styles
    // with an empty model a worksheet parses even when xl/workbook.xml was lost (else it throws)
    r.model ??= {}
    let again = false
    try {
      for await (const sheet of reader) {
        // exceljs-written files: every entry was read before this first worksheet
        if (keptBytes >= 0 && attempt < READ_ATTEMPTS && lostEntries(r, initialStyles, Buffer.concat(kept))) {
          again = true
          break
        }
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
    if (!again) return
    input = Readable.from([Buffer.concat(kept)])
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
