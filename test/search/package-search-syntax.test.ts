// package_search end to end: every query construct of search.md §3.1 (dismax) and §3.2 (Lucene),
// the frequently used filter forms and English analysis, each asserting the exact set of names.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: Caller & { id: string }
let u1: Caller & { id: string }
const ids: Record<string, string> = {}

// The visible (active, public) datasets; private-stats is private, draft-plan a draft, deleted-river deleted.
const RIVER = 'river-levels'
const FLOOD = 'flood-warnings'
const WQ = 'water-quality'
const AIR = 'air-quality'
const CAFE = 'cafe-inspections'
const WIFI = 'wifi-hotspots'
const B20 = 'budget-2020'
const B21 = 'budget-2021'
const WAR = 'war-and-peace'
const OLD = 'old-archive'
const RECENT = 'recent-survey'
const PRIV = 'private-stats'
const DRAFT = 'draft-plan'
const VISIBLE = [RIVER, FLOOD, WQ, AIR, CAFE, WIFI, B20, B21, WAR, OLD, RECENT]
const but = (...out: string[]) => VISIBLE.filter((n) => !out.includes(n))

/** CKAN's timestamp format: naive UTC with microseconds. */
const ckanTime = (ms: number) => new Date(ms).toISOString().slice(0, 23) + '000'

