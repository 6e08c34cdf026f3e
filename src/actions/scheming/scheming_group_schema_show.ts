// scheming_group_schema_show: one group type's schema.
import { schemaShowAction } from './scheming_dataset_schema_show'

export const schemingGroupSchemaShow = schemaShowAction({ kind: 'group', name: 'scheming_group_schema_show' })
