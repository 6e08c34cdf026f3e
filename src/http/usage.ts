// Where usage figures are counted (service.tracking_enabled): the surfaces call countUse with the
// request's headers and address once they know what was used; bots (by user agent) and requests
// without a user agent are left out. Nothing waits: counts go to memory (src/model/usage.ts).
import type { Config } from '../config/load'
import type { Deps } from '../context'
import type { UsageKind, UsageTarget } from '../model/usage'

let botPattern: { source: string; re: RegExp } | null = null

/** Whether `agent` is a robot's, by service.tracking.bot_user_agents (a bad pattern: the default's words). */
export function isBot(agent: string, config: Config): boolean {
  const source = config.str('service.tracking.bot_user_agents')
  if (botPattern?.source !== source) {
    let re: RegExp
    try {
      re = new RegExp(source, 'i')
    } catch {
      re = /bot|crawl|spider|slurp/i
    }
    botPattern = { source, re }
  }
  return source !== '' && botPattern.re.test(agent)
}

/** Counts one use of `target` by this request, when the site counts and the caller is no robot. */
export function countUse(
  deps: Pick<Deps, 'config' | 'usage'>,
  headers: Pick<Headers, 'get'>,
  address: string | undefined,
  kind: UsageKind,
  target: UsageTarget,
) {
  if (!deps.usage || !deps.config.bool('service.tracking_enabled')) return
  const agent = headers.get('user-agent')
  if (!agent || isBot(agent, deps.config)) return
  // the visitor (for once-a-day counting) only where the address is known; hashed in memory only
  deps.usage.count(kind, target, address === undefined ? undefined : `${address}\n${agent}`)
}
