// Which CKAN version's Action API the site speaks where versions differ (service.api_compat).
import type { Config } from './load'

export type ApiVersion = '2.9' | '2.10' | '2.11'

const ORDER: readonly ApiVersion[] = ['2.9', '2.10', '2.11']

/** The configured version; loadConfig has already refused any value outside ORDER. */
export function apiCompat(config: Config): ApiVersion {
  const v = config.str('service.api_compat') as ApiVersion
  return ORDER.includes(v) ? v : '2.9'
}

/** Whether the site speaks `version` or a later one: `apiAtLeast(ctx.config, '2.11')`. */
export function apiAtLeast(config: Config, version: Exclude<ApiVersion, '2.9'>): boolean {
  return ORDER.indexOf(apiCompat(config)) >= ORDER.indexOf(version)
}

/** The shortest password accepted: the option if set, else CKAN 2.9's 4 or 2.10's 8. */
export function passwordMinLength(config: Config): number {
  const set = config.raw('service.auth.password_min_length')
  return set === null ? (apiAtLeast(config, '2.10') ? 8 : 4) : Number(set)
}
