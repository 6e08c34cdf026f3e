// Admin CLI (like `ckan sysadmin`): npm run admin -- sysadmin add|remove|list [NAME] [--email E] [--password P]
// and npm run admin -- datastore load (scripts/admin-datastore.ts), npm run admin -- demo (scripts/demo.ts),
// npm run admin -- scheming check|push (scripts/admin-scheming.ts), npm run admin -- harvest …
// (scripts/admin-harvest.ts), npm run admin -- backup|restore (scripts/admin-backup.ts),
// npm run admin -- import-ckan|export|import (scripts/admin-transfer.ts), npm run admin -- help
import { datastoreCommand, datastoreUsage } from './admin-datastore'
import { demoCommand, demoUsage } from './demo'
import { schemingCommand, schemingUsage } from './admin-scheming'
import { harvestCommand, harvestHelp, harvestUsage } from './admin-harvest'
import { backupCommand, backupUsage } from './admin-backup'
import { transferCommand, transferHelp, transferUsage } from './admin-transfer'
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin, listSysadmins, removeSysadmin } from '../src/model/sysadmin'
import { ensureSiteUser } from '../src/model/site-user'

const args = process.argv.slice(2)
if (args[0] === 'datastore') process.exit(await datastoreCommand(args.slice(1)))
if (args[0] === 'demo') process.exit(await demoCommand(args.slice(1)))
if (args[0] === 'scheming') process.exit(await schemingCommand(args.slice(1)))
if (args[0] === 'harvest') process.exit(await harvestCommand(args.slice(1)))
if (args[0] === 'backup' || args[0] === 'restore') process.exit(await backupCommand(args[0], args.slice(1)))
if (args[0] === 'import-ckan' || args[0] === 'export' || args[0] === 'import')
  process.exit(await transferCommand(args[0], args.slice(1)))
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`)
  if (i < 0) return undefined
  const v = args[i + 1]
  args.splice(i, 2)
  return v
}
const email = flag('email')
const password = flag('password')
const [group, verb, name] = args

const usage = `usage: npm run admin -- sysadmin add NAME [--email E] [--password P]
       npm run admin -- sysadmin remove NAME
       npm run admin -- sysadmin list
${datastoreUsage.replace('usage: ', '       ')}
${demoUsage.replace('usage: ', '       ')}   (loads a sample catalogue: scripts/demo/)
${schemingUsage.replace('usage: ', '       ')}   (checks the scheming.* files; push stores them for Workers)
${harvestUsage.replace('usage: ', '       ')}
${backupUsage.replace('usage: ', '       ')}   (online backup, of files or libSQL servers; restore into an empty data directory)
${transferUsage.replace('usage: ', '       ')}
       npm run admin -- help`

if (group === 'help' || group === '--help' || group === '-h') {
  console.log(`${usage}\n\nharvest:\n${harvestHelp}\n\nmoving in:\n${transferHelp}`)
  process.exit(0)
}

if (group !== 'sysadmin' || !verb) {
  console.error(usage)
  process.exit(2)
}

const { db, client } = await openCatalogDb(
  process.env.DATABASE_URL ?? 'file:./data/catalogue.db',
  process.env.DATABASE_AUTH_TOKEN,
)
const deps = buildDeps(loadConfig(process.env), db)
await ensureSiteUser(deps)
try {
  if (verb === 'add' && name) {
    const user = await addSysadmin(deps, name, { email, password })
    console.log(`User "${user.name}" is now a sysadmin.`)
    console.log(`API key: ${user.apikey}`)
  } else if (verb === 'remove' && name) {
    console.log((await removeSysadmin(deps, name)) ? `Removed sysadmin rights from "${name}".` : `No user "${name}".`)
  } else if (verb === 'list') {
    for (const u of await listSysadmins(deps)) console.log(u.name)
  } else {
    console.error(usage)
    process.exitCode = 2
  }
} catch (e) {
  console.error((e as Error).message)
  process.exitCode = 1
} finally {
  client.close()
}
