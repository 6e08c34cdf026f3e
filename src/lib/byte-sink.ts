// Text streamed out as UTF-8 blocks of about 64 KiB, each line encoded as soon as it is made.

const OUT_BYTES = 64 * 1024

/** Text encoded straight into byte blocks of about OUT_BYTES, each handed to `emit` when full. */
export function byteSink(emit: (chunk: Uint8Array) => void) {
  const enc = new TextEncoder()
  let buf = new Uint8Array(OUT_BYTES)
  let pos = 0
  const flush = () => {
    if (!pos) return
    emit(buf.subarray(0, pos))
    buf = new Uint8Array(OUT_BYTES)
    pos = 0
  }
  return {
    put(s: string) {
      // UTF-8 needs at most 3 bytes per UTF-16 unit
      const need = s.length * 3
      if (pos + need > buf.length) {
        flush()
        if (need > buf.length) buf = new Uint8Array(need)
      }
      pos += enc.encodeInto(s, buf.subarray(pos)).written
      if (pos > OUT_BYTES - 1024) flush()
    },
    flush,
  }
}

export type ByteSink = ReturnType<typeof byteSink>
