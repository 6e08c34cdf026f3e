// service.api_compat: read under both spellings, unknown versions refused at load.
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import { apiAtLeast, apiCompat } from '../../src/config/api-compat'
import { isUuidText } from '../../src/validation/fields'

describe('service.api_compat', () => {
  it('defaults to 2.9', () => {
    const config = loadConfig({})
    expect(apiCompat(config)).toBe('2.9')
    expect(apiAtLeast(config, '2.10')).toBe(false)
    expect(apiAtLeast(config, '2.11')).toBe(false)
  })

  it('is read under its ckan. spelling and as an environment variable', () => {
    expect(apiCompat(loadConfig({ 'ckan.api_compat': '2.10' }))).toBe('2.10')
    expect(apiCompat(loadConfig({ CKAN__API_COMPAT: '2.11' }))).toBe('2.11')
    expect(apiCompat(loadConfig({ SERVICE__API_COMPAT: ' 2.11 ' }))).toBe('2.11')
  })

  it('answers whether the site is at least a version', () => {
    const c10 = loadConfig({ 'service.api_compat': '2.10' })
    expect([apiAtLeast(c10, '2.10'), apiAtLeast(c10, '2.11')]).toEqual([true, false])
    const c11 = loadConfig({ 'service.api_compat': '2.11' })
    expect([apiAtLeast(c11, '2.10'), apiAtLeast(c11, '2.11')]).toEqual([true, true])
  })

  it('refuses a version it does not know, naming the allowed ones', () => {
    expect(() => loadConfig({ 'ckan.api_compat': '2.12' })).toThrow(
      'service.api_compat must be one of 2.9, 2.10, 2.11; "2.12" is not one of them',
    )
    expect(() => loadConfig({}).with({ 'service.api_compat': '3' })).toThrow(/must be one of/)
  })
})

describe('isUuidText (the UUID check of ids under 2.11)', () => {
  it('reads what Python uuid.UUID reads', () => {
    for (const ok of [
      '12345678-1234-5678-1234-567812345678',
      '12345678123456781234567812345678',
      '{12345678-1234-5678-1234-567812345678}',
      'urn:uuid:12345678-1234-5678-1234-567812345678',
      'ABCDEF12-1234-5678-1234-567812345678',
    ])
      expect(isUuidText(ok), ok).toBe(true)
    for (const bad of ['', 'my-dataset', '12345678-1234-5678-1234-56781234567', 'g2345678123456781234567812345678', 42])
      expect(isUuidText(bad), String(bad)).toBe(false)
  })
})
