/** @jsxImportSource hono/jsx */
// Pages from a ckanext-scheming schema (src/scheming/): the form controls of a type's fields by
// their form_snippet, the values a posted form gives (repeating blocks added and removed without
// JavaScript), the data dict the actions take, the API's error dict shown by each field, and each
// field shown on its page by its display_snippet.
import type { CompiledField, CompiledSchema } from '../scheming/registry'
import type { SchemaField } from '../scheming/types'
import { HELPER_CHOICES } from '../scheming/validators'
import type { ValidationError } from '../errors'
import { Markdown } from './components'
import { renderMarkdown } from './markdown'
import type { Page } from './page'
import { FieldError, invalid, type Errors } from './forms'

type Dict = Record<string, any>
export type AnySchema = CompiledSchema<unknown>

/** A schema's label, help text or placeholder: a string, or a dict by language (the page's, else en, else the first). */
export function localText(page: Page, v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const d = v as Dict
    const pick = d[page.locale] ?? d.en ?? Object.values(d)[0]
    return typeof pick === 'string' ? pick : ''
  }
  return ''
}

/** The schema of a dataset type on this site (undefined: none, CKAN's core form). */
export const datasetSchemaOf = (page: Page, type: string): AnySchema | undefined => page.deps.schemas?.dataset(type) as AnySchema | undefined

/** The schema of an organization or group type (undefined: none). */
export const groupSchemaOf = (page: Page, kind: 'organization' | 'group', type: string): AnySchema | undefined =>
  (kind === 'organization' ? page.deps.schemas?.organizations : page.deps.schemas?.groups)?.get(type) as AnySchema | undefined

const snippetName = (s: unknown) => (typeof s === 'string' ? s.replace(/\.html$/, '').replace(/^.*\//, '') : s === null ? null : undefined)

/** How a field is entered: its form_snippet's name (text by default; null: not on the form). */
export function formKind(f: SchemaField): string | null {
  if (Array.isArray(f.repeating_subfields)) return 'repeating'
  const s = snippetName(f.form_snippet)
  if (s === null) return null
  return s ?? 'text'
}

/** How a field is shown: its display_snippet's name (text by default; null: not shown). */
export function displayKind(f: SchemaField): string | null {
  if (Array.isArray(f.repeating_subfields)) return 'repeating'
  const s = snippetName(f.display_snippet)
  if (s === null) return null
  if (s) return s
  const form = snippetName(f.form_snippet)
  return form === 'markdown' ? 'markdown' : 'text'
}

const MULTI = new Set(['multiple_checkbox', 'multiple_select', 'multiple_text'])
/** ckanext-fluent's form snippets: one input (or textarea) per language, named `<field>-<lang>`. */
const FLUENT = new Set(['fluent_text', 'fluent_markdown', 'fluent_tags', 'fluent_link'])
const LANG_RE = /^[a-z]{2,8}(-[0-9a-zA-Z]{1,8})*$/

/** The languages a fluent field's form asks for: its form_languages, else the schema's (`langs`), else the site's default. */
export function fluentLanguages(page: Page, f: SchemaField, langs?: string[]): string[] {
  if (Array.isArray(f.form_languages) && f.form_languages.length) return (f.form_languages as unknown[]).map(String)
  if (langs?.length) return langs
  return [page.deps.config.str('service.locale_default') || 'en']
}

/** A fluent value as a dict by language (a dict, its JSON, or a plain text: the default language's). */
function fluentDict(v: unknown, fallback: string): Dict {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Dict
  if (typeof v === 'string' && v.startsWith('{')) {
    const p = safeJson(v)
    if (p && typeof p === 'object' && !Array.isArray(p)) return p as Dict
  }
  return isBlank(v) ? {} : { [fallback]: v }
}

/** The value of a fluent dict to show: the page's language, else the site's default, else the first. */
function fluentPick(page: Page, d: Dict): unknown {
  const def = page.deps.config.str('service.locale_default') || 'en'
  for (const k of [page.locale, def]) if (!isBlank(d[k])) return d[k]
  return Object.values(d).find((x) => !isBlank(x))
}
const DATETIME = new Set(['datetime', 'datetime_tz'])
const DEFAULT_TIMEZONES = ['UTC', 'Europe/London', 'Europe/Paris', 'Europe/Berlin', 'America/New_York', 'America/Chicago', 'America/Los_Angeles', 'Asia/Tokyo', 'Australia/Sydney']

/** The field's choices (its own list, or its choices_helper's), sorted by label with sorted_choices. */
function choicesOf(page: Page, f: SchemaField): { value: string; label: string }[] {
  const raw = (f.choices ?? (f as { [HELPER_CHOICES]?: { value: unknown; label?: unknown }[] })[HELPER_CHOICES] ?? []) as { value: unknown; label?: unknown }[]
  const out = raw.map((c) => ({ value: String(c.value), label: localText(page, c.label) || String(c.value) }))
  if (f.sorted_choices) out.sort((a, b) => a.label.localeCompare(b.label, page.locale))
  return out
}

/** A value as one form input's text. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (v === null || v === undefined) return ''
  return JSON.stringify(v)
}

/** A value as a list of texts (multiple choices, multiple_text): a list, a JSON list, or one text. */
function asList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(asText)
  if (typeof v === 'string') {
    if (v.startsWith('[')) {
      try {
        const p = JSON.parse(v)
        if (Array.isArray(p)) return p.map(asText)
      } catch {
        /* one text */
      }
    }
    return v ? [v] : []
  }
  return v === null || v === undefined ? [] : [asText(v)]
}

const isBlank = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.every(isBlank)) || (typeof v === 'object' && !Array.isArray(v) && Object.values(v as Dict).every(isBlank))