beforeAll(async () => {
  t = await setup({ 'service.extra_resource_fields': 'language' })
  sys = await t.make.sysadmin()
  u1 = await t.make.user()
  const water = await t.ok('organization_create', { name: 'water-auth', title: 'Water Authority' }, sys)
  const city = await t.ok('organization_create', { name: 'city-council', title: 'City Council' }, sys)
  ids.water = water.id
  ids.city = city.id
  await t.ok('group_create', { name: 'environment', title: 'Environment' }, sys)
  await t.ok('group_create', { name: 'health', title: 'Public Health' }, sys)
  const vocab = await t.ok(
    'vocabulary_create',
    { name: 'country', tags: [{ name: 'uk' }, { name: 'fr' }, { name: 'de' }] },
    sys,
  )
  const tags = (...names: string[]) => names.map((name) => ({ name }))
  const country = (...names: string[]) => names.map((name) => ({ name, vocabulary_id: vocab.id }))
  const ds = async (as: Caller, fields: Record<string, unknown>) => {
    const d = await t.ok('package_create', fields, as)
    ids[d.name] = d.id
    return d
  }

  // Created first, at fixed instants in the past (the clock is restored right after).
  const realNow = t.deps.now
  t.deps.now = () => '2019-06-15T10:00:00.123456'
  await ds(sys, {
    name: OLD,
    title: 'Old Archive',
    notes: 'Historic annual budget of the council',
    tags: tags('history'),
  })
  t.deps.now = () => ckanTime(Date.now() - 30 * 3600_000)
  await ds(u1, {
    name: RECENT,
    title: 'Recent Survey',
    notes: 'Household survey responses',
    tags: tags('survey'),
    license_id: 'cc-by',
    resources: [{ name: 'Responses', format: 'CSV' }],
  })
  t.deps.now = realNow

  await ds(sys, {
    name: RIVER,
    title: 'River Levels',
    notes: 'Daily river level readings from gauges. Floods recorded.',
    author: 'Jane Hydro',
    version: '1.0',
    tags: tags('water', 'hydrology'),
    owner_org: water.id,
    groups: [{ name: 'environment' }],
    license_id: 'cc-by',
    resources: [
      { name: 'Gauge data', description: 'Readings per gauge', format: 'CSV', url: 'http://example.com/gauges.csv' },
      { name: 'Gauge list', format: 'JSON', url: 'http://example.com/gauges.json' },
    ],
    extras: [
      { key: 'frequency', value: 'daily' },
      { key: 'code', value: 'a:b/c' },
    ],
  })
  await ds(sys, {
    name: FLOOD,
    title: 'Flood Warnings',
    notes: 'Flooding alerts issued by the agency',
    tags: tags('water', 'Emergency'),
    owner_org: water.id,
    license_id: 'odc-by',
    resources: [{ name: 'Warnings', format: 'PDF', language: 'Welsh translations' }],
    extras: [
      { key: 'frequency', value: 'hourly' },
      { key: 'expr', value: '(x+y)*[z]!' },
    ],
  })
  await ds(sys, {
    name: WQ,
    title: 'Water Quality',
    notes: 'Chemical water quality samples for rivers and lakes',
    tags: tags('water', 'quality monitoring'),
    owner_org: water.id,
    groups: [{ name: 'environment' }],
    license_id: 'cc-by',
    resources: [
      { name: 'Samples', format: 'CSV' },
      { name: 'Raw log', format: 'RawLog' },
    ],
    extras: [{ key: 'path', value: 'C:\\data' }],
  })
  await ds(sys, {
    name: AIR,
    title: 'Air Quality Index',
    notes: 'Hourly air pollution measurements in cities',
    tags: tags('air quality', 'pollution'),
    owner_org: city.id,
    groups: [{ name: 'health' }, { name: 'environment' }],
    license_id: 'cc-zero',
    resources: [
      { name: 'Hourly readings', format: 'CSV' },
      { name: 'Station readings', format: 'CSV' },
    ],
  })
  await ds(sys, {
    name: CAFE,
    title: 'Café Inspections',
    notes: 'Hygiene inspections of cafés and restaurants',
    tags: [...tags('food', 'health'), ...country('uk')],
    owner_org: city.id,
    groups: [{ name: 'health' }],
    license_id: 'other-open',
    resources: [{ name: 'Inspections', format: 'XLS' }],
  })
  await ds(u1, {
    name: WIFI,
    title: 'WiFi-Net2 Hotspots',
    notes: 'Public wireless access points',
    tags: tags('internet'),
    license_id: 'odc-odbl',
    resources: [{ name: 'Hotspot map', format: 'rawlog' }],
  })
  await ds(sys, {
    name: B20,
    title: 'Budget 2020',
    notes: 'Annual spending of the council',
    tags: [...tags('finance', 'economy'), ...country('fr')],
    owner_org: city.id,
    license_id: 'cc-by',
    resources: [{ name: 'Spending', format: 'CSV' }],
    extras: [{ key: 'year', value: '2020' }],
  })
  await ds(sys, {
    name: B21,
    title: 'Budget 2021',
    notes: 'Annual spending and revenue',
    tags: tags('finance'),
    owner_org: city.id,
    license_id: 'cc-by',
    extras: [
      { key: 'year', value: '2021' },
      { key: 'start_date', value: '2001-02-03' },
    ],
  })
  await ds(u1, {
    name: WAR,
    title: 'A Wonderful Story',
    notes: 'Tolstoy novel: war and peace',
    tags: [...tags('russian', 'tolstoy'), ...country('uk', 'de')],
    license_id: 'other-pd',
    resources: [{ name: 'Full text', format: 'TXT' }],
  })
  // Never visible to anonymous callers.
  await ds(sys, {
    name: PRIV,
    title: 'Private Statistics',
    notes: 'Internal river numbers',
    tags: tags('water'),
    owner_org: water.id,
    private: true,
    resources: [{ name: 'Numbers', format: 'CSV' }],
  })
  await ds(sys, {
    name: DRAFT,
    title: 'Draft Plan',
    notes: 'Unfinished river plan',
    tags: tags('water'),
    owner_org: water.id,
    state: 'draft',
  })
  const gone = await ds(sys, { name: 'deleted-river', title: 'Deleted River', tags: tags('water') })
  await t.ok('package_delete', { id: gone.id }, sys)
})

