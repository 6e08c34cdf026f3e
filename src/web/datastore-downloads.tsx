/** @jsxImportSource hono/jsx */
// The downloads of a resource's DataStore table: one plain link per /datastore/dump format.
import type { Translate } from './i18n'

/** [format parameter, media type, label]; format names are not translated. */
const FORMATS = [
  ['csv', 'text/csv', 'CSV'],
  ['tsv', 'text/tab-separated-values', 'TSV'],
  ['json', 'application/json', 'JSON'],
  ['xml', 'text/xml', 'XML'],
  ['parquet', 'application/vnd.apache.parquet', 'Parquet'],
  ['jsonl', 'application/x-ndjson', 'JSON Lines'],
] as const

/** The whole table in each format (the dumps ignore the preview's filter and sort). */
export function DatastoreDownloads({ id, t }: { id: string; t: Translate }) {
  const base = `/datastore/dump/${encodeURIComponent(id)}?format=`
  return (
    <nav aria-labelledby="datastore-downloads">
      <h3 id="datastore-downloads">{t('dataset.download')}</h3>
      <ul class="tags">
        {FORMATS.map(([format, type, label]) => (
          <li>
            <a href={base + format} type={type}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
}
