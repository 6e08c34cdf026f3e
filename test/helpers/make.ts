// Factories that create users, organizations, groups and datasets through the actions.
import { addSysadmin } from '../../src/model/sysadmin'
import { systemContext, type Deps } from '../../src/context'
import { apiAtLeast } from '../../src/config/api-compat'
import { callAction } from '../../src/actions/call'
import type { Caller, CallResult } from './setup'

let counter = 0
/** A unique lowercase name with a prefix. */
export const uniq = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

interface Env {
  deps: Deps
  call: (name: string, params?: object, as?: Caller | null) => Promise<CallResult>
  ok: (name: string, params?: object, as?: Caller | null) => Promise<any>
}

export function makers(t: Env) {
  /**
   * What a made user calls with: its API key, or under api_compat 2.10 and later (API tokens
   * only) a token made for it.
   */
  async function credential(name: string, apikey: string | null | undefined): Promise<string> {
    if (!apiAtLeast(t.deps.config, '2.10')) return apikey!
    const ctx = { ...systemContext(t.deps), ignoreAuth: true }
    const made = await callAction<{ token: string }>(ctx, 'api_token_create', { user: name, name: 'test caller' })
    return made.token
  }
  return {
    /** A sysadmin created out of band (as the admin CLI does). */
    async sysadmin(): Promise<Caller & { id: string; name: string }> {
      const u = await addSysadmin(t.deps, uniq('sysadmin'), { password: 'password123' })
      return { id: u.id, name: u.name, apikey: await credential(u.name, u.apikey) }
    },
    /** A plain user created by a sysadmin through user_create. */
    async user(fields: Record<string, unknown> = {}): Promise<Caller & { id: string; name: string; [k: string]: unknown }> {
      const admin = await this.sysadmin()
      const name = uniq('user')
      const u = await t.ok('user_create', { name, email: `${name}@example.com`, password: 'password123', ...fields }, admin)
      return { ...u, apikey: await credential(u.name, u.apikey) }
    },
    async organization(as: Caller, fields: Record<string, unknown> = {}) {
      return t.ok('organization_create', { name: uniq('org'), title: 'An Organization', ...fields }, as)
    },
    async group(as: Caller, fields: Record<string, unknown> = {}) {
      return t.ok('group_create', { name: uniq('group'), title: 'A Group', ...fields }, as)
    },
    async dataset(as: Caller | null, fields: Record<string, unknown> = {}) {
      return t.ok('package_create', { name: uniq('dataset'), title: 'A Dataset', ...fields }, as)
    },
  }
}
