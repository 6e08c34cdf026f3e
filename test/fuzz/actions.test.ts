// Property-based fuzzing of every registered action: data dicts derived from its zod schema and
// its documented parameters, aimed at real fixture objects, plus hostile mutations, as anonymous,
// a user and a sysadmin. Never a 5xx, always CKAN's envelope (or the bare 400 string) without
// stack or SQLite text, and a refused write leaves both databases byte-for-byte unchanged.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registry, type AnyAction } from '../../src/actions/index'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { fromZod, keysOf } from './from-zod'
import { mutation, hostileText, type Dict } from './hostile'
import { documentedParams, fixturesStand, makeFixtures, valuesFor, type Pool } from './fixtures'
import { changed, fingerprint, type Exclusions, type Query } from './fingerprint'

// FUZZ_RUNS (cases per action, each as anonymous, a user or a sysadmin; default 10) and FUZZ_SEED: `npm run fuzz` runs longer.
const RUNS = Number(process.env.FUZZ_RUNS ?? 10)
const SEED = Number(process.env.FUZZ_SEED ?? 20261124)

/**
 * What may change in the catalogue database even when a write is refused (nothing else may):
 * - search_snapshot: the search index's snapshot, written by a background timer after enough
 *   re-indexed datasets (src/search/service.ts scheduleSnapshot), not by the request at hand;
 * - api_token.last_access: the user caller authenticates with an API token, and every request
 *   it authenticates records when the token was last used (at most once a minute,
 *   src/model/api-token.ts), whatever the answer.
 */
const CATALOGUE_EXCLUSIONS: Exclusions = {
  search_snapshot: '*',
  api_token: ['last_access'],
}
/**
 * Catalogue tables written outside the change log by design (no cacheable read shows them, see
 * src/http/http-cache.ts): the job queue, the failed sign-in counts, and the time of a user's last
 * notification e-mail. Every other table an accepted write changes must come with a log row
 * (model/write-batcher.ts logged()), or the ETags of reads holding it would not move.
 */
const UNLOGGED = new Set(['job', 'login_failure', 'dashboard'])
/** The DataStore database: nothing may change on a refused write. */
const DATASTORE_EXCLUSIONS: Exclusions = {}

type Who = 'anonymous' | 'user' | 'sysadmin'
const WHO: Who[] = ['anonymous', 'user', 'sysadmin']

let t: TestEnv
let sys: Caller
let callers: Record<Who, Caller | null>
let pool: Pool

const catalogue: Query = async (sql) => {
  const rs = await t.client.execute(sql)
  return { columns: rs.columns, rows: rs.rows.map((r) => rs.columns.map((_, i) => r[i])) }
}
const datastore: Query = (sql) => t.deps.datastore!.query(sql)

/** Both databases' fingerprints, by database and table. */
const fingerprints = async () => ({
  catalogue: await fingerprint(catalogue, CATALOGUE_EXCLUSIONS),
  datastore: await fingerprint(datastore, DATASTORE_EXCLUSIONS),
})

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  const user = await t.make.user()
  // the user calls with an API token (CKAN's usual credential), the sysadmin with an API key
  const { token } = await t.ok('api_token_create', { user: user.name, name: 'fuzz caller' }, user)
  callers = { anonymous: null, user: { apikey: token }, sysadmin: sys }
  pool = await makeFixtures(t, sys)
  // get_site_user makes the site user on its first call (as CKAN does): made here, every later
  // call is a pure read
  await t.ok('get_site_user', {}, sys)
})

afterAll(() => {
  if (!process.env.FUZZ_STATS) return
  for (const [name, s] of [...stats].sort()) console.log(`${name}: ${JSON.stringify(s)}`)
})

/** Answers by action and error type (FUZZ_STATS=1 prints them: how deep the cases get). */
const stats = new Map<string, Record<string, number>>()
const count = (action: string, kind: string) => {
  const s = stats.get(action) ?? {}
  s[kind] = (s[kind] ?? 0) + 1
  stats.set(action, s)
}

/** Parameter names CKAN actions commonly take, besides those an action's schema declares. */
const COMMON = ['id', 'name', 'q', 'query', 'limit', 'offset', 'rows', 'start', 'sort', 'fq',
  'resource_id', 'package_id', 'user', 'user_id', 'filters', 'fields', 'records', 'type',
  'capacity', 'role', 'object', 'subject', 'include_private', 'all_fields', '__proto__',
  'constructor']

/** Any JSON value, hostile leaves included: the generic branch and the fallback of fromZod. */
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

/**
 * The data dicts of an action: valid-looking ones from its schema and documented parameters
 * (4 in 9), those with one to three hostile mutations (4 in 9), and arbitrary ones (1 in 9).
 */
