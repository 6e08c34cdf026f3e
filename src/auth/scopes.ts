// Scoped API tokens (beyond CKAN): what a token may do below its owner's rights. The scopes are
// kept with the token (api_token.plugin_extras), carried by the caller the token names, and
// checked by invoke before every action the caller asks for: the API, MCP and the pages alike.
import type { ActionContext, UserRow } from '../context'
import type { DataDict } from '../data-dict'
import { NotAuthorized, ValidationError } from '../errors'
import { findPackage } from '../model/package'
import { findGroup } from '../model/group'

/*
 * Grammar (each token holds one or more):
 *   read                           read actions only
 *   write                          read, and every write the owner may do but its account's and
 *                                  its tokens' (user_update, user_delete, api_token_revoke...)
 *   write:organization:<org>       read, and writes on that organization, its datasets, their
 *                                  resources, views and DataStore tables (<org>: name or id,
 *                                  kept as the id)
 *   datastore:write:<resource id>  read, and DataStore writes (and loads) of that resource's table
 *   admin                          everything the owner may do (as a token without scopes)
 * A token without `admin` never has sysadmin powers, whoever owns it.
 */

export type Scope =
  | { kind: 'read' }
  | { kind: 'write' }
  | { kind: 'admin' }
  | { kind: 'organization'; id: string }
  | { kind: 'datastore'; resource: string }

/** The caller a scoped token names: its owner's row (never a sysadmin) and the token's scopes. */
export type ScopedUser = UserRow & { tokenScopes?: readonly string[] }

export function parseScope(text: string): Scope | undefined {
  if (text === 'read' || text === 'write' || text === 'admin') return { kind: text }
  let m = /^write:organization:(.+)$/.exec(text)
  if (m) return { kind: 'organization', id: m[1]! }
  m = /^datastore:write:(.+)$/.exec(text)
  if (m) return { kind: 'datastore', resource: m[1]! }
  return undefined
}

export const scopeText = (s: Scope): string =>
  s.kind === 'organization' ? `write:organization:${s.id}` : s.kind === 'datastore' ? `datastore:write:${s.resource}` : s.kind

/** The scopes of `api_token_create`: a list, or text split at commas and spaces. */
export function scopeList(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[\s,]+/) : null
  if (!items || items.some((x) => typeof x !== 'string')) throw ValidationError.field('scopes', 'Must be a list of scopes')
  const out = (items as string[]).map((s) => s.trim()).filter(Boolean)
  return out.length ? [...new Set(out)] : undefined
}

/**
 * The scopes as stored: each checked against the grammar, an organization named by name or id
 * kept as its id, a resource checked to exist. Validation Error under `scopes` otherwise.
 */
export async function canonicalScopes(ctx: ActionContext, list: string[]): Promise<string[]> {
  const errors: string[] = []
  const out: string[] = []
  for (const text of list) {
    const s = parseScope(text)
    if (!s) {
      errors.push(`Unknown scope "${text}": one of read, write, admin, write:organization:<name>, datastore:write:<resource id>`)
      continue
    }
    if (s.kind === 'organization') {
      const org = await findGroup(ctx, s.id)
      if (!org || !org.is_organization || org.state !== 'active') {
        errors.push(`Organization "${s.id}" not found`)
        continue
      }
      out.push(scopeText({ kind: 'organization', id: org.id }))
    } else if (s.kind === 'datastore') {
      const [row] = await ctx.read("SELECT 1 FROM resource WHERE id = ? AND state = 'active'", [s.resource])
      if (!row) {
        errors.push(`Resource "${s.resource}" not found`)
        continue
      }
      out.push(scopeText(s))
    } else out.push(scopeText(s))
  }
  if (errors.length) throw new ValidationError({ scopes: errors })
  return [...new Set(out)]
}

/** Whether `scope` allows nothing that one of `held` does not. */
function covered(scope: Scope, held: Scope[]): boolean {
  return held.some(
    (h) =>
      h.kind === 'admin' ||
      scope.kind === 'read' ||
      (h.kind === 'write' && (scope.kind === 'organization' || scope.kind === 'datastore')) ||
      (h.kind === scope.kind && scopeText(h) === scopeText(scope)),
  )
}

