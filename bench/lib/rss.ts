// Resident memory of another process (Linux /proc): current, and the peak over a window.
import { readFileSync, writeFileSync } from 'node:fs'

/** VmRSS and VmHWM (peak) of `pid`, in bytes; null when /proc cannot be read. */
export function procMemory(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
  } catch {
    return null
  }
}

/**
 * Watches `pid` from now on: VmRSS sampled every `everyMs`, and VmHWM reset first (writing 5 to
 * clear_refs, Linux ≥ 4.0) so it holds the peak of this window only. stop() gives the larger of
 * the two peaks, in bytes, and whether the kernel peak was usable.
 */
export function watchPeak(pid: number, everyMs = 50) {
  let reset = false
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    reset = true
  } catch {
    /* older kernel or no permission: the samples alone */
  }
  const start = procMemory(pid)
  let sampled = start?.rss ?? 0
  const timer = setInterval(() => {
    const m = procMemory(pid)
    if (m && m.rss > sampled) sampled = m.rss
  }, everyMs)
  return {
    before: start?.rss ?? NaN,
    stop() {
      clearInterval(timer)
      const end = procMemory(pid)
      const peak = Math.max(sampled, end?.rss ?? 0, reset ? (end?.hwm ?? 0) : 0)
      return { peak, sampledPeak: sampled, kernelPeak: reset }
    },
  }
}
