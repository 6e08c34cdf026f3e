// scheming_group_schema_list: the group types the site's schemas declare.
import { schemaListAction } from './scheming_dataset_schema_list'

export const schemingGroupSchemaList = schemaListAction({ kind: 'group', name: 'scheming_group_schema_list' })
