// `npm run admin -- backup DIR [--keep N]` and `npm run admin -- restore BACKUP`: online backups of
// a catalogue on files and restores into an empty data directory (src/runtime/node-backup.ts,
// docs/backups-and-upgrades.md).
import { loadConfig } from '../src/config/load'
import { datastoreUrl } from '../src/runtime/node-datastore'
import { backup, BackupRefused, restore, type BackupSources, type DataPaths, type RemoteDb } from '../src/runtime/node-backup'

export const backupUsage = `usage: npm run admin -- backup DIR [--keep N]
       npm run admin -- restore BACKUP_DIR`

const fileOf = (url: string) => (url.startsWith('file:') ? url.slice(5).split('?')[0]! : null)

/**
 * What `npm start` would open with this environment: each database a file or a libSQL server
 * (streamed by backup), and the uploads directory.
 */
export function backupSources(env: Record<string, string | undefined>): BackupSources {
  const config = loadConfig(env)
  const url = env.DATABASE_URL ?? 'file:./data/catalogue.db'
  const remote = (u: string, authToken?: string): RemoteDb => ({ url: u, ...(authToken ? { authToken } : {}) })
  const explicitDs = env.DATASTORE_URL ?? (config.str('service.datastore.write_url') || undefined)
  const ds = fileOf(url) || explicitDs ? datastoreUrl(explicitDs, url) : undefined
  return {
    catalogue: fileOf(url) ?? remote(url, env.DATABASE_AUTH_TOKEN),
    ...(ds ? { datastore: fileOf(ds) ?? remote(ds, env.DATASTORE_AUTH_TOKEN) } : {}),
    storage: config.str('service.storage_path'),
  }
}

/** The data directory's files as `npm start` would open them, or why they are not files. */
export function dataPaths(env: Record<string, string | undefined>): DataPaths | string {
  const s = backupSources(env)
  if (typeof s.catalogue !== 'string')
    return `DATABASE_URL is not a file (${s.catalogue.url}): restore writes database files; load the restored catalogue.db into your libSQL server with its own import (docs/backups-and-upgrades.md)`
  return { catalogue: s.catalogue, datastore: typeof s.datastore === 'string' ? s.datastore : undefined, storage: s.storage }
}

/** Runs the command; resolves to the process's exit code. */
export async function backupCommand(verb: 'backup' | 'restore', args: string[], env = process.env): Promise<number> {
  const at = args.indexOf('--keep')
  const keepArg = at >= 0 ? args.splice(at, 2)[1] : undefined
  const keep = keepArg === undefined ? undefined : Number(keepArg)
  const [dir, ...rest] = args
  if (!dir || rest.length || (at >= 0 && !(Number.isInteger(keep) && keep! >= 1)) || (verb === 'restore' && at >= 0)) {
    console.error(backupUsage)
    return 2
  }
  try {
    if (verb === 'backup') {
      const t = performance.now()
      const { path, manifest } = await backup(backupSources(env), dir, { keep })
      const mb = (n: number) => (n / 1e6).toFixed(1)
      console.log(
        `Backup ${path}: catalogue ${mb(manifest.catalogue.bytes)} MB (change log at ${manifest.changeLogSeq}, migration level ${manifest.migrations.applied})` +
          (manifest.datastore ? `, DataStore ${mb(manifest.datastore.bytes)} MB` : '') +
          `, ${manifest.files.count} uploaded files (${mb(manifest.files.bytes)} MB), in ${((performance.now() - t) / 1000).toFixed(1)} s`,
      )
    } else {
      const paths = dataPaths(env)
      if (typeof paths === 'string') {
        console.error(paths)
        return 1
      }
      const manifest = await restore(dir, paths)
      console.log(
        `Restored the backup of ${manifest.created} (change log at ${manifest.changeLogSeq}) into ${paths.catalogue}` +
          (manifest.datastore ? `, ${paths.datastore}` : '') +
          ` and ${manifest.files.count} files into ${paths.storage}. Start the server: npm start`,
      )
    }
    return 0
  } catch (e) {
    console.error(e instanceof BackupRefused ? e.message : `${verb} failed: ${(e as Error).message}`)
    return 1
  }
}
