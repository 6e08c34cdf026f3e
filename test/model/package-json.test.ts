// Stored package_show dicts (model/package-json.ts): every stored row agrees with the dict
// assembled from the rows after random edits of what dicts embed; reads use them and store what
// they had to assemble, never a dict older than a change it missed.
import { describe, expect, it } from 'vitest'
import { systemContext } from '../../src/context'
import { unpackText } from '../../src/lib/packed-text'
import { asciiJson } from '../../src/lib/json'
import { buildPackageDicts } from '../../src/model/package'
import { dictFingerprint, readStoredDicts, writeDictRefills } from '../../src/model/package-json'
import { setup, type TestEnv } from '../helpers/setup'

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

async function storedTexts(t: TestEnv): Promise<Map<string, { fp: string; text: string }>> {
  const rows = await t.deps.read('SELECT package_id, fp, dict FROM package_json')
  return new Map(rows.map((r) => [String(r.package_id), { fp: String(r.fp), text: unpackText(r.dict)! }]))
}

/** Compares every stored dict with the one assembled from the rows now; returns how many. */
async function checkStored(t: TestEnv, step: string): Promise<number> {
  const stored = await storedTexts(t)
  const ctx = systemContext(t.deps)
  const { dicts } = await buildPackageDicts(ctx, [...stored.keys()])
  const fp = dictFingerprint(ctx)
  for (const [id, s] of stored) {
    expect(s.fp, step).toBe(fp)
    const now = dicts.get(id)
    expect(now, `${step}: ${id} stored but gone`).toBeDefined()
    if (s.text !== asciiJson(now)) expect(JSON.parse(s.text), `${step}: ${id}`).toEqual(now)
  }
  return stored.size
}

