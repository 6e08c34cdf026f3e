// What every action declares: name, help, GET-ability, auth rule, params schema and run.
import type { z } from 'zod'
import type { Config } from '../config/load'
import type { ActionContext } from '../context'
import type { DataDict } from '../data-dict'
import type { ApiVersion } from '../config/api-compat'

export type { DataDict }

/** 'anyone' | 'logged-in' | 'sysadmin', or a check that throws NotAuthorized / NotFound. */
export type AuthRule =
  | 'anyone'
  | 'logged-in'
  | 'sysadmin'
  | ((ctx: ActionContext, input: DataDict) => Promise<void> | void)

export interface Action<P extends z.ZodType = z.ZodType, R = unknown> {
  /** CKAN action name: also the file name and registry key. */
  name: string
  /** Returned by help_show; CKAN docstring style. */
  help: string
  /** true: callable with GET and must not write (CKAN side_effect_free). */
  readOnly: boolean
  auth: AuthRule
  /**
   * Lets anonymous callers reach a function auth rule on a write action. Otherwise CKAN refuses
   * them first with "Action <name> requires an authenticated user".
   */
  allowAnonymous?: boolean
  /**
   * The CKAN version that removed the action: from that service.api_compat setting on, its name
   * answers as an unknown action (see actionNamed).
   */
  removedIn?: Exclude<ApiVersion, '2.9'>
  /** Validates before auth when true (CKAN does this for a few actions). */
  validateFirst?: boolean
  /**
   * false: the action does not exist under this configuration, and is answered as an unknown
   * action is (an action a later CKAN version removed, under that version's api_compat).
   */
  offered?: (config: Config) => boolean
  params: P
  run(ctx: ActionContext, params: z.output<P>, input: DataDict): Promise<R>
}

export const defineAction = <P extends z.ZodType, R>(action: Action<P, R>) => action
