// The export directory (npm run admin -- export DIR / import DIR): a catalogue as files, format 1.
//
//   manifest.json          {"format": "ckan-edge-export", "version": 1, "created", "source",
//                           "ckan_version", "counts"}; written last: an export without it is incomplete
//   users.jsonl            a user dict a line (user_list's, e-mail included; no password)
//   organizations.jsonl    {"organization": organization_show dict with users, "activities": [...]}
//   groups.jsonl           {"group": group_show dict with users, "activities": [...]}
//   vocabularies.jsonl     a vocabulary dict a line (name, tags)
//   datasets.jsonl         {"dataset": package_show dict, "views": {resource id: [view dicts]},
//                           "activities": [activity dicts, oldest first]}
//   tables/<resource id>.json   {"fields": [{id, type, info?}], "primary_key": [...], "indexes": [[...]], "rows": N}
//   tables/<resource id>.csv    the rows: a header of the field ids, then a line a row; a null is an
//                               empty unquoted cell, an empty text "" (quoted); lists and objects as JSON
//   files/<resource id>/<file name>   an uploaded resource's file, as it is
//   schemas.json           the metadata schemas, when the site has them: {"dataset": [...],
//                          "organization": [...], "group": [...]}, each as scheming_*_schema_show
//                          gives it expanded
//
// Reading (dirSource) gives back a TransferSource, so `import DIR` is the importer of import-ckan.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parse } from 'csv-parse'
import type { Deps } from '../context'
import { localSource } from '../transfer/local-source'
import { standaloneSchema, uploadFileName, type Dict, type SourceFile, type SourceSchemas, type SourceTable, type TransferSource } from '../transfer/source'

export const EXPORT_FORMAT = 'ckan-edge-export'
export const EXPORT_VERSION = 1

export interface ExportCounts {
  users: number
  organizations: number
  groups: number
  vocabularies: number
  datasets: number
  views: number
  activities: number
  files: number
  tables: number
  rows: number
}

/** A file written a line at a time (JSON Lines, CSV), waiting when the disk is slower than the reads. */
class LineFile {
  private readonly out
  constructor(path: string) {
    this.out = createWriteStream(path)
  }
  async write(value: unknown) {
    await this.line(JSON.stringify(value))
  }
  async line(text: string) {
    if (!this.out.write(text + '\n')) await once(this.out, 'drain')
  }
  close() {
    return new Promise<void>((resolve, reject) => this.out.end((e?: Error | null) => (e ? reject(e) : resolve())))
  }
}

