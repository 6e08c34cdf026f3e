// The schema actions of ckanext-scheming, for the registry.
import type { Action } from '../action'
import { schemingDatasetSchemaList } from './scheming_dataset_schema_list'
import { schemingDatasetSchemaShow } from './scheming_dataset_schema_show'
import { schemingGroupSchemaList } from './scheming_group_schema_list'
import { schemingGroupSchemaShow } from './scheming_group_schema_show'
import { schemingOrganizationSchemaList } from './scheming_organization_schema_list'
import { schemingOrganizationSchemaShow } from './scheming_organization_schema_show'

export const actions: Action<any, any>[] = [
  schemingDatasetSchemaList,
  schemingDatasetSchemaShow,
  schemingOrganizationSchemaList,
  schemingOrganizationSchemaShow,
  schemingGroupSchemaList,
  schemingGroupSchemaShow,
]
