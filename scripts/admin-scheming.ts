// npm run admin -- scheming check|push: the scheming.* files of the environment's options, loaded
// as the server loads them. `check` says whether they load; `push` stores them in the catalogue
// database for Workers isolates (which read no files), as `npm start` does when it starts.
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { nodeScheming } from '../src/runtime/node-schemas'
import { SchemaError } from '../src/scheming/registry'
import { storeSchemingSnapshot } from '../src/scheming/store'

export const schemingUsage = 'usage: npm run admin -- scheming check|push'

export async function schemingCommand(args: string[]): Promise<number> {
  const verb = args[0]
  if (verb !== 'check' && verb !== 'push') {
    console.error(schemingUsage)
    return 2
  }
  const config = loadConfig(process.env)
  let loaded
  try {
    loaded = await nodeScheming(config)
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e
    console.error(`Metadata schema error: ${e.message}`)
    return 1
  }
  const reg = loaded.schemas
  const types = reg ? [...reg.datasets.keys(), ...[...reg.organizations.keys()].map((t) => `${t} (organization)`), ...[...reg.groups.keys()].map((t) => `${t} (group)`)] : []
  console.log(types.length ? `Schemas load: ${types.join(', ')}.` : 'No scheming.* schema option is set: CKAN\'s core schemas apply.')
  if (verb === 'check') return 0
  const { db, client } = await openCatalogDb(process.env.DATABASE_URL ?? 'file:./data/catalogue.db', process.env.DATABASE_AUTH_TOKEN)
  try {
    const changed = await storeSchemingSnapshot(buildDeps(config, db), loaded.snapshot)
    console.log(changed ? 'Stored: Workers isolates use these schemas from their next change-log catch-up.' : 'The database already holds these schemas.')
    return 0
  } finally {
    client.close()
  }
}
