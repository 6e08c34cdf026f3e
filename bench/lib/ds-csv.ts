// The DataStore benchmark's rows as a CSV file (the loader benchmark's upload), written as a stream,
// and read back with csv-parse for the raw baseline.
import { createReadStream, createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { parse } from 'csv-parse'
import { DS_FIELDS, dsBatch, type DsRecord } from './ds-rows'

const BATCH = 10_000

/** A CSV field: quoted only when it has to be (the generated words never need it). */
const field = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v)
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

export const csvHeader = () => DS_FIELDS.map((f) => f.id).join(',') + '\n'
export const csvLine = (r: DsRecord) => DS_FIELDS.map((f) => field(r[f.id])).join(',') + '\n'

/** Writes rows 0 .. n-1 (dsBatch, so the same rows as bench/datastore.ts) to `path`; its bytes. */
export async function writeDsCsv(path: string, n: number): Promise<number> {
  const out = createWriteStream(path)
  let bytes = 0
  const write = async (s: string) => {
    bytes += Buffer.byteLength(s)
    if (!out.write(s)) await once(out, 'drain')
  }
  await write(csvHeader())
  for (let from = 0; from < n; from += BATCH) {
    let chunk = ''
    for (const r of dsBatch(from, Math.min(BATCH, n - from))) chunk += csvLine(r)
    await write(chunk)
  }
  out.end()
  await once(out, 'close')
  return bytes
}

/**
 * The file's data rows as records keyed by the header's names (empty cells left out, as the
 * loader does), `size` at a time.
 */
export async function* csvRecordBatches(path: string, size: number): AsyncGenerator<Record<string, string>[]> {
  const parser = createReadStream(path).pipe(parse({ relax_column_count: true, skip_empty_lines: true }))
  let header: string[] | undefined
  let batch: Record<string, string>[] = []
  for await (const cells of parser as AsyncIterable<string[]>) {
    if (!header) {
      header = cells
      continue
    }
    const rec: Record<string, string> = {}
    for (let i = 0; i < header.length; i++) if (cells[i]) rec[header[i]!] = cells[i]!
    batch.push(rec)
    if (batch.length >= size) {
      yield batch
      batch = []
    }
  }
  if (batch.length) yield batch
}