function dictsOf(action: AnyAction): fc.Arbitrary<Dict> {
  const documented = documentedParams(action.help)
  const forKey = valuesFor(action.name, () => pool, documented, value)
  const declared = keysOf(action.params)
  // documented parameters the schema does not declare (its params may be a bare record): the
  // required ones and up to three optional ones, so that many dicts are valid as a whole
  const required: Record<string, fc.Arbitrary<unknown>> = {}
  const optional: string[] = []
  for (const [k, d] of documented) {
    if (declared.includes(k)) continue
    if (d.optional) optional.push(k)
    else required[k] = forKey(k)
  }
  const extra = fc
    .tuple(fc.record(required), fc.subarray(optional, { maxLength: Math.min(3, optional.length) }))
    .chain(([req, opt]) =>
      fc.record(Object.fromEntries(opt.map((k) => [k, forKey(k)]))).map((o) => ({ ...req, ...o })),
    )
  const fromSchema = declared.length
    ? fromZod(action.params, { forKey, fallback: value })
    : fc.constant({})
  const valid = fc.tuple(extra, fromSchema).map(([a, b]) => ({ ...a, ...(b as Dict) }))
  const keys = [...new Set([...declared, ...documented.keys(), ...COMMON])]
  const mutated = fc
    .tuple(valid, fc.array(mutation(value, keys), { minLength: 1, maxLength: 3 }))
    .map(([d, ms]) => ms.reduce((acc, m) => m(acc), d))
  const generic = fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), value, {
    maxKeys: 6,
  })
  return fc.oneof(
    { arbitrary: valid, weight: 4 },
    { arbitrary: mutated, weight: 4 },
    { arbitrary: generic, weight: 1 },
  )
}

const actions = [...registry.values()]

describe('every action under arbitrary input', () => {
  it(`covers all ${actions.length} registered actions, ${RUNS} cases each`, () => {
    expect(actions.length).toBeGreaterThan(150)
    console.log(`fuzz: ${actions.length} actions × ${RUNS} cases (seed ${SEED})`)
  })

  it('sees a write in either database in the fingerprints', async () => {
    const before = await fingerprints()
    await t.ok('package_patch', { id: pool.dataset[0], notes: 'fingerprinted' }, sys)
    await t.ok('datastore_upsert', { resource_id: pool.table[0], force: true, records: [{ a: 1, b: 'uno' }] }, sys)
    const after = await fingerprints()
    expect(changed(before.catalogue, after.catalogue)).toEqual(
      expect.arrayContaining(['package', 'change_log', 'change_log (count, max seq)']),
    )
    // the table itself, its full-text index's shadow tables and the registry's row of it
    expect(changed(before.datastore, after.datastore)).toEqual(expect.arrayContaining([pool.table[0]]))
  })

  for (const action of actions) {
    it(`${action.name}: never 5xx, always the envelope, a refused write changes nothing`, async () => {
      // a fuzzed delete or purge of an earlier action may have removed a fixture: make new ones
      if (!(await fixturesStand(t, sys, pool))) pool = await makeFixtures(t, sys)
      await fc.assert(
        fc.asyncProperty(dictsOf(action), fc.constantFrom(...WHO), async (input, who) => {
          const body = JSON.stringify(input)
          const what = `${action.name} as ${who} with ${body.length > 400 ? body.slice(0, 400) + '…' : body}`
          const before = action.readOnly ? undefined : await fingerprints()
          const headBefore = action.readOnly ? await catalogue('SELECT max(seq) FROM change_log') : undefined
          const as = callers[who]
          const res = await t.app.request(`/api/3/action/${action.name}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(as ? { authorization: as.apikey } : {}) },
            body,
          })
          const text = await res.text()
          const answer = `${what}\n→ ${res.status} ${text.slice(0, 400)}`
          expect(res.status, answer).toBeLessThan(500)
          expect(text, answer).not.toMatch(/at .*\.[jt]s:\d+|SQLITE_|sqlite3?_|no such (table|column)/i)
          const parsed = JSON.parse(text) as unknown
          if (typeof parsed === 'string') {
            // CKAN's bare 400: a JSON string, for a body it cannot read at all
            expect(res.status, answer).toBe(400)
            count(action.name, 'bare 400')
            return
          }
          const env = parsed as {
            help?: unknown
            success?: unknown
            error?: { __type?: unknown; message?: unknown }
          }
          count(action.name, env.success ? 'ok' : `${env.error?.__type}: ${String(env.error?.message).slice(0, 40)}`)
          expect(typeof env.success, answer).toBe('boolean')
          expect(typeof env.help, answer).toBe('string')
          if (env.success) {
            expect(res.status, answer).toBe(200)
          } else {
            expect(res.status, answer).toBeGreaterThanOrEqual(400)
            expect(typeof env.error?.__type, answer).toBe('string')
          }
          if (before && !env.success) {
            const after = await fingerprints()
            const diff = [
              ...changed(before.catalogue, after.catalogue).map((k) => `catalogue ${k}`),
              ...changed(before.datastore, after.datastore).map((k) => `datastore ${k}`),
            ]
            expect(diff, `refused write changed the database: ${answer}`).toEqual([])
          }
          if (before && env.success) {
            const moved = changed(before.catalogue, (await fingerprints()).catalogue)
            const unlogged = moved.filter((k) => !k.startsWith('change_log') && !UNLOGGED.has(k))
            if (unlogged.length)
              expect(moved, `an accepted write changed ${unlogged.join(', ')} without a change-log row: ${answer}`).toContain('change_log (count, max seq)')
          }
          if (headBefore) {
            const headAfter = await catalogue('SELECT max(seq) FROM change_log')
            expect(headAfter.rows, `a read-only action wrote the change log: ${answer}`).toEqual(
              headBefore.rows,
            )
          }
        }),
        { numRuns: RUNS, seed: SEED },
      )
    }, 120_000)
  }
})
