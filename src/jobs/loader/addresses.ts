// Which addresses a linked URL may not point at: loopback, link-local, private and unique-local
// ranges (and the other special ones), so the catalogue cannot be used to probe its own network.

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
]

function v4ToInt(a: string): number | undefined {
  const parts = a.split('.')
  if (parts.length !== 4) return undefined
  let n = 0
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined
    n = n * 256 + Number(p)
  }
  return n
}

function v4Blocked(n: number): boolean {
  return V4_BLOCKED.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
    return ((n & mask) >>> 0) === ((v4ToInt(base)! & mask) >>> 0)
  })
}

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
function v6Groups(a: string): number[] | undefined {
  let s = a.toLowerCase().replace(/%.*$/, '')
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (v4) {
    const n = v4ToInt(v4[1]!)
    if (n === undefined) return undefined
    s = s.slice(0, -v4[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const halves = s.split('::')
  if (halves.length > 2) return undefined
  const head = halves[0] ? halves[0].split(':') : []
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0
  if (fill < 0) return undefined
  const all = [...head, ...Array(fill).fill('0'), ...tail]
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined
  return all.map((g) => parseInt(g, 16))
}

/** True for an address (v4 or v6) the loader must not fetch from; also for what is not an address. */
export function isBlockedAddress(address: string): boolean {
  const n = v4ToInt(address)
  if (n !== undefined) return v4Blocked(n)
  const g = v6Groups(address)
  if (!g) return true
  if (g.every((x) => x === 0)) return true // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true // ::1
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry a v4 address
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)
  if (mapped || nat64) return v4Blocked(((g[6]! << 16) | g[7]!) >>> 0)
  if ((g[0]! & 0xfe00) === 0xfc00) return true // fc00::/7 unique-local
  if ((g[0]! & 0xffc0) === 0xfe80) return true // fe80::/10 link-local
  if ((g[0]! & 0xff00) === 0xff00) return true // multicast
  return false
}

/** A URL host as an address literal (brackets of IPv6 removed), or undefined for a name. */
export function addressLiteral(hostname: string): string | undefined {
  const h = hostname.replace(/^\[|\]$/g, '')
  if (v4ToInt(h) !== undefined) return h
  return h.includes(':') ? h : undefined
}