type Lazy = string | (() => string)
interface Case {
  label?: string
  q?: Lazy
  fq?: Lazy
  as?: 'sys'
  params?: Record<string, unknown>
  expect: string[]
}
const value = (v: Lazy | undefined) => (typeof v === 'function' ? v() : v)

async function run(c: Case): Promise<string[]> {
  const params: Record<string, unknown> = { rows: 1000, ...c.params }
  if (c.q !== undefined) params.q = value(c.q)
  if (c.fq !== undefined) params.fq = value(c.fq)
  const r = await t.call('package_search', params, c.as === 'sys' ? sys : null)
  if (r.status !== 200) throw new Error(`package_search ${JSON.stringify(params)} → ${r.status} ${JSON.stringify(r.body)}`)
  const names: string[] = r.body.result.results.map((d: { name: string }) => d.name)
  expect(r.body.result.count).toBe(names.length)
  return names.sort()
}

function table(cases: Case[]) {
  for (const c of cases) {
    const label =
      c.label ??
      [c.q !== undefined && `q=${value(c.q)}`, c.fq !== undefined && `fq=${value(c.fq)}`, c.as && `as ${c.as}`]
        .filter(Boolean)
        .join(' ')
    it(label, async () => {
      expect(await run(c)).toEqual([...c.expect].sort())
    })
  }
}

describe('package_search q without a colon (dismax, search.md §3.1)', () => {
  table([
    { q: 'river', expect: [RIVER, WQ] },
    { label: '1–2 words: both must match', q: 'water river', expect: [RIVER, WQ] },
    { label: '3–5 words: all but one must match', q: 'water flooding alerts', expect: [RIVER, FLOOD] },
    { label: '5 words: 4 must match', q: 'annual spending council revenue budget', expect: [B20, B21] },
    { label: '6 words: 80% rounded down (4) must match', q: 'annual spending council revenue budget 2021', expect: [B20, B21] },
    { label: '4 words: 3 must match', q: 'revenue annual spending council', expect: [B20, B21] },
    { label: '+word is required on top of mm', q: '+revenue annual spending council', expect: [B21] },
    { label: '-word is excluded', q: 'water -flood', expect: [WQ] },
    { label: 'mm counts only unprefixed clauses (+)', q: '+water flooding alerts', expect: [FLOOD] },
    { label: 'mm counts only unprefixed clauses (-)', q: 'water flooding alerts -tolstoy -russian -novel', expect: [RIVER, FLOOD] },
    { label: 'AND between words (operator or word, same result)', q: 'water AND river', expect: [RIVER, WQ] },
    { label: 'phrase', q: '"river level"', expect: [RIVER] },
    { label: 'word and phrase', q: 'water "river level"', expect: [RIVER] },
    { label: 'phrase keeps word order', q: '"level river"', expect: [] },
    { q: '"water quality"', expect: [WQ] },
    { q: '"water quality" samples', expect: [WQ] },
    { label: 'required phrase and prohibited word', q: '+"water quality" -lakes', expect: [] },
    { label: 'whole dataset name (name^4, exact)', q: WIFI, expect: [WIFI] },
    { label: 'a tag (tags^2, exact)', q: 'hydrology', expect: [RIVER] },
    { label: 'a group name (groups^2)', q: 'health', expect: [AIR, CAFE] },
    { label: 'empty q means all', q: '', expect: VISIBLE },
    { label: 'q="" means all', q: '""', expect: VISIBLE },
    { label: "q='' means all", q: "''", expect: VISIBLE },
  ])
})