/** Fields the dataset form keeps its own controls for (or the action fills): not read here. */
export const DATASET_OWN = new Set(['title', 'name', 'notes', 'tag_string', 'tags', 'owner_org', 'license_id', 'private'])
/** Fields the resource form keeps its own controls for (the link or upload, name, description, format). */
export const RESOURCE_OWN = new Set(['url', 'name', 'description', 'format'])
export const GROUP_OWN = new Set(['title', 'name', 'description', 'image_url'])

// ---- values: stored dict → form values, posted form → form values → action data ----

/** The form's values of `fields` for an object as package_show (or group_show) gives it. */
export function valuesFromObject(fields: CompiledField[], d: Dict, own: Set<string> = new Set()): Dict {
  const out: Dict = {}
  for (const cf of fields) {
    const f = cf.field
    const k = formKind(f)
    const name = cf.name
    if (own.has(name) || k === null) continue
    const v = d[name]
    if (k === 'repeating') {
      const items = Array.isArray(v) ? v : typeof v === 'string' ? (safeJson(v) ?? []) : []
      out[name] = (Array.isArray(items) ? items : []).filter((x) => x && typeof x === 'object').map((item: Dict) => valuesFromObject(cf.sub ?? [], item))
    } else if (FLUENT.has(k)) {
      for (const [lang, t] of Object.entries(fluentDict(v, 'en'))) out[`${name}-${lang}`] = Array.isArray(t) ? t.map(asText).join(', ') : asText(t)
    } else if (MULTI.has(k)) out[name] = asList(v)
    else if (DATETIME.has(k)) {
      const s = asText(v)
      out[`${name}_date`] = s.slice(0, 10)
      const time = s.slice(11, 19)
      out[`${name}_time`] = time.endsWith(':00') ? time.slice(0, 5) : time
      if (k === 'datetime_tz') out[`${name}_tz`] = s ? 'UTC' : ''
    } else if (k === 'json') out[name] = v && typeof v === 'object' ? JSON.stringify(v, null, 2) : asText(v)
    else if (k === 'date') out[name] = asText(v).slice(0, 10)
    else out[name] = asText(v)
  }
  return out
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

/** What a repeating block's button asked for: `add_<field>` or `remove_<field>` = block number. */
export function blockChange(form: Dict): boolean {
  return Object.keys(form).some((k) => k.startsWith('add_') || k.startsWith('remove_'))
}

/** The form's values of `fields` from a posted form (repeating blocks renumbered, added and removed as its buttons ask). */
export function valuesFromForm(fields: CompiledField[], form: Dict, own: Set<string> = new Set(), prefix = ''): Dict {
  const out: Dict = {}
  for (const cf of fields) {
    const f = cf.field
    const k = formKind(f)
    const name = cf.name
    const key = prefix + name
    if (own.has(name) || k === null) continue
    if (k === 'repeating') {
      const re = new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)-`)
      const nums = [...new Set(Object.keys(form).map((x) => re.exec(x)?.[1]).filter((x): x is string => x !== undefined))].map(Number).sort((a, b) => a - b)
      let blocks = nums.map((n) => valuesFromForm(cf.sub ?? [], form, new Set(), `${key}-${n}-`))
      if (!prefix) {
        const remove = form[`remove_${name}`]
        if (typeof remove === 'string' && /^\d+$/.test(remove)) blocks = blocks.filter((_b, i) => i !== Number(remove))
        if (form[`add_${name}`] !== undefined) blocks.push({})
      }
      out[name] = blocks
    } else if (FLUENT.has(k)) {
      for (const fk of Object.keys(form)) if (fk.startsWith(`${key}-`) && LANG_RE.test(fk.slice(key.length + 1))) out[`${name}-${fk.slice(key.length + 1)}`] = asText(form[fk]).trim()
    } else if (MULTI.has(k)) out[name] = asList(form[key]).map((s) => s.trim())
    else if (DATETIME.has(k)) {
      for (const part of k === 'datetime_tz' ? ['date', 'time', 'tz'] : ['date', 'time']) out[`${name}_${part}`] = asText(form[`${key}_${part}`]).trim()
    } else out[name] = asText(form[key]).trim()
  }
  return out
}

/** The form's values as the action's data dict: blank repeating blocks left out, datetimes as their form keys. */
export function dataFromValues(fields: CompiledField[], values: Dict, own: Set<string> = new Set()): Dict {
  const out: Dict = {}
  for (const cf of fields) {
    const k = formKind(cf.field)
    const name = cf.name
    if (own.has(name) || k === null) continue
    if (k === 'repeating') {
      const blocks = (Array.isArray(values[name]) ? values[name] : []) as Dict[]
      out[name] = blocks.filter((b) => !isBlank(b)).map((b) => dataFromValues(cf.sub ?? [], b))
    } else if (FLUENT.has(k)) {
      // the `<field>-<lang>` inputs as they are: the action reads them (a missing language: `<field>-<lang>`)
      const langs = Object.keys(values).filter((x) => x.startsWith(`${name}-`) && LANG_RE.test(x.slice(name.length + 1)))
      for (const x of langs) out[x] = asText(values[x])
    } else if (MULTI.has(k)) out[name] = asList(values[name]).filter((s) => s !== '')
    else if (DATETIME.has(k)) {
      out[name] = ''
      for (const part of k === 'datetime_tz' ? ['date', 'time', 'tz'] : ['date', 'time']) {
        const v = asText(values[`${name}_${part}`])
        // a zone alone (its select always has one) is no datetime
        if (part === 'tz' && !values[`${name}_date`] && !values[`${name}_time`]) continue
        out[`${name}_${part}`] = v
      }
    } else {
      // an empty input is a missing value (ignore_missing drops it; a patch then clears the field)
      const v = asText(values[name])
      out[name] = v === '' ? null : v
    }
  }
  return out
}

/** A blocks list keeping its blocks in order with the filtered (sent) ones first: what the error dict's indexes name. */
export function sentBlocks(fields: CompiledField[], values: Dict): Dict {
  const out: Dict = { ...values }
  for (const cf of fields) if (cf.sub && Array.isArray(values[cf.name])) out[cf.name] = (values[cf.name] as Dict[]).filter((b) => !isBlank(b))
  return out
}

/** A Validation Error's messages by form input name: `stations-1-email` for a block's subfield. */
export function flatErrors(e: ValidationError): Errors {
  const out: Errors = {}
  const walk = (prefix: string, body: Dict) => {
    for (const [k, v] of Object.entries(body)) {
      if (k === '__type') continue
      const key = prefix + k
      if (Array.isArray(v) && v.some((x) => x && typeof x === 'object')) {
        v.forEach((item, i) => {
          if (item && typeof item === 'object' && !Array.isArray(item)) walk(`${key}-${i}-`, item as Dict)
        })
      } else if (Array.isArray(v)) out[key] = v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)))
      else out[key] = [typeof v === 'string' ? v : JSON.stringify(v)]
    }
  }
  walk('', e.body() as Dict)
  return out
}

/**
 * The label of an error key for a form's summary: a field's label, "Stations 2: Station ID" for a
 * block's subfield (`stations-1-station_id`), "Title (fr)" for a language's input, the date, time or
 * zone part of a datetime (undefined: no field of that key).
 */
export function errorLabel(page: Page, fields: CompiledField[], key: string): string | undefined {
  const labelOf = (cf: CompiledField) => localText(page, cf.field.label) || cf.name
  for (const cf of fields) {
    const name = cf.name
    if (key === name) return labelOf(cf)
    if (!key.startsWith(name)) continue
    const rest = key.slice(name.length)
    const kind = formKind(cf.field)
    const block = /^-(\d+)-(.+)$/.exec(rest)
    if (block && cf.sub) {
      const each = localText(page, cf.field.repeating_label) || labelOf(cf)
      const inner = errorLabel(page, cf.sub, block[2]!)
      if (inner) return `${each} ${Number(block[1]) + 1}: ${inner}`
    }
    if (kind && FLUENT.has(kind) && rest.startsWith('-') && LANG_RE.test(rest.slice(1))) {
      const lang = rest.slice(1)
      return localText(page, (cf.field.fluent_form_label as Dict | undefined)?.[lang]) || page.t('schema.inLanguage', { label: labelOf(cf), lang })
    }
    if (kind && DATETIME.has(kind)) {
      const part = { _date: page.t('schema.date'), _time: localText(page, cf.field.label_time) || page.t('schema.time'), _tz: localText(page, cf.field.label_tz) || page.t('schema.timezone') }[rest]
      if (part) return `${labelOf(cf)}: ${part}`
    }
  }
  return undefined
}

/** The summary's labels of a form's fields (`own`: the labels of the form's own controls). */
export const errorLabels = (page: Page, fields: CompiledField[], own: Record<string, string> = {}) => (key: string) => errorLabel(page, fields, key) ?? own[key]

// ---- the form ----


function Help({ page, f, id }: { page: Page; f: SchemaField; id: string }) {
  const help = localText(page, f.help_text)
  return help ? (
    <p class="help muted" id={`${id}-help`}>
      {help}
    </p>
  ) : null
}

function Label({ page, f, id, text }: { page: Page; f: SchemaField; id: string; text?: string }) {
  return (
    <label for={id}>
      {text ?? (localText(page, f.label) || f.field_name)}
      {f.required ? <Req page={page} /> : null}
    </label>
  )
}

function Req({ page }: { page: Page }) {
  return (
    <>
      {' '}
      <abbr class="req" title={page.t('schema.required')}>
        *
      </abbr>
    </>
  )
}

/** One field's control, named `key` (a block's subfield: `<field>-<n>-<subfield>`). */
function Control({ page, cf, fname: key, value, values, errors, inBlock, langs }: { page: Page; cf: CompiledField; fname: string; value: unknown; values: Dict; errors: Errors; inBlock?: boolean; langs?: string[] }) {
  const f = cf.field
  const kind = formKind(f)!
  const id = `field-${key}`
  const label = localText(page, f.label) || f.field_name
  const placeholder = localText(page, f.form_placeholder) || undefined
  const help = localText(page, f.help_text)
  const described = [errors[key]?.length ? `${key}-error` : '', help ? `${id}-help` : ''].filter(Boolean).join(' ') || undefined
  const common = { id, name: key, placeholder, 'aria-describedby': described, 'aria-invalid': errors[key]?.length ? ('true' as const) : undefined, 'aria-required': f.required ? ('true' as const) : undefined }
  const str = asText(value)
  const attrs = (f.form_attrs && typeof f.form_attrs === 'object' ? f.form_attrs : {}) as Dict
  const number = attrs.type === 'number' ? { type: 'number', min: typeof attrs.min === 'string' ? attrs.min : undefined } : { type: 'text' }
  switch (kind) {
    case 'fluent_text':
    case 'fluent_link':
    case 'fluent_markdown':
    case 'fluent_tags':
      return (
        <fieldset class="fluent" aria-describedby={described} aria-invalid={common['aria-invalid']}>
          <legend>
            {label}
            {f.required ? <Req page={page} /> : null}
          </legend>
          {fluentLanguages(page, f, langs).map((lang) => {
            const k = `${key}-${lang}`
            const lid = `field-${k}`
            const own = localText(page, (f.fluent_form_label as Dict | undefined)?.[lang])
            const text = own || page.t('schema.inLanguage', { label, lang })
            const ownHelp = localText(page, (f.fluent_help_text as Dict | undefined)?.[lang])
            const desc = [errors[k]?.length ? `${k}-error` : '', ownHelp ? `${lid}-help` : ''].filter(Boolean).join(' ') || undefined
            const a = { id: lid, name: k, lang, placeholder, 'aria-describedby': desc, 'aria-invalid': errors[k]?.length ? ('true' as const) : undefined }
            return (
              <div>
                <label for={lid}>{text}</label>
                {kind === 'fluent_markdown' ? (
                  <textarea {...a} rows={5}>
                    {asText(values[k])}
                  </textarea>
                ) : (
                  <input {...a} type={kind === 'fluent_link' ? 'url' : 'text'} value={asText(values[k])} />
                )}
                {ownHelp ? (
                  <p class="help muted" id={`${lid}-help`}>
                    {ownHelp}
                  </p>
                ) : null}
                <FieldError errors={errors} name={k} />
              </div>
            )
          })}
          {kind === 'fluent_markdown' ? <p class="muted">{page.t('schema.markdownHint')}</p> : null}
          {kind === 'fluent_tags' ? <p class="muted">{page.t('schema.tagsHint')}</p> : null}
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </fieldset>
      )
    case 'large_text':
    case 'markdown':
    case 'textarea':
      return (
        <div>
          <Label page={page} f={f} id={id} />
          <textarea {...common} rows={kind === 'large_text' ? 2 : 5}>
            {str}
          </textarea>
          {kind === 'markdown' ? <p class="muted">{page.t('schema.markdownHint')}</p> : null}
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </div>
      )
    case 'json':
      return (
        <div>
          <Label page={page} f={f} id={id} />
          <textarea {...common} rows={5} class="mono" spellcheck={false}>
            {str}
          </textarea>
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </div>
      )
    case 'select': {
      const choices = choicesOf(page, f)
      // a block's select starts blank, or every new block would already hold a value
      const blank = !!f.form_include_blank_choice || !!inBlock
      return (
        <div>
          <Label page={page} f={f} id={id} />
          <select {...common} placeholder={undefined}>
            {blank ? <option value="" selected={str === ''}></option> : null}
            {choices.map((c) => (
              <option value={c.value} selected={c.value === str}>
                {c.label}
              </option>
            ))}
          </select>
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </div>
      )
    }
    case 'radio':
    case 'multiple_checkbox': {
      const chosen = kind === 'radio' ? [str] : asList(value)
      return (
        <fieldset class="choices" aria-describedby={described} aria-invalid={common['aria-invalid']}>
          <legend>
            {label}
            {f.required ? <Req page={page} /> : null}
          </legend>
          {choicesOf(page, f).map((c, i) => (
            <label class="choice" for={`${id}-${i}`}>
              <input id={`${id}-${i}`} type={kind === 'radio' ? 'radio' : 'checkbox'} name={key} value={c.value} checked={chosen.includes(c.value)} /> {c.label}
            </label>
          ))}
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </fieldset>
      )
    }
    case 'multiple_select': {
      const chosen = asList(value)
      const choices = choicesOf(page, f)
      return (
        <div>
          <Label page={page} f={f} id={id} />
          <select {...common} placeholder={undefined} multiple size={Number(f.select_size) || Math.min(choices.length, 6)}>
            {choices.map((c) => (
              <option value={c.value} selected={chosen.includes(c.value)}>
                {c.label}
              </option>
            ))}
          </select>
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </div>
      )
    }
    case 'date':
      return (
        <div>
          <Label page={page} f={f} id={id} />
          <input {...common} type="date" value={str.slice(0, 10)} />
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </div>
      )
    case 'datetime':
    case 'datetime_tz': {
      const part = (p: string) => asText(values[`${key}_${p}`])
      const zones = Array.isArray(f.timezones) && f.timezones.length ? (f.timezones as unknown[]).map(asText) : DEFAULT_TIMEZONES
      const zoneList = zones.includes('UTC') ? zones : ['UTC', ...zones]
      const sub = (p: string) => ({ id: `${id}_${p}`, name: `${key}_${p}`, ...invalid(errors, `${key}_${p}`) })
      return (
        <fieldset class="datetime">
          <legend>
            {label}
            {f.required ? <Req page={page} /> : null}
          </legend>
          <div>
            <label for={`${id}_date`}>{page.t('schema.date')}</label>
            <input {...sub('date')} type="date" value={part('date')} />
            <FieldError errors={errors} name={`${key}_date`} />
          </div>
          <div>
            <label for={`${id}_time`}>{localText(page, f.label_time) || page.t('schema.time')}</label>
            <input {...sub('time')} type="time" value={part('time')} />
            <FieldError errors={errors} name={`${key}_time`} />
          </div>
          {kind === 'datetime_tz' ? (
            <div>
              <label for={`${id}_tz`}>{localText(page, f.label_tz) || page.t('schema.timezone')}</label>
              <select {...sub('tz')}>
                {zoneList.map((z) => (
                  <option value={z} selected={(part('tz') || 'UTC') === z}>
                    {z}
                  </option>
                ))}
              </select>
              <FieldError errors={errors} name={`${key}_tz`} />
            </div>
          ) : null}
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </fieldset>
      )
    }
    case 'multiple_text': {
      const list = asList(value)
      const blanks = Math.max(Number(f.form_blanks ?? 1) || 1, list.length ? 1 : 0)
      const rows = [...list, ...Array.from({ length: blanks }, () => '')]
      return (
        <fieldset class="multi-text" aria-describedby={described} aria-invalid={common['aria-invalid']}>
          <legend>
            {label}
            {f.required ? <Req page={page} /> : null}
          </legend>
          {rows.map((v, i) => (
            <>
              <label class="visually-hidden" for={`${id}-${i}`}>
                {page.t('schema.item', { label, n: i + 1 })}
              </label>
              <input id={`${id}-${i}`} name={key} type="text" value={v} placeholder={placeholder} />
            </>
          ))}
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </fieldset>
      )
    }
    default:
      // text, email, url, slug and the snippets this site has no own control for
      return (
        <div>
          <Label page={page} f={f} id={id} />
          <input {...common} {...number} value={str} />
          <Help page={page} f={f} id={id} />
          <FieldError errors={errors} name={key} />
        </div>
      )
  }
}

/** A repeating field: its blocks, each with a Remove button, and an Add button (plain submit buttons: no script). */
function Repeating({ page, cf, values, errors }: { page: Page; cf: CompiledField; values: Dict; errors: Errors }) {
  const f = cf.field
  const label = localText(page, f.label) || f.field_name
  const each = localText(page, f.repeating_label) || label
  const given = (Array.isArray(values[cf.name]) ? values[cf.name] : []) as Dict[]
  const blocks = given.length ? given : [{}]
  return (
    <fieldset class="repeating" id={`field-${cf.name}`}>
      <legend>{label}</legend>
      <Help page={page} f={f} id={`field-${cf.name}`} />
      <FieldError errors={errors} name={cf.name} />
      {blocks.map((b, n) => (
        <fieldset class="block">
          <legend>
            {each} {n + 1}
          </legend>
          {(cf.sub ?? []).map((sf) => {
            const key = `${cf.name}-${n}-${sf.name}`
            const kind = formKind(sf.field)
            if (kind === null || kind === 'repeating') return null
            const sv: Dict = {}
            for (const [k, v] of Object.entries(b)) sv[`${key.slice(0, -sf.name.length)}${k}`] = v
            return <Control page={page} cf={sf} fname={key} inBlock value={b[sf.name]} values={sv} errors={errors} />
          })}
          <button type="submit" class="secondary" name={`remove_${cf.name}`} value={String(n)} formnovalidate>
            {page.t('schema.removeBlock', { label: `${each} ${n + 1}` })}
          </button>
        </fieldset>
      ))}
      <button type="submit" class="secondary" name={`add_${cf.name}`} value="1" formnovalidate>
        {page.t('schema.addBlock', { label: each })}
      </button>
    </fieldset>
  )
}

/** The control of one schema field (null: not on the form). */
export function SchemaField({ page, cf, values, errors, langs }: { page: Page; cf: CompiledField; values: Dict; errors: Errors; langs?: string[] }) {
  const kind = formKind(cf.field)
  if (kind === null) return null
  if (kind === 'repeating') return <Repeating page={page} cf={cf} values={values} errors={errors} />
  return <Control page={page} cf={cf} fname={cf.name} value={values[cf.name]} values={values} errors={errors} langs={langs} />
}

/** A schema's resource fields beyond the resource form's own controls (none: nothing to add). */
export function ResourceSchemaFields({ page, schema, values, errors }: { page: Page; schema?: AnySchema; values: Dict; errors: Errors }) {
  if (!schema?.resourceFields.length) return null
  return (
    <>
      {schema.resourceFields
        .filter((cf) => !RESOURCE_OWN.has(cf.name))
        .map((cf) => {
          // (SchemaField names the schema's field type in this module: its body, here)
          const kind = formKind(cf.field)
          if (kind === null) return null
          if (kind === 'repeating') return <Repeating page={page} cf={cf} values={values} errors={errors} />
          return <Control page={page} cf={cf} fname={cf.name} value={values[cf.name]} values={values} errors={errors} langs={schema.env.formLanguages} />
        })}
    </>
  )
}

/** The error summary's labels of the resource form (undefined without resource fields: the keys). */
export const resourceLabels = (page: Page, schema?: AnySchema) =>
  schema?.resourceFields.length
    ? errorLabels(page, schema.resourceFields, { url: page.t('publish.link'), upload: page.t('publish.upload'), name: page.t('common.name'), description: page.t('common.description'), format: page.t('common.format') })
    : undefined

/** Whether a form needs a first, hidden submit button (Enter in a field must save, not add a block). */
export const hasBlocks = (fields: CompiledField[]) => fields.some((f) => f.sub && formKind(f.field) !== null)

// ---- display ----

/** A field's value as its display_snippet shows it (null: nothing to show). */
function Shown({ page, cf, value }: { page: Page; cf: CompiledField; value: unknown }) {
  const f = cf.field
  const kind = displayKind(f)
  if (kind === null || isBlank(value)) return null
  const choices = () => choicesOf(page, f)
  const labelOf = (v: string) => choices().find((c) => c.value === v)?.label ?? v
  switch (kind) {
    case 'fluent_text':
    case 'fluent_markdown':
    case 'fluent_link':
    case 'fluent_tags': {
      const v = fluentPick(page, fluentDict(value, page.deps.config.str('service.locale_default') || 'en'))
      if (isBlank(v)) return null
      if (kind === 'fluent_tags')
        return (
          <ul class="plain">
            {asList(v).map((x) => (
              <li>{x}</li>
            ))}
          </ul>
        )
      const s = asText(v)
      if (kind === 'fluent_markdown') {
        const html = renderMarkdown(s)
        return html ? <Markdown html={html} /> : null
      }
      if (kind === 'fluent_link')
        return /^https?:\/\//i.test(s.trim()) ? (
          <a href={s.trim()} rel="nofollow">
            {s.trim()}
          </a>
        ) : (
          <>{s}</>
        )
      return <>{s}</>
    }
    case 'repeating': {
      const items = (Array.isArray(value) ? value : typeof value === 'string' ? (safeJson(value) as unknown[]) ?? [] : []).filter((x) => x && typeof x === 'object') as Dict[]
      if (!items.length) return null
      const each = localText(page, f.repeating_label) || localText(page, f.label) || f.field_name
      return (
        <ol class="blocks">
          {items.map((item, i) => (
            <li>
              <span class="visually-hidden">
                {each} {i + 1}
              </span>
              <dl class="meta">
                {(cf.sub ?? []).map((sf) => (
                  <Row page={page} cf={sf} value={item[sf.name]} />
                ))}
              </dl>
            </li>
          ))}
        </ol>
      )
    }
    case 'select':
      return <>{labelOf(asText(value))}</>
    case 'multiple_choice': {
      const list = asList(value)
      return (
        <ul class="plain">
          {list.map((v) => (
            <li>{labelOf(v)}</li>
          ))}
        </ul>
      )
    }
    case 'multiple_text':
      return (
        <ul class="plain">
          {asList(value).map((v) => (
            <li>{v}</li>
          ))}
        </ul>
      )
    case 'date':
      return <time datetime={asText(value)}>{page.date(asText(value))}</time>
    case 'datetime':
    case 'datetime_tz':
      return (
        <time datetime={asText(value)}>
          {page.date(asText(value), true)}
          {kind === 'datetime_tz' ? ' UTC' : ''}
        </time>
      )
    case 'json': {
      const v = typeof value === 'string' ? (safeJson(value) ?? value) : value
      return <pre class="json">{typeof v === 'string' ? v : JSON.stringify(v, null, 2)}</pre>
    }
    case 'markdown': {
      const html = renderMarkdown(asText(value))
      return html ? <Markdown html={html} /> : null
    }
    case 'link': {
      const s = asText(value).trim()
      return /^https?:\/\//i.test(s) ? (
        <a href={s} rel="nofollow">
          {s}
        </a>
      ) : (
        <>{s}</>
      )
    }
    case 'email': {
      const s = asText(value).trim()
      return /^[^\s@<>"]+@[^\s@<>"]+$/.test(s) ? <a href={`mailto:${s}`}>{s}</a> : <>{s}</>
    }
    default:
      return <>{asText(value)}</>
  }
}

/** A `<dt>`/`<dd>` pair of one field (null when it has no value or is not shown). */
function Row({ page, cf, value }: { page: Page; cf: CompiledField; value: unknown }) {
  if (displayKind(cf.field) === null || isBlank(value)) return null
  return (
    <>
      <dt>{localText(page, cf.field.label) || cf.name}</dt>
      <dd>
        <Shown page={page} cf={cf} value={value} />
      </dd>
    </>
  )
}

/** The rows of a schema's own fields (not the core ones the page shows already) for its "Additional information" list; `fields`: these (a resource's) instead, but `skip`. */
export function SchemaRows({ page, schema, d, skip, fields }: { page: Page; schema: AnySchema; d: Dict; skip?: Set<string>; fields?: CompiledField[] }) {
  return (
    <>
      {(fields ?? schema.fields)
        .filter((cf) => (fields ? true : !cf.core) && !skip?.has(cf.name))
        .map((cf) => (
          <Row page={page} cf={cf} value={d[cf.name]} />
        ))}
    </>
  )
}