/** A CSV cell: null empty and unquoted, text quoted when it must be (or is empty), lists and objects as JSON. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v)
  return s === '' || /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s
}

/** Writes this catalogue into `dir` (which must be empty or new); the counts of what it holds. */
export async function exportCatalogue(
  deps: Deps,
  dir: string,
  onProgress?: (phase: string, done: number, total?: number) => void,
): Promise<ExportCounts> {
  if (existsSync(dir) && readdirSync(dir).length) throw new Error(`${dir} is not empty: export into a new or empty directory`)
  mkdirSync(join(dir, 'tables'), { recursive: true })
  mkdirSync(join(dir, 'files'), { recursive: true })
  const source = await localSource(deps)
  const counts: ExportCounts = { users: 0, organizations: 0, groups: 0, vocabularies: 0, datasets: 0, views: 0, activities: 0, files: 0, tables: 0, rows: 0 }

  const users = new LineFile(join(dir, 'users.jsonl'))
  for await (const u of source.users()) {
    const { apikey: _k, ...user } = u
    await users.write(user)
    counts.users++
    onProgress?.('users', counts.users)
  }
  await users.close()

  for (const kind of ['organization', 'group'] as const) {
    const file = new LineFile(join(dir, `${kind}s.jsonl`))
    for await (const g of kind === 'organization' ? source.organizations() : source.groups()) {
      const activities = await source.activities(kind, g.id)
      counts.activities += activities.length
      await file.write({ [kind]: g, activities })
      counts[`${kind}s`]++
      onProgress?.(`${kind}s`, counts[`${kind}s`])
    }
    await file.close()
  }

  const vocabs = new LineFile(join(dir, 'vocabularies.jsonl'))
  for await (const v of source.vocabularies()) {
    await vocabs.write(v)
    counts.vocabularies++
  }
  await vocabs.close()

  const total = await source.datasetCount()
  const datasets = new LineFile(join(dir, 'datasets.jsonl'))
  for await (const d of source.datasets()) {
    const views: Record<string, Dict[]> = {}
    for (const r of (d.resources ?? []) as Dict[]) {
      const list = await source.views(r)
      if (list.length) views[r.id] = list
      counts.views += list.length
      if (r.url_type === 'upload') {
        const file = await source.file(r)
        if (!('missing' in file)) {
          mkdirSync(join(dir, 'files', r.id), { recursive: true })
          await pipeline(Readable.fromWeb(file.body as never), createWriteStream(join(dir, 'files', r.id, uploadFileName(r))))
          counts.files++
        }
      }
      if (r.datastore_active) {
        const table = await source.table(r)
        if (table) counts.rows += await writeTable(dir, r.id, table)
        if (table) counts.tables++
      }
    }
    const activities = await source.activities('package', d.id)
    counts.activities += activities.length
    await datasets.write({ dataset: d, views, activities })
    counts.datasets++
    onProgress?.('datasets', counts.datasets, total)
  }
  await datasets.close()

  const schemas = await source.schemas()
  if (schemas) writeFileSync(join(dir, 'schemas.json'), JSON.stringify(schemas, null, 2) + '\n')
  const { ckanVersion } = await source.describe()
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify(
      { format: EXPORT_FORMAT, version: EXPORT_VERSION, created: new Date().toISOString(), source: source.label, ckan_version: ckanVersion, counts },
      null,
      2,
    ) + '\n',
  )
  return counts
}

async function writeTable(dir: string, id: string, table: SourceTable): Promise<number> {
  const out = new LineFile(join(dir, 'tables', `${id}.csv`))
  const ids = table.fields.map((f) => f.id as string)
  await out.line(ids.map(cell).join(','))
  let rows = 0
  for await (const page of table.pages()) {
    for (const r of page) await out.line(ids.map((k) => cell(r[k])).join(','))
    rows += page.length
  }
  await out.close()
  writeFileSync(
    join(dir, 'tables', `${id}.json`),
    JSON.stringify({ fields: table.fields, primary_key: table.primaryKey ?? [], indexes: table.indexes ?? [], rows }) + '\n',
  )
  return rows
}

/**
 * Writes a source's metadata schemas as files in `dir` (one a type, expanded, so no presets file
 * is needed) and returns the scheming.* options that load them.
 */
export function writeSchemaFiles(dir: string, schemas: SourceSchemas): Record<string, string> {
  mkdirSync(dir, { recursive: true })
  const options: Record<string, string> = {}
  for (const kind of ['dataset', 'organization', 'group'] as const) {
    const names = schemas[kind].map((s, i) => {
      const type = String(kind === 'dataset' ? s.dataset_type : s.group_type ?? s.organization_type ?? i)
      const path = join(dir, `${kind}-${type.replace(/[^\w.-]/g, '_')}.json`)
      writeFileSync(path, JSON.stringify(standaloneSchema(s), null, 2) + '\n')
      return path
    })
    if (names.length) options[`scheming.${kind}_schemas`] = names.join(' ')
  }
  return options
}

/** The lines of a JSON Lines file, parsed. */
async function* lines(path: string): AsyncIterable<Dict> {
  if (!existsSync(path)) return
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity })
  let n = 0
  for await (const line of rl) {
    n++
    if (!line.trim()) continue
    try {
      yield JSON.parse(line)
    } catch {
      throw new Error(`${path} line ${n} is not JSON`)
    }
  }
}

