// Odd values in every schema field (and subfield, and form-input spelling) of every fixture type:
// package_create, package_patch and resource_create answer CKAN's envelopes, never a server error.
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup } from '../helpers/setup'
import { makers } from '../helpers/make'
import { SCHEMING } from './config'

let t: Awaited<ReturnType<typeof setup>>
let admin: { apikey: string }
let fields: { type: string; names: string[] }[] = []
const RUNS = Number(process.env.FUZZ_RUNS ?? 150)

beforeAll(async () => {
  t = await setup(SCHEMING)
  admin = await makers(t).sysadmin()
  for (const type of await t.ok('scheming_dataset_schema_list')) {
    const s = await t.ok('scheming_dataset_schema_show', { type })
    const names: string[] = []
    for (const f of [...s.dataset_fields, ...s.resource_fields]) {
      names.push(f.field_name, `${f.field_name}_date`, `${f.field_name}_time`, `${f.field_name}_tz`, `${f.field_name}-en`, `${f.field_name}-0-x`)
      for (const sf of f.repeating_subfields ?? []) names.push(`${f.field_name}-1-${sf.field_name}`)
    }
    fields.push({ type, names })
  }
})

const odd = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('', ' ', 'null', '[]', '{}', '{"en": 1}', '2024-02-30', '2024-01-01T25:00', '24:61', 'Nowhere/Zone', 'a,b', '[1,2]', '{"x": [1]}'),
  fc.array(fc.dictionary(fc.constantFrom('email', 'status', 'sensors', 'station_id', 'name', 'start', 'end', 'x'), fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 }),
)

describe('schema fields under odd values', () => {
  it('never answer a server error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.dictionary(fc.nat({ max: 200 }).map(String), odd, { maxKeys: 6 }), async (which, raw) => {
        const { type, names } = fields[which % fields.length]!
        const body: Record<string, unknown> = { type, name: `fz-${Math.random().toString(36).slice(2, 10)}` }
        for (const [k, v] of Object.entries(raw)) body[names[Number(k) % names.length]!] = v
        const created = await t.call('package_create', body, admin)
        expect(created.status, JSON.stringify(created.body)).toBeLessThan(500)
        if (created.status === 200) {
          const patched = await t.call('package_patch', { ...body, id: created.body.result.id }, admin)
          expect(patched.status, JSON.stringify(patched.body)).toBeLessThan(500)
          const res = await t.call('resource_create', { ...body, package_id: created.body.result.id, url: 'http://example.org/x' }, admin)
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(500)
        }
      }),
      { numRuns: RUNS, seed: 20261127 },
    )
  }, 120_000)
})
