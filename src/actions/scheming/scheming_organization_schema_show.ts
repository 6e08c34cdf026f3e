// scheming_organization_schema_show: one organization type's schema.
import { schemaShowAction } from './scheming_dataset_schema_show'

export const schemingOrganizationSchemaShow = schemaShowAction({ kind: 'organization', name: 'scheming_organization_schema_show' })
