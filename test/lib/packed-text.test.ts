// Packed text (activity dicts stored deflated): the portable codec (fflate, the Worker's) and
// Node's native one (node:zlib, injected by runtime/node-db.ts) read what each other wrote.
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { deflateSync, inflateSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'
import { packText, unpackText, useDeflateCodec } from '../../src/lib/packed-text'

const portable = { deflate: (b: Uint8Array) => deflateSync(b, { level: 6 }), inflate: (b: Uint8Array) => inflateSync(b) }
const native = { deflate: (b: Uint8Array) => deflateRawSync(b, { level: 6 }), inflate: (b: Uint8Array) => inflateRawSync(b) }
afterAll(() => useDeflateCodec(native))

const dict = JSON.stringify({ name: 'river-levels', notes: 'Weekly river levels, ünïcödé and emoji 🌊. '.repeat(40), tags: ['water', 'levels'] })

describe('packed text', () => {
  it('reads with either codec what the other wrote', () => {
    for (const [writer, reader] of [[portable, native], [native, portable], [native, native], [portable, portable]]) {
      useDeflateCodec(writer!)
      const packed = packText(dict)
      expect(packed).toBeInstanceOf(Uint8Array)
      expect((packed as Uint8Array).length).toBeLessThan(dict.length / 2)
      useDeflateCodec(reader!)
      expect(unpackText(packed)).toBe(dict)
      expect(unpackText((packed as Uint8Array).slice().buffer)).toBe(dict)
    }
  })

  it('keeps short text and text deflate would not shorten as text', () => {
    expect(packText('short')).toBe('short')
    const noise = Array.from({ length: 600 }, (_, i) => String.fromCharCode(33 + ((i * 7919) % 90))).join('')
    expect(typeof packText(noise) === 'string' || unpackText(packText(noise)) === noise).toBe(true)
    expect(unpackText('plain')).toBe('plain')
    expect(unpackText(42)).toBeNull()
  })
})
