// Property-based fuzzing of every registered action: arbitrary and hostile data dicts never end in a 5xx.
import fc from 'fast-check'
import { z } from 'zod'
import { beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions/index'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

// FUZZ_RUNS (cases per action, each as anonymous, a user or a sysadmin; default 10) and FUZZ_SEED: `npm run fuzz` runs longer.
const RUNS = Number(process.env.FUZZ_RUNS ?? 10)
const SEED = Number(process.env.FUZZ_SEED ?? 20261124)

let t: TestEnv
let callers: (Caller | null)[]

beforeAll(async () => {
  t = await setup()
  const sys = await t.make.sysadmin()
  const user = await t.make.user()
  callers = [null, user, sys]
})

/** Parameter names CKAN actions commonly take, besides those an action's schema declares. */
const COMMON = ['id', 'name', 'q', 'query', 'limit', 'offset', 'rows', 'start', 'sort', 'fq',
  'resource_id', 'package_id', 'user', 'user_id', 'filters', 'fields', 'records', 'type',
  'capacity', 'role', 'object', 'subject', 'include_private', 'all_fields', '__proto__',
  'constructor']

const hostileText = fc.constantFrom('', ' ', '1e308', 'NaN', '-1', '10.0', 'Infinity', '%_%',
  '\u0000', '\uD800', '😀😀', 'a'.repeat(5000), '{"a":', '[[[[', 'null', 'true',
  "' OR 1=1 --", '"; DROP TABLE package; --', '../../etc/passwd', '<script>x</script>')

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string({ maxLength: 20 }),
    hostileText,
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0),
    fc.boolean(),
    fc.constant(null),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 3 }),
  ),
})).node

function keysOf(params: z.ZodType): string[] {
  const shape = (params as unknown as { shape?: Record<string, unknown> }).shape
  return shape ? Object.keys(shape) : []
}

const actions = [...registry.values()]

describe('every action under arbitrary input', () => {
  it(`covers all ${actions.length} registered actions`, () => {
    expect(actions.length).toBeGreaterThan(150)
  })

  for (const action of actions) {
    it(`${action.name} never answers 5xx`, async () => {
      const keys = [...new Set([...keysOf(action.params), ...COMMON])]
      const dict = fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), value, {
        maxKeys: 6,
      })
      await fc.assert(
        fc.asyncProperty(dict, fc.integer({ min: 0, max: 2 }), async (input, who) => {
          const as = callers[who]
          const res = await t.app.request(`/api/3/action/${action.name}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(as ? { authorization: as.apikey } : {}),
            },
            body: JSON.stringify(input),
          })
          const text = await res.text()
          expect(res.status, `${action.name} ${JSON.stringify(input).slice(0, 300)}: ${text.slice(0, 300)}`).toBeLessThan(500)
          const body = JSON.parse(text) as { success: boolean; help?: string }
          expect(typeof body.success).toBe('boolean')
          expect(text).not.toMatch(/at .*\.ts:\d+|SQLITE_|sqlite3?_/i)
        }),
        { numRuns: RUNS, seed: SEED },
      )
    }, 60_000)
  }
})
