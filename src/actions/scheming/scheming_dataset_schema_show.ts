// scheming_dataset_schema_show: one dataset type's schema, presets merged in unless expanded is
// false (and the factory the organization and group ones are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import { reqString } from '../../validation/fields'
import { schemasOf, type SchemaKind } from './scheming_dataset_schema_list'

export function schemaShowAction({ kind, name }: { kind: SchemaKind; name: string }) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return the schema of one ${kind} type (ckanext-scheming).

:param type: the ${kind} type
:type type: string
:param expanded: merge each field's preset into it (default: True). As in ckanext-scheming, only
    a false value turns it off: the text "false" of a query string counts as true.
:type expanded: bool
:rtype: dictionary`,
    auth: 'anyone',
    params: z.object({ type: reqString, expanded: z.unknown().optional() }),
    async run(ctx, p) {
      const s = schemasOf(ctx, kind).get(p.type)
      if (!s) throw new NotFound()
      // ckan: read as given, so any non-empty string means true
      const expanded = p.expanded === undefined ? true : !!p.expanded
      return expanded ? s.expanded : s.source
    },
  })
}

export const schemingDatasetSchemaShow = schemaShowAction({ kind: 'dataset', name: 'scheming_dataset_schema_show' })