/** The value a CSV cell holds for a column of this type. */
function typed(type: string, v: string | null): unknown {
  if (v === null) return null
  if (type.startsWith('_') || type === 'json') return JSON.parse(v)
  if (type === 'bool') return v === 'true'
  return v
}

/** An export directory as a TransferSource; refuses one that is incomplete or of another format. */
export function dirSource(dir: string): TransferSource {
  const manifestPath = join(dir, 'manifest.json')
  if (!existsSync(manifestPath)) throw new Error(`${dir} has no manifest.json: not an export, or one that did not finish`)
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Dict
  if (manifest.format !== EXPORT_FORMAT) throw new Error(`${manifestPath} is not an export of this project (format ${JSON.stringify(manifest.format)})`)
  if (typeof manifest.version !== 'number' || manifest.version > EXPORT_VERSION)
    throw new Error(`${dir} is an export of format version ${manifest.version}; this code reads version ${EXPORT_VERSION} and older: upgrade it first`)
  // what belongs to the object last read (the importer asks right after reading it)
  const current = new Map<string, Dict[]>()
  const views = new Map<string, Dict[]>()
  async function* wrapped(file: string, key: string, kind: string) {
    for await (const line of lines(join(dir, file))) {
      const obj = line[key] as Dict
      current.set(`${kind}:${obj.id}`, (line.activities ?? []) as Dict[])
      if (kind === 'package') {
        views.clear()
        for (const [rid, list] of Object.entries((line.views ?? {}) as Record<string, Dict[]>)) views.set(rid, list)
      }
      yield obj
      current.delete(`${kind}:${obj.id}`)
    }
  }
  return {
    label: dir,
    describe: async () => ({ ckanVersion: manifest.ckan_version }),
    users: () => lines(join(dir, 'users.jsonl')),
    organizations: () => wrapped('organizations.jsonl', 'organization', 'organization'),
    groups: () => wrapped('groups.jsonl', 'group', 'group'),
    vocabularies: () => lines(join(dir, 'vocabularies.jsonl')),
    datasetCount: async () => Number(manifest.counts?.datasets ?? 0),
    datasets: () => wrapped('datasets.jsonl', 'dataset', 'package'),
    views: async (r) => views.get(r.id) ?? [],
    schemas: async () => (existsSync(join(dir, 'schemas.json')) ? JSON.parse(readFileSync(join(dir, 'schemas.json'), 'utf8')) : null),
    activities: async (kind, id) => current.get(`${kind}:${id}`) ?? [],
    async file(r): Promise<SourceFile | { missing: string }> {
      const path = join(dir, 'files', r.id, uploadFileName(r))
      if (!existsSync(path)) return { missing: `${path} is not in the export` }
      return { body: Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array> }
    },
    async table(r): Promise<SourceTable | null> {
      const metaPath = join(dir, 'tables', `${r.id}.json`)
      if (!existsSync(metaPath)) return null
      const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Dict
      const fields = meta.fields as Dict[]
      const types = new Map(fields.map((f) => [f.id as string, String(f.type)]))
      return {
        fields,
        primaryKey: meta.primary_key,
        indexes: meta.indexes,
        async *pages() {
          const parser = createReadStream(join(dir, 'tables', `${r.id}.csv`)).pipe(
            parse({
              columns: true,
              // an unquoted empty cell is null; a quoted one is an empty text
              cast: (value, ctx) => (ctx.header ? value : !ctx.quoting && value === '' ? null : value),
            }),
          )
          let page: Dict[] = []
          for await (const row of parser as AsyncIterable<Record<string, string | null>>) {
            const rec: Dict = {}
            for (const [k, v] of Object.entries(row)) rec[k] = typed(types.get(k) ?? 'text', v)
            page.push(rec)
            if (page.length === 5000) {
              yield page
              page = []
            }
          }
          if (page.length) yield page
        },
      }
    },
  }
}