describe('package_search English analysis end to end (search.md §4.1)', () => {
  table([
    { label: 'stemming: floods', q: 'floods', expect: [RIVER, FLOOD] },
    { label: 'stemming: flooding', q: 'flooding', expect: [RIVER, FLOOD] },
    { label: 'stemming: flood', q: 'flood', expect: [RIVER, FLOOD] },
    { label: 'stemming in Lucene mode', fq: 'text:flooding', expect: [RIVER, FLOOD] },
    { label: 'stemming on a text field', fq: 'notes:reading', expect: [RIVER] },
    { label: 'accent folding: cafe', q: 'cafe', expect: [CAFE] },
    { label: 'accent folding: café', q: 'café', expect: [CAFE] },
    { label: 'accent folding and stemming: CAFÉS', q: 'CAFÉS', expect: [CAFE] },
    { label: 'accent folding on title', fq: 'title:cafe', expect: [CAFE] },
    { label: 'word delimiter: concatenated wifi', q: 'wifi', expect: [WIFI] },
    { label: 'word delimiter: the whole WiFi-Net2', q: 'WiFi-Net2', expect: [WIFI] },
    { label: 'word delimiter: case change part wi', q: 'wi', expect: [WIFI] },
    { label: 'word delimiter: letter/digit split net2', q: 'net2', expect: [WIFI] },
    { label: 'word delimiter: net', fq: 'title:net', expect: [WIFI] },
    { label: 'plural stem hotspot', q: 'hotspot', expect: [WIFI] },
    { label: 'text is case-insensitive', q: 'RIVER', expect: [RIVER, WQ] },
    { label: 'title is case-insensitive', fq: 'title:WATER', expect: [WQ] },
    { label: 'tags are case-sensitive', fq: 'tags:Emergency', expect: [FLOOD] },
    { label: 'tags are case-sensitive (lowercase)', fq: 'tags:emergency', expect: [] },
    { label: 'res_format is case-sensitive (RawLog)', fq: 'res_format:RawLog', expect: [WQ] },
    { label: 'res_format is case-sensitive (rawlog)', fq: 'res_format:rawlog', expect: [WIFI] },
    { label: 'res_format is case-sensitive (csv)', fq: 'res_format:csv', expect: [] },
    { label: 'plain extra keys are exact', fq: 'frequency:Hourly', expect: [] },
    { label: 'extras_<key> is analysed', fq: 'extras_frequency:DAILY', expect: [RIVER] },
    { label: 'generic text (author) is lower-cased', fq: 'author:jane', expect: [RIVER] },
    { label: 'resource names are in text', q: 'gauge', expect: [RIVER] },
    { label: 'res_name field', fq: 'res_name:gauge', expect: [RIVER] },
    { label: 'urls field', fq: 'urls:example', expect: [RIVER] },
    { label: 'vocabulary tags are in text', q: 'de', expect: [WAR] },
    { label: 'res_extras_<field> (service.extra_resource_fields)', fq: 'res_extras_language:welsh', expect: [FLOOD] },
    { label: 'res_extras_<field> values are in text', q: 'translation', expect: [FLOOD] },
    { label: 'title_ngram: a substring of the title', fq: 'title_ngram:ualit', expect: [WQ, AIR] },
    { label: 'name_ngram: a substring of the name', fq: 'name_ngram:udget-20', expect: [B20, B21] },
    { label: 'ngrams stop at 10 characters', fq: 'name_ngram:river-levels', expect: [] },
    { label: 'other dict keys are exact fields', fq: 'version:1.0', expect: [RIVER] },
  ])
})