/** Actions that change nothing although CKAN takes them by POST only: any scope may call them. */
const POST_READS = new Set(['xloader_status', 'datapusher_status', 'dcat_dataset_show'])

/** The account's and its tokens' writes: only `admin` (api_token_create: see checkScopes). */
const ACCOUNT = new Set(['user_update', 'user_patch', 'user_delete', 'user_generate_apikey', 'api_token_revoke'])

/** The DataStore writes a `datastore:write:<id>` scope allows on table <id>. */
const DATASTORE_WRITES = new Set([
  'datastore_create', 'datastore_upsert', 'datastore_delete', 'datastore_records_delete',
  'datastore_run_triggers', 'xloader_submit', 'datapusher_submit',
])

/** What a targeted write is about: the organization(s) it touches, and a table's resource. */
interface Target {
  orgs: (string | null)[]
  resource?: string
}

const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '')

async function datasetOrg(ctx: ActionContext, ref: unknown): Promise<string | null> {
  const pkg = text(ref) ? await findPackage(ctx, text(ref)) : undefined
  return pkg?.owner_org ?? null
}

async function resourceOrg(ctx: ActionContext, ref: unknown): Promise<{ org: string | null; id: string }> {
  const id = text(ref)
  const [row] = id ? await ctx.read('SELECT package_id FROM resource WHERE id = ?', [id]) : []
  return { org: row ? await datasetOrg(ctx, row.package_id) : null, id }
}

async function orgId(ctx: ActionContext, ref: unknown): Promise<string | null> {
  const g = text(ref) ? await findGroup(ctx, text(ref)) : undefined
  return g?.is_organization ? g.id : null
}

async function viewResource(ctx: ActionContext, ref: unknown) {
  const [row] = text(ref) ? await ctx.read('SELECT resource_id FROM resource_view WHERE id = ?', [text(ref)]) : []
  return resourceOrg(ctx, row?.resource_id)
}

/** A DataStore call's table: resource_id (or an alias of it), else the resource it creates. */
async function tableTarget(ctx: ActionContext, input: DataDict): Promise<Target> {
  const given = input.resource_id ?? input.id
  if (given === undefined && input.resource && typeof input.resource === 'object')
    return { orgs: [await datasetOrg(ctx, (input.resource as DataDict).package_id)] }
  let id = text(given)
  if (id && ctx.datastore) {
    const { rows } = await ctx.datastore.query('SELECT table_id FROM _ds_alias WHERE name = ?', [id])
    if (rows[0]) id = String(rows[0][0])
  }
  const r = await resourceOrg(ctx, id)
  return { orgs: [r.org], resource: r.id }
}