describe('stored package_show dicts', () => {
  it('agree with the assembled dicts after random organization, group, vocabulary, tag, license and resource edits', async () => {
    const t = await setup()
    // a second process on the same file: its reads miss its own cache and go to the stored rows
    const other = await setup({}, { file: t.file })
    const sys = await t.make.sysadmin()
    const rnd = prng(36)
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!
    const orgs = [await t.make.organization(sys), await t.make.organization(sys), await t.make.organization(sys)]
    const groups = [await t.make.group(sys), await t.make.group(sys), await t.make.group(sys)]
    const vocab = await t.ok('vocabulary_create', { name: 'colours', tags: [{ name: 'red' }, { name: 'green' }, { name: 'blue' }] }, sys)
    const licenses = ['cc-by', 'odc-odbl', 'notspecified', 'other-open', 'cc-zero']
    const datasets: { id: string; name: string }[] = []
    for (let i = 0; i < 8; i++)
      datasets.push(
        await t.make.dataset(sys, {
          owner_org: pick(orgs).id,
          groups: [{ id: pick(groups).id }],
          tags: [{ name: `free${i % 3}` }, { name: 'red', vocabulary_id: vocab.id }],
          license_id: pick(licenses),
          extras: [{ key: 'k', value: String(i) }],
          resources: [{ url: 'http://example.com/a.csv', name: 'a' }],
        }),
      )
    let compared = await checkStored(t, 'created')
    expect(compared).toBe(8) // every create stored its dict
    const steps: [string, () => Promise<unknown>][] = [
      ['organization title', () => t.ok('organization_patch', { id: pick(orgs).id, title: `Org ${rnd()}` }, sys)],
      ['organization image', () => t.ok('organization_patch', { id: pick(orgs).id, image_url: `http://img.example/${rnd()}.png` }, sys)],
      ['group title', () => t.ok('group_patch', { id: pick(groups).id, title: `Group ${rnd()}`, description: String(rnd()) }, sys)],
      ['member add', () => t.ok('member_create', { id: pick(groups).id, object: pick(datasets).id, object_type: 'package', capacity: 'public' }, sys)],
      ['member remove', () => t.call('member_delete', { id: pick(groups).id, object: pick(datasets).id, object_type: 'package' }, sys)],
      ['owner org', () => t.ok('package_owner_org_update', { id: pick(datasets).id, organization_id: pick(orgs).id }, sys)],
      ['vocabulary tags', () => t.ok('vocabulary_update', { id: vocab.id, tags: ['red', 'green', 'blue', 'teal'].filter(() => rnd() < 0.6).map((name) => ({ name })) }, sys)],
      ['vocabulary tag on a dataset', () => t.call('package_patch', { id: pick(datasets).id, tags: [{ name: 'free1' }, { name: pick(['red', 'green', 'blue']), vocabulary_id: vocab.id }] }, sys)],
      ['free tag deleted', () => t.call('tag_delete', { id: pick(['free0', 'free1', 'free2']) }, sys)],
      ['free tags', () => t.ok('package_patch', { id: pick(datasets).id, tags: [{ name: pick(['free0', 'free1', 'free2']) }] }, sys)],
      ['license', () => t.ok('package_patch', { id: pick(datasets).id, license_id: pick(licenses) }, sys)],
      ['resource added', () => t.ok('resource_create', { package_id: pick(datasets).id, url: `http://example.com/${rnd()}.csv` }, sys)],
      ['datastore table', async () => {
        const d = await t.ok('package_show', { id: pick(datasets).id })
        const r = d.resources[0]
        if (r) await t.call('datastore_create', { resource_id: r.id, force: true, fields: [{ id: 'x', type: 'int' }], records: [{ x: 1 }] }, sys)
      }],
      ['datastore table deleted', async () => {
        const d = await t.ok('package_show', { id: pick(datasets).id })
        const r = d.resources[0]
        if (r) await t.call('datastore_delete', { resource_id: r.id, force: true }, sys)
      }],
      ['relationship', () => t.call('package_relationship_create', { subject: pick(datasets).id, object: pick(datasets).id, type: 'links_to' }, sys)],
      ['group deleted and made again', async () => {
        const g = pick(groups)
        await t.ok('group_delete', { id: g.id }, sys)
        groups[groups.indexOf(g)] = await t.make.group(sys)
      }],
      // reads through the other process: misses assembled there and offered back to the database
      ['read elsewhere', async () => {
        for (const d of datasets) await other.ok('package_show', { id: d.id })
        await writeDictRefills(other.deps)
      }],
      ['search elsewhere', async () => {
        other.deps.caches.packages.clear()
        await other.ok('package_search', { q: '*:*', rows: 20 })
        await writeDictRefills(other.deps)
      }],
    ]
    const kinds = new Set<string>()
    for (let i = 0; i < 140; i++) {
      const [name, run] = pick(steps)
      kinds.add(name)
      await run()
      compared += await checkStored(t, `step ${i} (${name})`)
    }
    expect(kinds.size).toBe(steps.length)
    // the check looked at stored dicts all along, not at an empty table
    expect(compared).toBeGreaterThan(300)
    // and what the other process answers is what this one assembles
    other.deps.caches.packages.clear()
    for (const d of datasets) {
      const shown = await other.ok('package_show', { id: d.id })
      const { dicts } = await buildPackageDicts(systemContext(t.deps), [d.id])
      expect(shown).toEqual(JSON.parse(JSON.stringify(dicts.get(d.id))))
    }
  }, 120_000)

  it('a miss in the cache is one read of the stored row; a dict assembled by a read is stored for the next', async () => {
    const t = await setup()
    const sys = await t.make.sysadmin()
    const ds = await t.make.dataset(sys, { resources: [{ url: 'http://example.com/x.csv' }], tags: [{ name: 'one' }] })
    const other = await setup({}, { file: t.file })
    const sql: string[] = []
    const read = other.deps.read
    const counted = Object.assign((s: string, a?: never[]) => (sql.push(s), read(s, a)), {
      many: read.many && ((stmts: { sql: string }[]) => (sql.push(...stmts.map((x) => x.sql)), read.many!(stmts as never))),
    })
    other.deps.read = counted as typeof read
    const shown = await other.ok('package_show', { id: ds.id })
    expect(shown.resources[0].url).toBe('http://example.com/x.csv')
    expect(sql.filter((s) => /FROM package_json/.test(s))).toHaveLength(1)
    expect(sql.filter((s) => /FROM resource\b/.test(s))).toHaveLength(0) // nothing assembled
    // without its row, the dict is assembled, and stored after
    await t.client.execute({ sql: 'DELETE FROM package_json WHERE package_id = ?', args: [ds.id] })
    other.deps.caches.packages.clear()
    sql.length = 0
    expect(await other.ok('package_show', { id: ds.id })).toEqual(shown)
    expect(sql.filter((s) => /FROM resource\b/.test(s)).length).toBeGreaterThan(0)
    expect(other.deps.dictRefills!.size).toBe(1)
    expect(await writeDictRefills(other.deps)).toBe(1)
    expect((await storedTexts(t)).has(ds.id)).toBe(true)
  })

  it('a dict assembled before a change to what it embeds is not stored after it', async () => {
    const t = await setup()
    const sys = await t.make.sysadmin()
    const org = await t.make.organization(sys, { title: 'Before' })
    const ds = await t.make.dataset(sys, { owner_org: org.id })
    const other = await setup({}, { file: t.file })
    await t.client.execute('DELETE FROM package_json')
    await other.ok('package_show', { id: ds.id }) // assembled with "Before", queued
    expect(other.deps.dictRefills!.size).toBe(1)
    await t.ok('organization_patch', { id: org.id, title: 'After' }, sys)
    await writeDictRefills(other.deps)
    expect((await storedTexts(t)).has(ds.id)).toBe(false)
    // the same for the dataset's own change
    await other.deps.changes.catchUp()
    other.deps.caches.packages.clear()
    await other.ok('package_show', { id: ds.id })
    await t.ok('package_patch', { id: ds.id, notes: 'changed' }, sys)
    await writeDictRefills(other.deps)
    // the patch stored its own dict; the older one offered by the read did not replace it
    const row = (await storedTexts(t)).get(ds.id)
    expect(JSON.parse(row!.text).notes).toBe('changed')
    // and a write that began before an organization change stores nothing
    const ctx = { ...systemContext(t.deps), user: null }
    const { storeDictStatement } = await import('../../src/model/package-json')
    const stmt = storeDictStatement({ ...ctx, seenSeq: 0 }, ds.id, '{"id":"stale"}')!
    await t.client.execute(stmt)
    expect(JSON.parse((await storedTexts(t)).get(ds.id)!.text).notes).toBe('changed')
  })

  it('rows made under another site URL or schema set are not used', async () => {
    const t = await setup()
    const sys = await t.make.sysadmin()
    const ds = await t.make.dataset(sys)
    const ctx = systemContext(t.deps)
    expect((await readStoredDicts(ctx, [ds.id])).size).toBe(1)
    const elsewhere = await setup({ 'service.site_url': 'http://elsewhere.example' }, { file: t.file })
    const ctx2 = systemContext(elsewhere.deps)
    expect(dictFingerprint(ctx2)).not.toBe(dictFingerprint(ctx))
    expect((await readStoredDicts(ctx2, [ds.id])).size).toBe(0)
  })
})
