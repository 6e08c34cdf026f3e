// The registry: every action by name, built from each group's index.ts.
import type { Action } from './action'
import { actions as activity } from './activity'
import { actions as changes } from './changes'
import { actions as config } from './config'
import { actions as dashboard } from './dashboard'
import { actions as datastore } from './datastore'
import { actions as dcat } from './dcat'
import { actions as harvest } from './harvest'
import { actions as webhook } from './webhook'
import { actions as follow } from './follow'
import { actions as group } from './group'
import { actions as job } from './job'
import { actions as member } from './member'
import { actions as organization } from './organization'
import { actions as pkg } from './package'
import { actions as rating } from './rating'
import { actions as scheming } from './scheming'
import { actions as relationship } from './relationship'
import { actions as resource } from './resource'
import { actions as resourceView } from './resource_view'
import { actions as site } from './site'
import { actions as tag } from './tag'
import { actions as taskStatus } from './task_status'
import { actions as termTranslation } from './term_translation'
import { actions as user } from './user'
import { actions as vocabulary } from './vocabulary'
import { actions as xloader } from './xloader'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAction = Action<any, any>

/** An alias: another name for an action, marked so the registry test knows it has no file. */
export type AliasAction = AnyAction & { aliasOf: string }

function build(lists: AnyAction[][]): Map<string, AnyAction> {
  const map = new Map<string, AnyAction>()
  for (const a of lists.flat()) {
    if (map.has(a.name)) throw new Error(`duplicate action name: ${a.name}`)
    map.set(a.name, a)
  }
  // Clients also send the dataset_* spelling of the package_* actions.
  for (const [name, action] of [...map]) {
    if (!name.startsWith('package_')) continue
    const alias = 'dataset_' + name.slice('package_'.length)
    if (map.has(alias)) continue
    const aliased: AliasAction = { ...action, name: alias, aliasOf: name }
    map.set(alias, aliased)
  }
  return map
}

export const registry = build([
  site, config, pkg, resource, group, organization, member, user, tag, vocabulary, datastore,
  follow, activity, dashboard,
  relationship, rating, taskStatus, termTranslation,
  resourceView, xloader,
  job, changes, scheming, dcat, harvest, webhook,
])
