// The dumps' byte sink: text in, UTF-8 blocks out, nothing lost or reordered at block edges.
import { describe, expect, it } from 'vitest'
import { byteSink } from '../../src/lib/byte-sink'

function collect(parts: string[]) {
  const chunks: Uint8Array[] = []
  const sink = byteSink((c) => chunks.push(c.slice()))
  for (const p of parts) sink.put(p)
  sink.flush()
  const bytes = Buffer.concat(chunks)
  return { chunks, text: new TextDecoder().decode(bytes), bytes }
}

describe('byteSink', () => {
  it('emits nothing for nothing, and nothing twice', () => {
    const chunks: Uint8Array[] = []
    const sink = byteSink((c) => chunks.push(c))
    sink.flush()
    sink.put('')
    sink.flush()
    expect(chunks).toHaveLength(0)
  })

  it('keeps short lines in one block until flushed', () => {
    const r = collect(['a,b\r\n', '1,2\n'])
    expect(r.chunks).toHaveLength(1)
    expect(r.text).toBe('a,b\r\n1,2\n')
  })

  it('splits many lines into blocks of at most 64 KiB, in order, byte for byte', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `${i},naïve café ☃ 🙂 ${'x'.repeat(i % 50)}\n`)
    const r = collect(lines)
    expect(r.chunks.length).toBeGreaterThan(3)
    for (const c of r.chunks) expect(c.length).toBeLessThanOrEqual(64 * 1024)
    // a block never ends inside a line: each line is encoded whole into one block
    for (const c of r.chunks) expect(c[c.length - 1]).toBe(10)
    expect(Buffer.compare(r.bytes, Buffer.from(lines.join('')))).toBe(0)
  })

  it('takes a line longer than a block whole', () => {
    const long = '🙂'.repeat(50_000) + '\n'
    const r = collect(['head\n', long, 'tail\n'])
    expect(r.text).toBe('head\n' + long + 'tail\n')
    expect(r.chunks.some((c) => c.length > 64 * 1024)).toBe(true)
  })
})
