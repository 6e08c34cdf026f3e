// A fast-check arbitrary of valid-looking values from a zod 4 schema, by walking its definition.
import fc from 'fast-check'
import type { z } from 'zod'

/** The parts of a zod 4 definition (`schema._zod.def`) and bag this walker reads. */
interface Def {
  type: string
  shape?: Record<string, z.ZodType>
  catchall?: z.ZodType
  innerType?: z.ZodType
  element?: z.ZodType
  items?: z.ZodType[]
  options?: z.ZodType[]
  left?: z.ZodType
  keyType?: z.ZodType
  valueType?: z.ZodType
  in?: z.ZodType
  values?: unknown[]
  entries?: Record<string, unknown>
  getter?: () => z.ZodType
}

interface Bag {
  format?: string
  minimum?: number | bigint
  maximum?: number | bigint
  exclusiveMinimum?: number
  exclusiveMaximum?: number
}

const internals = (s: z.ZodType) =>
  (s as unknown as { _zod: { def: Def; bag?: Bag; optin?: 'optional' } })._zod

export interface FromZodOptions {
  /**
   * Values for a key whose schema says nothing about them (unknown, any, a transform without an
   * input schema, a custom check): the caller knows better from the key's name. `undefined`: the
   * value of an array item or of the top level.
   */
  forKey(key: string | undefined): fc.Arbitrary<unknown>
  /** Whatever this walker does not know (map, set, promise, file, ...). */
  fallback: fc.Arbitrary<unknown>
  /** Nesting below which lazy schemas and arrays stop growing (default 4). */
  maxDepth?: number
}

const num = (v: number | bigint | undefined) => (v === undefined ? undefined : Number(v))

function stringOf(bag: Bag | undefined, named: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  switch (bag?.format) {
    case 'email':
      return fc.emailAddress()
    case 'url':
      return fc.webUrl()
    case 'uuid':
    case 'guid':
      return fc.uuid()
    case 'datetime':
    case 'date':
      return fc
        .date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((d) => (bag.format === 'date' ? d.toISOString().slice(0, 10) : d.toISOString()))
  }
  const min = num(bag?.minimum) ?? 0
  const max = Math.max(min, num(bag?.maximum) ?? 40)
  return fc.oneof(named, fc.string({ minLength: min, maxLength: Math.min(max, min + 40) }))
}

function numberOf(bag: Bag | undefined, int: boolean): fc.Arbitrary<unknown> {
  const min = num(bag?.minimum) ?? num(bag?.exclusiveMinimum)
  const max = num(bag?.maximum) ?? num(bag?.exclusiveMaximum)
  if (int || bag?.format === 'safeint' || bag?.format === 'int32' || bag?.format === 'uint32') {
    return fc.integer({
      min: Math.max(min ?? -1000, -(2 ** 31)),
      max: Math.min(max ?? 1000, 2 ** 31 - 1),
    })
  }
  return fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true })
}

/**
 * An arbitrary of values the schema would likely accept: objects with their declared keys (the
 * required ones always), strings of the declared format, numbers within the declared bounds,
 * one of the literals or enum values. `key` is the name the value is given under, for `forKey`.
 */
export function fromZod(
  schema: z.ZodType,
  opts: FromZodOptions,
  key?: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  const zod = internals(schema)
  const def = zod?.def
  if (!def) return opts.fallback
  const maxDepth = opts.maxDepth ?? 4
  const inner = (s: z.ZodType | undefined, k = key) =>
    s ? fromZod(s, opts, k, depth + 1) : opts.fallback
  switch (def.type) {
    case 'string':
      return stringOf(zod.bag, opts.forKey(key))
    case 'number':
      return numberOf(zod.bag, false)
    case 'int':
      return numberOf(zod.bag, true)
    case 'bigint':
      return fc.integer()
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'undefined':
    case 'void':
      return fc.constant(undefined)
    case 'date':
      return fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
    case 'literal':
      return fc.constantFrom(...(def.values ?? [null]))
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? { x: 'x' }))
    case 'any':
    case 'unknown':
    case 'custom':
    case 'transform':
      return opts.forKey(key)
    case 'optional':
      return fc.option(inner(def.innerType), { nil: undefined, freq: 4 })
    case 'nullable':
      return fc.option(inner(def.innerType), { nil: null, freq: 4 })
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
    case 'success':
      return inner(def.innerType)
    case 'pipe':
      // a pipe's input is what the caller sends (a preprocess's is unknown: the key decides)
      return inner(def.in)
    case 'lazy':
      return depth >= maxDepth ? opts.forKey(key) : inner(def.getter?.())
    case 'array':
      return depth >= maxDepth
        ? fc.constant([])
        : fc.array(inner(def.element, undefined), { maxLength: 3 })
    case 'tuple':
      return fc.tuple(...(def.items ?? []).map((s) => inner(s, undefined)))
    case 'union':
      return fc.oneof(...(def.options ?? []).map((s) => inner(s)))
    case 'intersection':
      return inner(def.left)
    case 'record':
      return depth >= maxDepth
        ? fc.constant({})
        : fc.dictionary(
            inner(def.keyType).map((k) => (typeof k === 'string' ? k : (JSON.stringify(k) ?? 'k'))),
            inner(def.valueType, undefined),
            { maxKeys: 3 },
          )
    case 'object': {
      const shape = def.shape ?? {}
      const model: Record<string, fc.Arbitrary<unknown>> = {}
      const required: string[] = []
      for (const [k, s] of Object.entries(shape)) {
        const z = internals(s)
        // optional keys are left out rather than sent as undefined
        model[k] = fromZod(z.def.type === 'optional' ? z.def.innerType! : s, opts, k, depth + 1)
        if (z.optin !== 'optional') required.push(k)
      }
      return fc.record(model, { requiredKeys: required })
    }
    default:
      return opts.fallback
  }
}

/** The keys an object schema declares (through pipes, refinements and wrappers); none for others. */
export function keysOf(schema: z.ZodType): string[] {
  const def = internals(schema)?.def
  if (!def) return []
  if (def.type === 'object') return Object.keys(def.shape ?? {})
  if (def.type === 'pipe') return keysOf(def.in!)
  if (def.innerType) return keysOf(def.innerType)
  if (def.type === 'intersection') return keysOf(def.left!)
  return []
}