/** A dict given inside the input (package_revise's `match`, the default views' `package`/`resource`); {} otherwise. */
const inner = (input: DataDict, key: string): DataDict => {
  const v = input[key]
  return (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as DataDict
}

const dataset = (key: string) => async (ctx: ActionContext, input: DataDict): Promise<Target> => ({
  orgs: [await datasetOrg(ctx, input[key])],
})
const resource = (key: string) => async (ctx: ActionContext, input: DataDict): Promise<Target> => {
  const r = await resourceOrg(ctx, input[key])
  return { orgs: [r.org], resource: r.id }
}
const organization = (key: string) => async (ctx: ActionContext, input: DataDict): Promise<Target> => ({
  orgs: [await orgId(ctx, input[key])],
})

/**
 * The writes an organization scope can allow, each with how its target is found. Any other write
 * is allowed by `write` and `admin` only.
 */
export const TARGETED: Record<string, (ctx: ActionContext, input: DataDict) => Promise<Target>> = {
  package_create: organization('owner_org'),
  package_update: dataset('id'),
  package_patch: dataset('id'),
  package_delete: dataset('id'),
  dataset_purge: dataset('id'),
  package_revise: async (ctx, input) => {
    const match = inner(input, 'match')
    return { orgs: [await datasetOrg(ctx, match.id ?? match.name)] }
  },
  package_owner_org_update: async (ctx, input) => ({
    orgs: [await datasetOrg(ctx, input.id), await orgId(ctx, input.organization_id)],
  }),
  package_collaborator_create: dataset('id'),
  package_collaborator_delete: dataset('id'),
  package_resource_reorder: dataset('id'),
  package_relationship_create: dataset('subject'),
  package_relationship_update: dataset('subject'),
  package_relationship_delete: dataset('subject'),
  package_create_default_resource_views: async (ctx, input) => {
    const pkg = inner(input, 'package')
    return { orgs: [await datasetOrg(ctx, pkg.id ?? pkg.name)] }
  },
  resource_create: dataset('package_id'),
  resource_update: resource('id'),
  resource_patch: resource('id'),
  resource_delete: resource('id'),
  resource_create_default_resource_views: async (ctx, input) => {
    const r = await resourceOrg(ctx, inner(input, 'resource').id)
    return { orgs: [r.org], resource: r.id }
  },
  resource_view_create: resource('resource_id'),
  resource_view_update: async (ctx, input) => viewResource(ctx, input.id).then((r) => ({ orgs: [r.org] })),
  resource_view_delete: async (ctx, input) => viewResource(ctx, input.id).then((r) => ({ orgs: [r.org] })),
  resource_view_reorder: resource('id'),
  datastore_create: tableTarget,
  datastore_upsert: tableTarget,
  datastore_delete: tableTarget,
  datastore_records_delete: tableTarget,
  datastore_run_triggers: tableTarget,
  xloader_submit: resource('resource_id'),
  datapusher_submit: resource('resource_id'),
  organization_update: organization('id'),
  organization_patch: organization('id'),
  organization_delete: organization('id'),
  organization_purge: organization('id'),
  organization_member_create: organization('id'),
  organization_member_delete: organization('id'),
  member_create: organization('id'),
  member_delete: organization('id'),
  bulk_update_private: organization('org_id'),
  bulk_update_public: organization('org_id'),
  bulk_update_delete: organization('org_id'),
}

/** The scopes of the caller's token (undefined: not a scoped token). */
export const callerScopes = (ctx: ActionContext): readonly string[] | undefined =>
  (ctx.user as ScopedUser | null)?.tokenScopes

/**
 * Refuses an action the caller's token scopes do not allow (nothing for a caller without
 * scopes: a session, an API key, a token without scopes or with `admin`).
 */
export async function checkScopes(
  ctx: ActionContext,
  action: { name: string; readOnly: boolean; aliasOf?: string },
  input: DataDict,
): Promise<void> {
  const held = callerScopes(ctx)
  if (!held) return
  const name = action.aliasOf ?? action.name
  if (action.readOnly || POST_READS.has(name)) return
  const scopes = held.map(parseScope).filter((s): s is Scope => !!s)
  const refuse = (why = '') =>
    new NotAuthorized(`This API token's scopes (${held.join(', ') || 'none'}) do not allow ${name}${why}`)
  if (scopes.some((s) => s.kind === 'admin')) return
  if (name === 'api_token_create') {
    // a token may make tokens that can do no more than itself
    const wanted = scopeList(input.scopes)?.map(parseScope)
    if (!wanted || wanted.some((s) => !s || !covered(s, scopes)))
      throw refuse(': a token it makes needs scopes within its own')
    return
  }
  if (ACCOUNT.has(name)) throw refuse()
  if (scopes.some((s) => s.kind === 'write')) return
  const resolve = TARGETED[name]
  // only an organization or a table scope can allow a write, and only a targeted one
  if (!resolve || !scopes.some((s) => s.kind === 'organization' || s.kind === 'datastore')) throw refuse()
  const target = await resolve(ctx, input)
  const orgs = new Set(scopes.flatMap((s) => (s.kind === 'organization' ? [s.id] : [])))
  if (target.orgs.length && target.orgs.every((o) => o !== null && orgs.has(o))) return
  if (
    DATASTORE_WRITES.has(name) &&
    target.resource &&
    scopes.some((s) => s.kind === 'datastore' && s.resource === target.resource)
  )
    return
  throw refuse(' on this object')
}
