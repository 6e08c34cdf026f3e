// The site-level actions, for the registry.
import type { Action } from '../action'
import { helpShow } from './help_show'
import { licenseList } from './license_list'
import { siteRead } from './site_read'
import { statusShow } from './status_show'

export const actions: Action<any, any>[] = [siteRead, statusShow, licenseList, helpShow]
