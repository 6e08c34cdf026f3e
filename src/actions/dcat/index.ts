// ckanext-dcat's actions, for the registry.
import type { Action } from '../action'
import { dcatCatalogSearch } from './dcat_catalog_search'
import { dcatCatalogShow } from './dcat_catalog_show'
import { dcatDatasetShow } from './dcat_dataset_show'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const actions: Action<any, any>[] = [dcatDatasetShow, dcatCatalogShow, dcatCatalogSearch]
