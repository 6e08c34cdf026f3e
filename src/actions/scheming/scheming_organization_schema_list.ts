// scheming_organization_schema_list: the organization types the site's schemas declare.
import { schemaListAction } from './scheming_dataset_schema_list'

export const schemingOrganizationSchemaList = schemaListAction({ kind: 'organization', name: 'scheming_organization_schema_list' })
