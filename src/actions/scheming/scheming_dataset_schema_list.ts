// scheming_dataset_schema_list: the dataset types the site's schemas declare (and the factory the
// organization and group lists are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'

export type SchemaKind = 'dataset' | 'organization' | 'group'

/** The registry's map of one kind of schema (empty where the site has none). */
export const schemasOf = (ctx: ActionContext, kind: SchemaKind) => {
  const reg = ctx.schemas
  if (!reg) return new Map<string, { expanded: unknown; source: unknown }>()
  return kind === 'dataset' ? reg.datasets : kind === 'organization' ? reg.organizations : reg.groups
}

export function schemaListAction({ kind, name }: { kind: SchemaKind; name: string }) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return the ${kind} types the site's schemas declare (ckanext-scheming).

:rtype: list of strings`,
    auth: 'anyone',
    params: z.object({}).passthrough(),
    async run(ctx) {
      return [...schemasOf(ctx, kind).keys()]
    },
  })
}

export const schemingDatasetSchemaList = schemaListAction({ kind: 'dataset', name: 'scheming_dataset_schema_list' })
