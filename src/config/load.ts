// Builds the Config from environment-like key/value pairs; runtime edits overlay it.
import { OPTIONS, OPTIONS_BY_KEY, canonicalKey, type OptionDef } from './options'

type Value = string | number | boolean | string[] | null

function parse(def: OptionDef, raw: string): Value {
  if (def.choices && !def.choices.includes(raw.trim()))
    throw new Error(
      `${def.key} must be one of ${def.choices.join(', ')}; "${raw}" is not one of them`,
    )
  switch (def.type) {
    case 'bool':
      return /^(true|yes|on|1|t|y)$/i.test(raw.trim())
    case 'int': {
      const n = Number.parseInt(raw, 10)
      return Number.isFinite(n) ? n : (def.default as number)
    }
    case 'list':
      return raw
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean)
    default:
      return def.choices ? raw.trim() : raw
  }
}

/** Environment variable names that may carry an option: the key itself, KEY__WITH__DOTS, ckan. spelling. */
function envNames(key: string): string[] {
  const spellings = [key]
  if (key.startsWith('service.')) spellings.push('ckan.' + key.slice(8))
  const out: string[] = []
  for (const s of spellings) out.push(s, s.toUpperCase().replaceAll('.', '__'))
  return out
}

export class Config {
  constructor(
    private readonly base: Map<string, Value>,
    /** Settings that are not options (DATABASE_URL, …), as given. */
    readonly env: Record<string, string | undefined> = {},
    /** Runtime edits; shared with the views made by withDefaults(). */
    private readonly overlay = new Map<string, Value>(),
    /** Defaults that replace the declared ones (see withDefaults()). */
    private readonly defaults = new Map<string, Value>(),
  ) {}

  get(key: string): Value {
    const k = canonicalKey(key)
    if (this.overlay.has(k)) return this.overlay.get(k)!
    if (this.base.has(k)) return this.base.get(k)!
    if (this.defaults.has(k)) return this.defaults.get(k)!
    return OPTIONS_BY_KEY.get(k)?.default ?? null
  }
  /** Whether the option was given (settings or a runtime edit) rather than left at its default. */
  isSet(key: string): boolean {
    const k = canonicalKey(key)
    return this.overlay.has(k) || this.base.has(k)
  }
  /**
   * A view of this configuration (same settings, same runtime edits, now and later) in which
   * the options of `values` that were not given take these defaults: on Workers, `site_url`
   * from the request's origin.
   */
  withDefaults(values: Record<string, string>): Config {
    const defaults = new Map(this.defaults)
    for (const [k, v] of Object.entries(values)) {
      const def = OPTIONS_BY_KEY.get(canonicalKey(k))
      if (def) defaults.set(def.key, parse(def, v))
    }
    return new Config(this.base, this.env, this.overlay, defaults)
  }
  bool(key: string): boolean {
    return this.get(key) === true
  }
  int(key: string): number {
    const v = this.get(key)
    return typeof v === 'number' ? v : Number(v)
  }
  str(key: string): string {
    const v = this.get(key)
    return v === null || v === undefined ? '' : String(v)
  }
  list(key: string): string[] {
    const v = this.get(key)
    return Array.isArray(v) ? v : []
  }
  /** The value as a string, as config_option_show returns it. */
  raw(key: string): string | null {
    const v = this.get(key)
    if (v === null || v === undefined) return null
    return Array.isArray(v) ? v.join(' ') : String(v)
  }
  /** Replaces the runtime-edited values (stored strings) with a fresh set from the database. */
  setOverlay(values: Record<string, string | null>) {
    this.overlay.clear()
    for (const [key, rawValue] of Object.entries(values)) {
      const def = OPTIONS_BY_KEY.get(key)
      if (!def) continue
      this.overlay.set(key, rawValue === null ? null : parse(def, rawValue))
    }
  }
  /** A copy with some options changed (tests and profiles). */
  with(values: Record<string, string>): Config {
    const base = new Map(this.base)
    for (const [k, v] of Object.entries(values)) {
      const def = OPTIONS_BY_KEY.get(canonicalKey(k))
      if (def) base.set(def.key, parse(def, v))
    }
    return new Config(base, this.env, new Map(), new Map(this.defaults))
  }
}

export function loadConfig(source: Record<string, string | undefined>): Config {
  const base = new Map<string, Value>()
  for (const def of OPTIONS) {
    for (const name of envNames(def.key)) {
      const raw = source[name]
      if (raw !== undefined) {
        base.set(def.key, parse(def, raw))
        break
      }
    }
  }
  return new Config(base, { ...source })
}
