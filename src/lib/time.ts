// Our timestamps: naive UTC ISO-8601 with microseconds (CKAN's isoformat()), compared as text.

/** Milliseconds since the epoch of one of our timestamps (an explicit zone is honoured). */
export function isoToMs(iso: string): number {
  return Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(iso) ? iso : `${iso}Z`)
}

/** Our timestamp of a time in milliseconds. */
export const msToIso = (ms: number) => new Date(ms).toISOString().slice(0, 23) + '000'

/** A timestamp `ms` later (earlier when negative), in the same format. */
export function addMs(iso: string, ms: number): string {
  const t = isoToMs(iso)
  if (Number.isNaN(t)) throw new Error(`Unreadable timestamp ${JSON.stringify(iso)}`)
  return msToIso(t + ms)
}
