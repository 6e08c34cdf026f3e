// Which resources the loader takes: CSV, TSV and XLSX by format or mimetype (ckanext-xloader's
// list, less the formats this loader cannot read).
import type { FileKind } from './rows'

const KINDS: Record<string, FileKind> = {
  csv: 'csv',
  'text/csv': 'csv',
  'application/csv': 'csv',
  tsv: 'tsv',
  'text/tab-separated-values': 'tsv',
  xlsx: 'xlsx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
}

/** The kind of file a resource holds, from its format (first) or its mimetype; undefined: not loadable. */
export function loadableKind(res: { format?: unknown; mimetype?: unknown }): FileKind | undefined {
  for (const v of [res.format, res.mimetype]) {
    if (typeof v !== 'string' || !v.trim()) continue
    const k = KINDS[v.trim().toLowerCase().replace(/^\./, '')]
    if (k) return k
  }
  return undefined
}
