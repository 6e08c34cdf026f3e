// The action registry: unique names, help text, one file per action, and GET only for seed reads.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { registry, type AliasAction, type AnyAction } from '../../src/actions/index'

const ACTIONS_DIR = join(__dirname, '../../src/actions')
const GROUPS = readdirSync(ACTIONS_DIR).filter((d) => statSync(join(ACTIONS_DIR, d)).isDirectory())

const isAlias = (a: AnyAction): a is AliasAction => typeof (a as AliasAction).aliasOf === 'string'

/** The read actions (GET allowed) of seed 000 §4.1, copied from the requirements. */
const SEED_READ_ACTIONS = [
  'site_read',
  'package_list',
  'current_package_list_with_resources',
  'member_list',
  'group_list',
  'organization_list',
  'group_list_authz',
  'organization_list_for_user',
  'license_list',
  'tag_list',
  'user_list',
  'package_relationships_list',
  'package_show',
  'resource_show',
  'resource_view_show',
  'resource_view_list',
  'group_show',
  'organization_show',
  'group_package_show',
  'tag_show',
  'user_show',
  'package_autocomplete',
  'format_autocomplete',
  'user_autocomplete',
  'group_autocomplete',
  'organization_autocomplete',
  'package_search',
  'resource_search',
  'tag_search',
  'tag_autocomplete',
  'task_status_show',
  'term_translation_show',
  'get_site_user',
  'status_show',
  'vocabulary_list',
  'vocabulary_show',
  'user_activity_list',
  'package_activity_list',
  'group_activity_list',
  'organization_activity_list',
  'recently_changed_packages_activity_list',
  'dashboard_activity_list',
  'dashboard_new_activities_count',
  'activity_show',
  'activity_data_show',
  'activity_diff',
  'user_follower_count',
  'dataset_follower_count',
  'group_follower_count',
  'organization_follower_count',
  'user_follower_list',
  'dataset_follower_list',
  'group_follower_list',
  'organization_follower_list',
  'am_following_user',
  'am_following_dataset',
  'am_following_group',
  'followee_count',
  'user_followee_count',
  'dataset_followee_count',
  'group_followee_count',
  'followee_list',
  'user_followee_list',
  'dataset_followee_list',
  'group_followee_list',
  'organization_followee_list',
  'member_roles_list',
  'help_show',
  'config_option_show',
  'config_option_list',
  'job_list',
  'job_show',
  // seed 001 (DataStore): these are also readable with GET
  'datastore_search',
  'datastore_search_sql',
  'datastore_info',
  // beyond the seeds: CKAN 2.9 lets every get.py action be called with GET
  'api_token_list',
  'package_collaborator_list',
  'package_collaborator_list_for_user',
]

describe('registry', () => {
  const all = [...registry.values()]
  const real = all.filter((a) => !isAlias(a))

  it('registers every action under its own name', () => {
    for (const [key, action] of registry) expect(action.name).toBe(key)
    expect(real.length).toBeGreaterThan(0)
  })

  it('has no duplicate names across the group index files', async () => {
    const names: string[] = []
    for (const g of GROUPS) {
      const file = join(ACTIONS_DIR, g, 'index.ts')
      if (!existsSync(file)) continue
      const mod = (await import(file)) as { actions: AnyAction[] }
      names.push(...mod.actions.map((a) => a.name))
    }
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
    expect(new Set(names)).toEqual(new Set(real.map((a) => a.name)))
  })

  it('gives every action a non-empty help text', () => {
    const missing = all
      .filter((a) => typeof a.help !== 'string' || a.help.trim() === '')
      .map((a) => a.name)
    expect(missing).toEqual([])
  })

  it('keeps each action in src/actions/<group>/<name>.ts declaring that name', () => {
    const problems: string[] = []
    for (const a of real) {
      const homes = GROUPS.filter((g) => existsSync(join(ACTIONS_DIR, g, `${a.name}.ts`)))
      if (homes.length !== 1) {
        problems.push(`${a.name}: found in ${homes.length} groups`)
        continue
      }
      const src = readFileSync(join(ACTIONS_DIR, homes[0]!, `${a.name}.ts`), 'utf8')
      if (!src.includes(`name: '${a.name}'`)) problems.push(`${a.name}: file does not declare it`)
    }
    expect(problems).toEqual([])
  })

  it('points every alias at a registered action', () => {
    for (const a of all.filter(isAlias)) {
      expect(a.name.startsWith('dataset_'), a.name).toBe(true)
      expect(registry.has(a.aliasOf), a.name).toBe(true)
      expect(a.readOnly).toBe(registry.get(a.aliasOf)!.readOnly)
    }
  })

  it('allows GET only for the read actions of the requirements', () => {
    // and this catalogue's own read actions beyond CKAN's (issue 19), and the read actions of the
    // extensions built in, as they declare them: ckanext-scheming's are side_effect_free, and so are
    // ckanext-dcat's (dcat_dataset_show is POST only there), and ckanext-harvest's getters
    const seed = new Set([
      ...SEED_READ_ACTIONS,
      'changes_list',
      // table versions (issue 34)
      'datastore_versions_list',
      'datastore_diff',
      // webhooks (issue 35): the reads of one's own webhooks
      'webhook_list',
      'webhook_show',
      'webhook_deliveries_list',
      // CKAN 2.10's additions to get.py (issue 31), readable with GET there too
      'organization_followee_count',
      'dcat_catalog_show',
      'dcat_catalog_search',
      ...['dataset', 'organization', 'group'].flatMap((k) => [`scheming_${k}_schema_list`, `scheming_${k}_schema_show`]),
      // ckanext-harvest's side_effect_free actions
      ...['harvest_source_show', 'harvest_source_show_status', 'harvest_source_list', 'harvest_job_show'],
      ...['harvest_job_report', 'harvest_job_list', 'harvest_object_show', 'harvest_object_list'],
      ...['harvest_log_list', 'harvesters_info_show'],
    ])
    const extra = all
      .filter((a) => a.readOnly)
      .filter((a) => !seed.has(a.name) && !(isAlias(a) && seed.has(a.aliasOf)))
      .map((a) => a.name)
    expect(extra).toEqual([])
  })

  it('keeps the write actions of this catalogue out of GET', () => {
    for (const name of [
      'tag_create',
      'tag_delete',
      'vocabulary_create',
      'vocabulary_update',
      'vocabulary_delete',
      'config_option_update',
    ])
      expect(registry.get(name)?.readOnly, name).toBe(false)
  })
})
