// The OpenAPI document of a site with metadata schemas (ckanext-scheming): a component schema per
// dataset, resource, organization and group type (src/openapi/scheming.ts), and the actions that
// take or return those dicts pointing at them. A create's body is `oneOf` the types' schemas, each
// branch fixed by its `type` const: not a `discriminator`, because `type` is optional (a body
// without it gets the default type) and types without a schema may be accepted too, which a
// discriminator (a required property, a closed mapping) cannot say. Updates and shows use `anyOf`
// (the stored type applies, whether or not the body repeats it); patches list every type's fields.
import type { SchemaRegistry } from '../scheming/registry'
import {
  anyTypeVariants,
  componentName,
  createVariants,
  facetFields,
  fieldUnion,
  schemingComponents,
  typesInWords,
  typesOf,
} from './scheming'

type Json = Record<string, any>
type Kind = 'dataset' | 'organization' | 'group'

const ACTIONS: Record<Kind, { create: string; update: string; patch: string; show: string }> = {
  dataset: { create: 'package_create', update: 'package_update', patch: 'package_patch', show: 'package_show' },
  organization: { create: 'organization_create', update: 'organization_update', patch: 'organization_patch', show: 'organization_show' },
  group: { create: 'group_create', update: 'group_update', patch: 'group_patch', show: 'group_show' },
}

const code = (s: string) => `\`${s}\``

/** The operations of one action path (POST, and GET for read actions). */
const operations = (doc: Json, action: string): Json[] => {
  const item = doc.paths[`/api/3/action/${action}`]
  return item ? [item.post, item.get].filter(Boolean) : []
}

/** The request body's schema (one object shared by its media types). */
const bodyOf = (op: Json): Json | undefined => op.requestBody?.content?.['application/json']?.schema

const addNote = (op: Json, note: string) => {
  const auth = op.description.lastIndexOf('\n\n**Authorization:**')
  op.description = auth < 0 ? `${op.description}\n\n${note}` : `${op.description.slice(0, auth)}\n\n${note}${op.description.slice(auth)}`
}

/** `doc` (freshly built, not shared) with the registry's types added; returned for chaining. */
export function withSchemingTypes(doc: Json, reg: SchemaRegistry): Json {
  Object.assign(doc.components.schemas, schemingComponents(reg))
  for (const kind of ['dataset', 'organization', 'group'] as const) {
    const types = [...typesOf(reg, kind).keys()]
    if (!types.length) continue
    const a = ACTIONS[kind]
    const list = types.map((t) => code(componentName(kind, t))).join(', ')
    const inWords = typesInWords(reg, kind)
    const others = kind !== 'dataset' || !reg.datasetFallback
    const otherNote = others ? ` Other types have CKAN's core ${kind} fields.` : ` Other types are refused (${code('scheming.dataset_fallback')}).`
    for (const op of operations(doc, a.create)) {
      const body = bodyOf(op)
      if (body) body.oneOf = createVariants(reg, kind)
      addNote(op, `**${kind[0]!.toUpperCase()}${kind.slice(1)} types** (this site's schemas, ckanext-scheming): the body follows the schema of its ${code('type')} (default ${code(kind === 'dataset' ? 'dataset' : kind)}): ${list}. Per type: ${inWords}.${otherNote}`)
    }
    for (const op of operations(doc, a.update)) {
      const body = bodyOf(op)
      if (body) body.anyOf = anyTypeVariants(reg, kind)
      addNote(op, `**${kind[0]!.toUpperCase()}${kind.slice(1)} types**: the body follows the schema of the ${kind}'s type (${list}); per type: ${inWords}.`)
    }
    for (const op of operations(doc, a.patch)) {
      const body = bodyOf(op)
      if (body) {
        const own = body.properties ?? {}
        const union = fieldUnion(reg, kind)
        for (const k of Object.keys(own)) delete union[k]
        body.properties = { ...own, ...union }
      }
      addNote(op, `**${kind[0]!.toUpperCase()}${kind.slice(1)} types**: any field of the ${kind}'s type may be given (${list}); the others are kept.`)
    }
    for (const op of operations(doc, a.show)) {
      const result = op.responses?.['200']?.content?.['application/json']?.schema?.properties
      if (result) result.result = { description: `the ${kind}, with the fields of its type`, anyOf: anyTypeVariants(reg, kind) }
      addNote(op, `**${kind[0]!.toUpperCase()}${kind.slice(1)} types**: the ${kind}'s type's fields are top-level keys (${list}).`)
    }
    if (kind === 'dataset') {
      const withResources = types.filter((t) => doc.components.schemas[componentName('resource', t)])
      if (withResources.length)
        for (const action of ['resource_create', 'resource_update', 'resource_patch'])
          for (const op of operations(doc, action))
            addNote(op, `**Resource fields** depend on the dataset's type: ${withResources.map((t) => `${t} → ${code(componentName('resource', t))}`).join(', ')}.`)
      const facets = facetFields(reg)
      for (const op of operations(doc, 'package_search'))
        addNote(op, `**Schema fields** (ckanext-scheming) are searchable with ${code('fq')} (${code('field:value')}) and as ${code('facet.field')}${facets.length ? `; the ones with fixed choices: ${facets.map(code).join(', ')}` : ''}. ${code('fq=type:<type>')} selects a dataset type (${types.map(code).join(', ')}).`)
    }
  }
  return doc
}
