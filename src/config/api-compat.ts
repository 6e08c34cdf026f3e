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