describe('package_search Lucene syntax (search.md §3.2)', () => {
  describe('terms, phrases and the default field', () => {
    table([
      { fq: '*:*', expect: VISIBLE },
      { q: '*:*', expect: VISIBLE },
      { fq: 'tags:water', expect: [RIVER, FLOOD, WQ] },
      { fq: 'res_format:CSV', expect: [RIVER, WQ, AIR, B20, RECENT] },
      { fq: `name:${RIVER}`, expect: [RIVER] },
      { fq: 'organization:water-auth', expect: [RIVER, FLOOD, WQ] },
      { fq: 'title:"water quality"', expect: [WQ] },
      { fq: 'title:quality', expect: [WQ, AIR] },
      { fq: 'tags:"air quality"', expect: [AIR] },
      { fq: 'tags:"quality monitoring"', expect: [WQ] },
      { label: 'bare term searches text', fq: 'water', expect: [RIVER, FLOOD, WQ] },
      { label: 'bare phrase searches text', fq: '"river levels"', expect: [RIVER] },
      { label: 'q with a colon is Lucene', q: 'tags:water AND res_format:JSON', expect: [RIVER] },
      { label: 'default operator is AND', q: 'tags:water river', expect: [RIVER, WQ] },
      { label: 'default operator is AND in fq', fq: 'tags:finance economy', expect: [B20] },
      { label: 'q and fq combine', q: 'tags:water', fq: 'res_format:PDF', expect: [FLOOD] },
      { label: 'unknown fields match nothing', fq: 'nosuchfield:x', expect: [] },
      { label: 'negated unknown field matches everything', fq: '-nosuchfield:x', expect: VISIBLE },
    ])
  })

  describe('boolean operators, required / prohibited, grouping', () => {
    table([
      { fq: 'tags:water AND res_format:PDF', expect: [FLOOD] },
      { fq: 'tags:water OR tags:finance', expect: [RIVER, FLOOD, WQ, B20, B21] },
      { fq: 'tags:water && res_format:JSON', expect: [RIVER] },
      { fq: 'tags:russian || tags:internet', expect: [WIFI, WAR] },
      { fq: 'NOT tags:water', expect: but(RIVER, FLOOD, WQ) },
      { fq: '!tags:water', expect: but(RIVER, FLOOD, WQ) },
      { fq: 'tags:water AND NOT res_format:CSV', expect: [FLOOD] },
      { fq: 'tags:water AND !res_format:CSV', expect: [FLOOD] },
      { fq: 'tags:water -res_format:CSV', expect: [FLOOD] },
      { fq: '+tags:water -res_format:PDF', expect: [RIVER, WQ] },
      { label: 'purely negative query: all minus', fq: '-res_format:CSV', expect: but(RIVER, WQ, AIR, B20, RECENT) },
      { label: 'purely negative, two clauses', fq: '-tags:water -tags:finance', expect: [AIR, CAFE, WIFI, WAR, OLD, RECENT] },
      { label: 'purely negative q', q: '-tags:water', expect: but(RIVER, FLOOD, WQ) },
      { fq: 'tags:(finance OR russian)', expect: [B20, B21, WAR] },
      { label: 'field:(a b) uses AND', fq: 'tags:(finance economy)', expect: [B20] },
      { fq: 'tags:(finance || russian) AND res_format:TXT', expect: [WAR] },
      { fq: '(water OR finance) AND res_format:CSV', expect: [RIVER, WQ, B20] },
      { fq: '(tags:water OR tags:finance) AND NOT (res_format:CSV OR res_format:PDF)', expect: [B21] },
      { fq: 'tags:water OR river', expect: [RIVER, FLOOD, WQ] },
      { fq: '((tags:water))', expect: [RIVER, FLOOD, WQ] },
      { fq: '+tags:water +res_format:CSV', expect: [RIVER, WQ] },
      { fq: 'tags:water NOT res_format:CSV', expect: [FLOOD] },
      { fq: 'tags:water AND -res_format:CSV', expect: [FLOOD] },
      { label: 'a prohibited clause applies to an OR query as a whole', fq: 'tags:water OR -res_format:CSV', expect: [FLOOD] },
      { fq: '*:* -tags:water', expect: but(RIVER, FLOOD, WQ) },
      { fq: 'tags:water AND NOT tags:hydrology AND NOT tags:Emergency', expect: [WQ] },
      { fq: 'title:(water OR flood)', expect: [FLOOD, WQ] },
      { fq: 'title:"quality water"', expect: [] },
      { fq: 'title:"air quality index"', expect: [AIR] },
      { label: 'phrase on stemmed words', fq: 'notes:"river level reading"', expect: [RIVER] },
      { fq: 'name:"river-levels"', expect: [RIVER] },
      { fq: 'tags:"water"', expect: [RIVER, FLOOD, WQ] },
      { q: 'name:river-levels OR name:flood-warnings', expect: [RIVER, FLOOD] },
      { fq: 'tags:water AND (res_format:CSV OR res_format:PDF)', expect: [RIVER, FLOOD, WQ] },
      { label: 'a field applies to one term only', q: 'title:water quality', expect: [WQ] },
      { label: 'a quoted phrase with a colon is Lucene on text', q: '"a:b/c"', expect: [RIVER] },
      { fq: 'text:"war and peace"', expect: [WAR] },
    ])
  })

  describe('wildcards', () => {
    table([
      { fq: 'name:budget*', expect: [B20, B21] },
      { fq: 'name:budget-202?', expect: [B20, B21] },
      { fq: 'name:*-quality', expect: [WQ, AIR] },
      { fq: 'tags:wat*', expect: [RIVER, FLOOD, WQ] },
      { label: 'a hyphen before the wildcard', fq: 'name:war-and-*', expect: [WAR] },
      { label: 'an escaped colon before the wildcard', fq: 'code:a\\:b*', expect: [RIVER] },
      { label: 'text field: matches lower-cased indexed terms', fq: 'title:rive?', expect: [RIVER] },
      { label: 'text field: matches stemmed terms', fq: 'title:wonder*', expect: [WAR] },
      { fq: 'notes:flood*', expect: [RIVER, FLOOD] },
      { label: 'field:* on an exact multi-valued field', fq: 'res_format:*', expect: but(B21, OLD) },
      { fq: '-res_format:*', expect: [B21, OLD] },
      { label: 'field:* on a plain extra key', fq: 'year:*', expect: [B20, B21] },
      { label: 'field:* on an extras_ field', fq: 'extras_year:*', expect: [B20, B21] },
      { fq: 'title:*', expect: VISIBLE },
      { fq: 'nosuchfield:*', expect: [] },
    ])
  })

  describe('ranges', () => {
    table([
      { fq: 'num_resources:[1 TO *]', expect: but(B21, OLD) },
      { fq: 'num_resources:[2 TO *]', expect: [RIVER, WQ, AIR] },
      { fq: 'num_resources:{1 TO *]', expect: [RIVER, WQ, AIR] },
      { fq: 'num_resources:[1 TO 1]', expect: [FLOOD, CAFE, WIFI, B20, WAR, RECENT] },
      { fq: 'num_resources:[* TO 0]', expect: [B21, OLD] },
      { fq: 'num_resources:2', expect: [RIVER, WQ, AIR] },
      { label: 'an extra ending in _date is a date field', fq: 'start_date:[2001-01-01T00:00:00Z TO 2001-12-31T00:00:00Z]', expect: [B21] },
      { fq: 'start_date:[2002-01-01T00:00:00Z TO *]', expect: [] },
      { fq: 'num_resources:{* TO 1}', expect: [B21, OLD] },
      { fq: `name:[${B20} TO ${B21}]`, expect: [B20, B21] },
      { label: 'quoted range bounds', fq: `name:["${B20}" TO "${B21}"]`, expect: [B20, B21] },
      { fq: `name:{${B20} TO ${B21}]`, expect: [B21] },
      { fq: `name:[${B20} TO ${B21}}`, expect: [B20] },
      { fq: 'name:[a TO c}', expect: [AIR, B20, B21] },
      { fq: 'name:[w TO *]', expect: [WQ, WIFI, WAR] },
      { fq: 'metadata_modified:[2019-01-01T00:00:00Z TO 2019-12-31T23:59:59Z]', expect: [OLD] },
      { fq: 'metadata_modified:[* TO 2020-01-01T00:00:00Z]', expect: [OLD] },
      { fq: 'metadata_created:[2020-01-01T00:00:00Z TO *]', expect: but(OLD) },
      { fq: 'metadata_modified:[2020-01-01T00:00:00Z TO NOW]', expect: but(OLD) },
      { label: 'fractional seconds (ms) with Z', fq: 'metadata_modified:[2019-06-15T10:00:00.123Z TO 2019-06-15T10:00:00.123Z]', expect: [OLD] },
      { label: 'fractional seconds (µs) with Z', fq: 'metadata_modified:[2019-06-15T10:00:00.123456Z TO 2019-06-15T10:00:00.123456Z]', expect: [OLD] },
      { label: 'exclusive bound at the exact instant', fq: 'metadata_modified:{2019-06-15T10:00:00.123Z TO *]', expect: but(OLD) },
      { fq: 'metadata_modified:[* TO 2019-06-15T10:00:00.122Z]', expect: [] },
      { label: 'a quoted instant as a term', fq: 'metadata_modified:"2019-06-15T10:00:00.123Z"', expect: [OLD] },
      { label: 'an escaped instant as a term', fq: 'metadata_created:2019-06-15T10\\:00\\:00.123Z', expect: [OLD] },
      { fq: 'metadata_created:[2019-06-15T10:00:00Z TO 2019-06-15T10:00:01Z]', expect: [OLD] },
    ])
  })

  describe('date math', () => {
    table([
      { fq: 'metadata_modified:[NOW-1DAY TO *]', expect: but(OLD, RECENT) },
      { q: 'metadata_modified:[NOW-1DAY TO *]', expect: but(OLD, RECENT) },
      { fq: 'metadata_modified:[NOW-2DAYS TO NOW]', expect: but(OLD) },
      { fq: 'metadata_modified:[NOW-7DAYS TO NOW]', expect: but(OLD) },
      { fq: 'metadata_modified:[NOW/DAY TO *]', expect: but(OLD, RECENT) },
      { fq: 'metadata_modified:[* TO NOW-1YEAR/DAY]', expect: [OLD] },
      { fq: 'metadata_created:[NOW-1DAY TO NOW+1HOUR]', expect: but(OLD, RECENT) },
      { fq: 'metadata_modified:[* TO NOW-1DAY]', expect: [OLD, RECENT] },
      { fq: 'metadata_modified:{NOW TO *]', expect: [] },
      { fq: 'metadata_modified:[NOW-1YEAR/DAY TO *]', expect: but(OLD) },
      { fq: 'metadata_modified:[NOW-2HOURS TO *]', expect: but(OLD, RECENT) },
      { fq: 'metadata_modified:[NOW-120MINUTES TO *]', expect: but(OLD, RECENT) },
      { fq: 'metadata_modified:[NOW-2DAYS/DAY TO *]', expect: but(OLD) },
      { fq: 'metadata_modified:[NOW-1MONTH TO *]', expect: but(OLD) },
      { fq: 'metadata_modified:[NOW-1DAY TO NOW+1DAY]', expect: but(OLD, RECENT) },
    ])
  })

  describe('escaping', () => {
    table([
      { label: 'escaped colon and slash', fq: 'code:a\\:b\\/c', expect: [RIVER] },
      { label: 'quoted value with a colon', fq: 'code:"a:b/c"', expect: [RIVER] },
      { label: 'escaped hyphen', fq: 'name:river\\-levels', expect: [RIVER] },
      { label: 'escaped ( + ) * [ ] !', fq: 'expr:\\(x\\+y\\)\\*\\[z\\]\\!', expect: [FLOOD] },
      { label: 'escaped colon and backslash', fq: 'path:C\\:\\\\data', expect: [WQ] },
    ])
  })

  describe('boosts, fuzzy and proximity are accepted', () => {
    table([
      { fq: 'tags:water^2', expect: [RIVER, FLOOD, WQ] },
      { fq: '(tags:water OR tags:finance)^0.5', expect: [RIVER, FLOOD, WQ, B20, B21] },
      { q: 'title:wonderful^3 AND tags:russian', expect: [WAR] },
      { fq: 'tags:tolstoy~', expect: [WAR] },
      { fq: 'tags:tolstoy~1', expect: [WAR] },
      { fq: '"war and peace"~3', expect: [WAR] },
      { label: 'proximity lets words stand apart', fq: '"war peace"~3', expect: [WAR] },
      { q: 'notes:"war and peace"~2 OR tags:internet', expect: [WIFI, WAR] },
    ])
  })
})

