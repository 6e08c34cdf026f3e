// The runtime configuration actions, for the registry.
import type { Action } from '../action'
import { configOptionList } from './config_option_list'
import { configOptionShow } from './config_option_show'
import { configOptionUpdate } from './config_option_update'

export const actions: Action<any, any>[] = [configOptionList, configOptionShow, configOptionUpdate]
