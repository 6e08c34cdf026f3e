// Binary form of an index snapshot: a JSON header plus the typed arrays as raw bytes (fast to load).
import type { IndexSnapshot } from './minisearch'

const MAGIC = 0x53494458 // "SIDX"
// 2: private datasets carry a collaborator-<id> label; 3: text as a frozen varint segment;
// 4: exact values sorted in one string with end offsets; 5: `spatial` geometries; 6: deleted
// datasets kept (package_search include_deleted). Older snapshots are rebuilt.
const FORMAT = 6

type Ref = { $a: number }
interface Header {
  arrays: { type: 'u8' | 'u32' | 'f64'; offset: number; length: number }[]
  body: unknown
}

export function encodeSnapshot(s: IndexSnapshot): Uint8Array {
  const arrays: (Uint8Array | Uint32Array | Float64Array)[] = []
  const body = JSON.stringify(s, (_key, value: unknown) =>
    value instanceof Uint8Array || value instanceof Uint32Array || value instanceof Float64Array
      ? ({ $a: arrays.push(value) - 1 } satisfies Ref)
      : value,
  )
  const meta: Header['arrays'] = []
  let offset = 0
  for (const a of arrays) {
    meta.push({ type: a instanceof Uint8Array ? 'u8' : a instanceof Uint32Array ? 'u32' : 'f64', offset, length: a.length })
    offset += align8(a.byteLength)
  }
  const json = new TextEncoder().encode(`{"arrays":${JSON.stringify(meta)},"body":${body}}`)
  const start = align8(12 + json.length)
  const out = new Uint8Array(start + offset)
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, FORMAT, true)
  view.setUint32(8, json.length, true)
  out.set(json, 12)
  meta.forEach((h, i) => {
    const a = arrays[i]!
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), start + h.offset)
  })
  return out
}

export function decodeSnapshot(bytes: Uint8Array): IndexSnapshot {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== FORMAT) {
    throw new Error('not a search index snapshot of this format')
  }
  const len = view.getUint32(8, true)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + len))) as Header
  const start = align8(12 + len)
  // typed arrays view the data directly: copied once into an aligned buffer only when it is not
  const data = (bytes.byteOffset + start) % 8 === 0 ? bytes.subarray(start) : bytes.slice(start)
  const arrays = header.arrays.map((h) =>
    h.type === 'u8'
      ? new Uint8Array(data.buffer, data.byteOffset + h.offset, h.length)
      : h.type === 'u32'
        ? new Uint32Array(data.buffer, data.byteOffset + h.offset, h.length)
        : new Float64Array(data.buffer, data.byteOffset + h.offset, h.length),
  )
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive)
    if (v && typeof v === 'object') {
      if ('$a' in v) return arrays[(v as Ref).$a]
      const o: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) o[k] = revive(x)
      return o
    }
    return v
  }
  return revive(header.body) as IndexSnapshot
}

const align8 = (n: number) => (n + 7) & ~7
