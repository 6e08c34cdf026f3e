// Writes the demo catalogue's data files (scripts/demo/files/): made-up but plausible figures for
// the fictional towns of Riverside and Northvale, the same every time (a seeded generator).
// Run again only to change them: npx tsx scripts/demo/generate.ts
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deflateSync } from 'node:zlib'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'files')
mkdirSync(dir, { recursive: true })

// mulberry32: a small seeded generator, so the files do not change from run to run
let seed = 20240601
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const between = (lo: number, hi: number) => lo + (hi - lo) * rand()
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
const round = (x: number, d = 0) => Number(x.toFixed(d))
const day = (start: string, n: number) => {
  const d = new Date(`${start}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}
const months = (from: number, to: number) => {
  const out: string[] = []
  for (let y = from; y <= to; y++) for (let m = 1; m <= 12; m++) out.push(`${y}-${String(m).padStart(2, '0')}`)
  return out
}
function csv(name: string, header: string[], rows: (string | number)[][]) {
  const cell = (v: string | number) => (typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : String(v))
  const text = [header, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n'
  writeFileSync(join(dir, name), text)
}

// ---------------------------------------------------------------- river levels (daily, 3 stations)
const stations = [
  { id: 'NV-001', name: 'Northvale Bridge', lat: 52.2143, lon: -1.4862, base: 0.92, typical: [0.4, 2.1] },
  { id: 'NV-002', name: 'Millbrook Weir', lat: 52.1987, lon: -1.4411, base: 1.35, typical: [0.8, 2.6] },
  { id: 'NV-003', name: 'Riverside Quay', lat: 52.1822, lon: -1.3967, base: 1.8, typical: [1.1, 3.4] },
]
const rain: number[] = []
for (let i = 0; i < 92; i++) rain.push(rand() < 0.35 ? between(2, 28) : between(0, 1.5))
const levels: (string | number)[][] = []
const series: number[][] = stations.map(() => [])
stations.forEach((s, k) => {
  let level = s.base
  for (let i = 0; i < 92; i++) {
    // a wet day raises the river, which then falls back towards its base level
    level += (rain[i]! / 28) * 0.55 * (1 + k * 0.2) - (level - s.base) * 0.18 + between(-0.03, 0.03)
    level = Math.max(s.base * 0.6, level)
    series[k]!.push(level)
    levels.push([s.id, s.name, day('2024-10-01', i), round(level, 2), round(rain[i]!, 1)])
  }
})
levels.sort((a, b) => String(a[2]).localeCompare(String(b[2])) || String(a[0]).localeCompare(String(b[0])))
csv('river-levels-2024-q4.csv', ['station_id', 'station_name', 'date', 'level_m', 'rainfall_mm'], levels)

// the monitoring stations as GeoJSON points
writeFileSync(
  join(dir, 'river-monitoring-stations.geojson'),
  JSON.stringify(
    {
      type: 'FeatureCollection',
      features: stations.map((s) => ({
        type: 'Feature',
        properties: {
          station_id: s.id,
          name: s.name,
          river: 'River Vale',
          typical_range_low_m: s.typical[0],
          typical_range_high_m: s.typical[1],
          opened: pick(['1978', '1985', '1996', '2004']),
        },
        geometry: { type: 'Point', coordinates: [s.lon, s.lat] },
      })),
    },
    null,
    2,
  ) + '\n',
)

// ---------------------------------------------------------------- a small chart of the river levels (PNG)
function png(width: number, height: number, palette: number[][], pixel: (x: number, y: number) => number) {
  const raw = Buffer.alloc((width + 1) * height)
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0 // filter: none
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = pixel(x, y)
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (b: Buffer) => {
    let c = 0xffffffff
    for (const byte of b) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const sum = Buffer.alloc(4)
    sum.writeUInt32BE(crc(body))
    return Buffer.concat([len, body, sum])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 3 // indexed colour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('PLTE', Buffer.from(palette.flat())),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
{
  const W = 368
  const H = 160
  const pad = 12
  const top = Math.max(...series.flat())
  const yOf = (v: number) => Math.round(H - pad - (v / (top * 1.1)) * (H - 2 * pad))
  const ys = series.map((s) => s.map(yOf))
  const colours = [1, 2, 3] // palette indices of the three stations
  const image = png(
    W,
    H,
    [
      [255, 255, 255],
      [31, 119, 180],
      [255, 127, 14],
      [44, 160, 44],
      [200, 200, 200],
      [90, 90, 90],
    ],
    (x, y) => {
      if (x === pad || y === H - pad) return 5 // axes
      const i = Math.floor(((x - pad) / (W - 2 * pad)) * 92)
      if (x > pad && i >= 0 && i < 92) {
        for (let k = 0; k < ys.length; k++) {
          const a = ys[k]![i]!
          const b = ys[k]![Math.min(91, i + 1)]!
          if (y >= Math.min(a, b) - 1 && y <= Math.max(a, b) + 1) return colours[k]!
        }
      }
      if (y % 30 === (H - pad) % 30 && x > pad) return 4 // grid
      return 0
    },
  )
  writeFileSync(join(dir, 'river-levels-chart.png'), image)
}

// ---------------------------------------------------------------- air quality (hourly, 2 sites, 1 week)
const air: (string | number)[][] = []
for (const site of ['Riverside Town Hall', 'Northvale Road (roadside)']) {
  const roadside = site.includes('roadside')
  for (let d = 0; d < 7; d++) {
    for (let h = 0; h < 24; h++) {
      const rush = h >= 7 && h <= 9 ? 1.8 : h >= 16 && h <= 18 ? 1.6 : h < 5 ? 0.5 : 1
      const weekend = d >= 5 ? 0.7 : 1
      const no2 = (roadside ? 34 : 18) * rush * weekend + between(-5, 5)
      const pm25 = (roadside ? 9 : 7) + rush * 2 + between(-2, 3)
      air.push([
        `${day('2024-11-04', d)}T${String(h).padStart(2, '0')}:00:00`,
        site,
        round(Math.max(2, no2), 1),
        round(Math.max(1, pm25), 1),
        round(Math.max(2, pm25 * between(1.4, 1.9)), 1),
      ])
    }
  }
}
csv('air-quality-hourly-2024-11.csv', ['measured_at', 'site', 'no2_ugm3', 'pm25_ugm3', 'pm10_ugm3'], air)

// ---------------------------------------------------------------- rainfall (monthly, 3 gauges)
const rainfall: (string | number)[][] = []
const wet = [1.3, 1.0, 0.9, 0.7, 0.7, 0.6, 0.6, 0.8, 0.8, 1.1, 1.3, 1.3]
for (const m of months(2022, 2024))
  for (const [g, f] of [['Northvale Hill', 1.15], ['Millbrook', 1.0], ['Riverside Airfield', 0.9]] as const)
    rainfall.push([m, g, round(62 * f * wet[Number(m.slice(5)) - 1]! * between(0.5, 1.6), 1)])
csv('rainfall-monthly-2022-2024.csv', ['month', 'gauge', 'rainfall_mm'], rainfall)

// ---------------------------------------------------------------- library loans (monthly, 5 branches)
const loans: (string | number)[][] = []
const branches = [['Central Library', 9000], ['Millbrook', 2600], ['Harbourside', 3100], ['Northvale', 1800], ['Mobile Library', 700]] as const
for (const m of months(2023, 2024)) {
  const mo = Number(m.slice(5))
  const season = mo === 8 ? 1.25 : mo === 12 ? 0.8 : 1
  for (const [b, base] of branches) {
    const books = Math.round(base * season * between(0.9, 1.1))
    const ebooks = Math.round(base * 0.28 * (1 + (Number(m.slice(0, 4)) - 2023) * 0.15) * between(0.9, 1.1))
    loans.push([m, b, books, ebooks, Math.round(books * between(1.3, 1.7))])
  }
}
csv('library-loans-monthly-2023-2024.csv', ['month', 'branch', 'book_loans', 'ebook_loans', 'visits'], loans)

// ---------------------------------------------------------------- bike counts (daily, 4 counters)
const bikes: (string | number)[][] = []
const counters = [['C01', 'Quay Street cycle lane', 820], ['C02', 'Riverside Path at Mill Lane', 540], ['C03', 'Station Road', 410], ['C04', 'Northvale Greenway', 260]] as const
for (let d = 0; d < 61; d++) {
  const date = day('2024-09-01', d)
  const dow = new Date(`${date}T00:00:00Z`).getUTCDay()
  const wetDay = rand() < 0.3
  for (const [id, name, base] of counters) {
    const leisure = id === 'C02' || id === 'C04'
    const weekend = dow === 0 || dow === 6 ? (leisure ? 1.35 : 0.55) : 1
    bikes.push([date, id, name, Math.round(base * weekend * (wetDay ? 0.6 : 1) * between(0.85, 1.15))])
  }
}
csv('bike-counts-daily-2024.csv', ['date', 'counter_id', 'counter_name', 'cyclists'], bikes)

// ---------------------------------------------------------------- bus punctuality (monthly, 6 routes)
const bus: (string | number)[][] = []
for (const m of months(2024, 2024))
  for (const route of ['1', '2', '5', '7A', '12', 'X30']) {
    const trips = Math.round(between(1800, 3600) / 10) * 10
    bus.push([m, route, trips, round(between(78, 95), 1), Math.round(trips * between(0.002, 0.012))])
  }
csv('bus-punctuality-2024.csv', ['month', 'route', 'scheduled_trips', 'on_time_pct', 'cancelled_trips'], bus)

// ---------------------------------------------------------------- street and park trees
const trees: (string | number)[][] = []
const species = ['Common lime', 'London plane', 'Silver birch', 'Field maple', 'Rowan', 'English oak', 'Wild cherry', 'Hornbeam', 'Norway maple', 'Sweet chestnut']
const sites = [['Victoria Park', 52.187, -1.41], ['Millbrook Recreation Ground', 52.199, -1.444], ['Quay Street', 52.182, -1.397], ['Northvale Common', 52.213, -1.484]] as const
for (let i = 1; i <= 180; i++) {
  const [site, lat, lon] = pick(sites)
  const planted = Math.round(between(1925, 2023))
  const age = 2024 - planted
  trees.push([`T${String(i).padStart(4, '0')}`, pick(species), site, planted, round(Math.min(32, 1.5 + age * between(0.18, 0.32)), 1), round(lat + between(-0.004, 0.004), 5), round(lon + between(-0.006, 0.006), 5), pick(['Good', 'Good', 'Good', 'Fair', 'Fair', 'Poor'])])
}
csv('trees.csv', ['tree_id', 'species', 'site', 'planted_year', 'height_m', 'latitude', 'longitude', 'condition'], trees)

// ---------------------------------------------------------------- recycling (quarterly, 5 districts)
const recycling: (string | number)[][] = []
for (const y of [2023, 2024])
  for (const q of [1, 2, 3, 4])
    for (const d of ['Central', 'Harbourside', 'Millbrook', 'Northvale', 'Westfield']) {
      const waste = Math.round(between(2100, 3900))
      const rate = between(38, 56) + (y - 2023) * 1.5
      recycling.push([`${y}-Q${q}`, d, waste, Math.round((waste * rate) / 100), round(rate, 1)])
    }
csv('recycling-quarterly-2023-2024.csv', ['quarter', 'district', 'household_waste_t', 'recycled_t', 'recycling_rate_pct'], recycling)

// ---------------------------------------------------------------- population by ward
const wards = ['Abbey', 'Castle', 'Harbourside', 'Kingsmead', 'Millbrook', 'Northvale East', 'Northvale West', 'Orchard', 'Quayside', 'St Anne\'s', 'Victoria', 'Westfield']
csv('population-by-ward-2021.csv', ['ward', 'population', 'households', 'area_km2', 'median_age'], wards.map((w) => {
  const pop = Math.round(between(6200, 11800))
  return [w, pop, Math.round(pop / between(2.1, 2.6)), round(between(1.2, 9.5), 2), round(between(33, 47), 1)]
}))

// ---------------------------------------------------------------- EV charging points
const streets = ['Quay Street', 'Station Road', 'Mill Lane', 'High Street', 'Castle Way', 'Orchard Road', 'Harbour Parade', 'Kingsmead Avenue', 'Victoria Road', 'Church Street']
const ev: (string | number)[][] = []
for (let i = 1; i <= 36; i++) {
  const kw = pick([7, 7, 7, 22, 22, 50, 150])
  ev.push([`EV${String(i).padStart(3, '0')}`, `${pick(streets)} ${pick(['car park', 'on-street', 'leisure centre', 'supermarket'])}`, kw, kw >= 50 ? 'CCS;CHAdeMO' : 'Type 2', Math.round(between(1, 4)) * 2, round(52.19 + between(-0.02, 0.025), 5), round(-1.43 + between(-0.05, 0.04), 5), pick(['2019', '2020', '2021', '2022', '2023', '2024'])])
}
csv('ev-charging-points.csv', ['point_id', 'location', 'power_kw', 'connectors', 'sockets', 'latitude', 'longitude', 'installed'], ev)

// ---------------------------------------------------------------- road traffic collisions
const collisions: (string | number)[][] = []
for (let i = 1; i <= 140; i++) {
  const date = day('2023-01-01', Math.floor(between(0, 730)))
  collisions.push([`RC${date.slice(0, 4)}${String(i).padStart(4, '0')}`, date, `${String(Math.floor(between(6, 23))).padStart(2, '0')}:${pick(['00', '15', '30', '45'])}`, pick(streets), pick(['Slight', 'Slight', 'Slight', 'Slight', 'Serious', 'Fatal'].slice(0, rand() < 0.97 ? 5 : 6)), Math.round(between(1, 3)), Math.round(between(1, 2.4)), pick(['Dry', 'Dry', 'Wet', 'Wet', 'Ice']), pick(['Daylight', 'Daylight', 'Dark (lit)', 'Dark (unlit)'])])
}
collisions.sort((a, b) => String(a[1]).localeCompare(String(b[1])))
csv('road-collisions-2023-2024.csv', ['reference', 'date', 'time', 'street', 'severity', 'vehicles', 'casualties', 'road_surface', 'light'], collisions)

// ---------------------------------------------------------------- public toilets
const toilets: (string | number)[][] = []
for (let i = 1; i <= 22; i++)
  toilets.push([`PT${String(i).padStart(2, '0')}`, `${pick(streets)} ${pick(['public toilets', 'park pavilion', 'bus station', 'library'])}`, pick(['Yes', 'Yes', 'No']), pick(['Yes', 'No']), pick(['07:00-19:00', '08:00-18:00', '24 hours', '09:00-17:00']), pick(['Free', 'Free', '20p']), round(52.19 + between(-0.02, 0.025), 5), round(-1.43 + between(-0.05, 0.04), 5)])
csv('public-toilets.csv', ['toilet_id', 'name', 'accessible', 'baby_changing', 'opening_hours', 'charge', 'latitude', 'longitude'], toilets)

console.log(`wrote the demo files to ${dir}`)