describe('package_search frequently used filter forms (search.md §3.2)', () => {
  table([
    { fq: 'organization:city-council', expect: [AIR, CAFE, B20, B21] },
    { label: 'owner_org:<org id>', fq: () => `owner_org:${ids.water}`, expect: [RIVER, FLOOD, WQ] },
    { label: '+owner_org:"<org id>"', fq: () => `+owner_org:"${ids.water}"`, expect: [RIVER, FLOOD, WQ] },
    { fq: 'groups:environment', expect: [RIVER, WQ, AIR] },
    { fq: 'groups:health', expect: [AIR, CAFE] },
    { fq: 'tags:finance', expect: [B20, B21] },
    { fq: '+res_format:CSV', expect: [RIVER, WQ, AIR, B20, RECENT] },
    { fq: '-res_format:PDF', expect: but(FLOOD) },
    { fq: 'license_id:cc-by', expect: [RIVER, WQ, B20, B21, RECENT] },
    { fq: 'license_title:"Creative Commons Attribution"', expect: [RIVER, WQ, B20, B21, RECENT] },
    { fq: 'isopen:true', expect: but(OLD) },
    { fq: 'isopen:false', expect: [OLD] },
    { fq: 'res_url:"http://example.com/gauges.csv"', expect: [RIVER] },
    { fq: 'capacity:public', expect: VISIBLE },
    { fq: 'capacity:private', expect: [] },
    { label: 'capacity:private for a sysadmin with include_private', fq: 'capacity:private', as: 'sys', params: { include_private: true }, expect: [PRIV] },
    { fq: 'dataset_type:dataset', expect: VISIBLE },
    { fq: 'type:dataset', expect: VISIBLE },
    { fq: `name:${WAR}`, expect: [WAR] },
    { label: 'id:<uuid>', fq: () => `id:${ids[WAR]}`, expect: [WAR] },
    { label: 'id:("a" OR "b")', fq: () => `id:("${ids[RIVER]}" OR "${ids[FLOOD]}")`, expect: [RIVER, FLOOD] },
    { label: 'creator_user_id:<id>', fq: () => `creator_user_id:${u1.id}`, expect: [WIFI, WAR, RECENT] },
    { label: '+state:draft (sysadmin)', fq: '+state:draft', as: 'sys', expect: [DRAFT] },
    { label: '+state:draft (anonymous)', fq: '+state:draft', expect: [] },
    { fq: 'extras_frequency:daily', expect: [RIVER] },
    { fq: 'frequency:hourly', expect: [FLOOD] },
    { fq: 'year:2020', expect: [B20] },
    { fq: 'vocab_country:uk', expect: [CAFE, WAR] },
    { fq: 'vocab_country:de', expect: [WAR] },
    { label: 'vocabulary tags are not free tags', fq: 'tags:uk', expect: [] },
    { fq: 'private:true', expect: [] },
    { label: 'private:true for a sysadmin with include_private', fq: 'private:true', as: 'sys', params: { include_private: true }, expect: [PRIV] },
    { fq: 'private:false', expect: VISIBLE },
    { fq: 'metadata_modified:[NOW-1DAY TO *]', expect: but(OLD, RECENT) },
    { fq: 'site_id:test.ckan.net', expect: VISIBLE },
    { fq: 'site_id:other.site', expect: [] },
    { label: 'fq_list items are AND-ed', params: { fq_list: ['tags:water', 'res_format:CSV'] }, expect: [RIVER, WQ] },
  ])
})
