// What the loader needs from its runtime: a spreadsheet reader (exceljs on Node), DNS and hashing.
import type { Hasher } from './hash'

/** A cell as the loader takes it: text, a number, a date (a timestamp), a boolean or nothing. */
export type SheetCell = string | number | boolean | Date | null

export interface SpreadsheetReader {
  /** The rows of the workbook's first worksheet, in order; the other sheets are never read. */
  firstSheetRows(body: ReadableStream<Uint8Array>): AsyncIterable<SheetCell[]>
}

/** The addresses a host name resolves to (every one of them, A and AAAA). */
export type HostResolver = (host: string) => Promise<string[]>

export interface LoaderPorts {
  /** Absent (Workers): an XLSX load fails with a clear job error. */
  spreadsheets?: SpreadsheetReader
  /**
   * Absent (Workers, whose fetch cannot reach private ranges anyway): only literal addresses
   * and `localhost` are checked before fetching.
   */
  resolve?: HostResolver
  /** A new incremental SHA-256 (absent: Workers' crypto.DigestStream, if there is one). */
  sha256?: () => Hasher
}
