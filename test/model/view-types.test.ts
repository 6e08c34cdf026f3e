// The view type registry: each type's keys, defaults and "can view" rule, and the default types.
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import {
  defaultConfig,
  defaultViewTypes,
  enabledViewType,
  onSameDomain,
  VIEW_TYPES,
  viewEnv,
  type ViewableResource,
} from '../../src/model/view-types'

const config = loadConfig({ 'service.site_url': 'http://site.org' })
const env = viewEnv(config)
const type = (name: string) => VIEW_TYPES.find((t) => t.name === name)!
const res = (r: Partial<ViewableResource>): ViewableResource => ({
  url: 'http://e.com/x',
  format: '',
  url_type: null,
  datastore_active: false,
  ...r,
})
const can = (name: string, r: Partial<ViewableResource>) => type(name).canView(res(r), env)

describe('view types', () => {
  it('declares the six core types, the three of ckanext-geoview and chart_view with their titles, filters and DataStore needs', () => {
    expect(
      VIEW_TYPES.map((t) => [t.name, t.defaultTitle, t.filterable, t.requiresDatastore, Object.keys(t.keys)]),
    ).toEqual([
      ['image_view', 'Image', false, false, ['image_url']],
      ['webpage_view', 'Website', false, false, ['page_url']],
      ['text_view', 'Text', false, false, []],
      ['recline_view', 'Data Explorer', true, false, []],
      ['recline_grid_view', 'Table', true, true, []],
      ['datatables_view', 'Table', true, true, ['responsive', 'show_fields', 'filterable']],
      ['geojson_view', 'GeoJSON', false, false, []],
      ['wms_view', 'WMS', false, false, []],
      ['wmts_view', 'WMTS', false, false, []],
      ['chart_view', 'Chart', false, true, ['chart_type', 'x', 'y', 'group_by', 'aggregate']],
    ])
    expect(defaultConfig(type('datatables_view'))).toEqual({ responsive: false, filterable: true })
    expect(defaultConfig(type('image_view'))).toEqual({})
  })

  it('image_view shows the image formats', () => {
    for (const f of ['PNG', 'jpeg', 'JPG', 'gif']) expect(can('image_view', { format: f })).toBe(true)
    expect(can('image_view', { format: 'svg', url: 'http://e.com/a.png' })).toBe(false)
    const custom = viewEnv(loadConfig({ 'service.preview.image_formats': 'svg' }))
    expect(type('image_view').canView(res({ format: 'SVG' }), custom)).toBe(true)
  })

  it('webpage_view shows HTML by format or by URL extension (case kept)', () => {
    expect(can('webpage_view', { format: 'HTML' })).toBe(true)
    expect(can('webpage_view', { url: 'http://e.com/a.htm' })).toBe(true)
    expect(can('webpage_view', { url: 'http://e.com/a.HTML' })).toBe(false)
  })

  it('text_view shows JSONP anywhere, and text, XML and JSON on the site or through the proxy', () => {
    expect(can('text_view', { format: 'JSONP' })).toBe(true)
    for (const format of ['txt', 'text/plain', 'plain', 'XML', 'rdf', 'atom', 'rss', 'json']) {
      expect(can('text_view', { format })).toBe(false)
      expect(can('text_view', { format, url: 'http://site.org/f' })).toBe(true)
    }
    expect(can('text_view', { format: 'csv', url: 'http://site.org/f' })).toBe(false)
    const proxy = viewEnv(loadConfig({ 'service.plugins': 'resource_proxy' }))
    expect(type('text_view').canView(res({ format: 'json' }), proxy)).toBe(true)
  })

  it('recline_view shows tabular formats and DataStore data; the DataStore types only the latter', () => {
    for (const f of ['CSV', 'xls', 'XLSX', 'ods', 'tsv']) expect(can('recline_view', { format: f })).toBe(true)
    expect(can('recline_view', { format: 'json' })).toBe(false)
    expect(can('recline_view', { datastore_active: true })).toBe(true)
    expect(can('recline_view', { url: 'http://e.com/_datastore_only_resource' })).toBe(true)
    expect(can('recline_grid_view', { format: 'csv' })).toBe(false)
    expect(can('recline_grid_view', { url_type: 'datastore' })).toBe(true)
    expect(can('recline_grid_view', { datastore_active: true })).toBe(true)
    expect(can('datatables_view', { url_type: 'datastore' })).toBe(false)
    expect(can('datatables_view', { datastore_active: true })).toBe(true)
  })

  it('compares domains as CKAN does: scheme, host and port', () => {
    expect(onSameDomain('http://site.org', 'http://SITE.org/a')).toBe(true)
    expect(onSameDomain('http://site.org', 'site.org/a')).toBe(true)
    expect(onSameDomain('http://site.org', 'https://site.org/a')).toBe(false)
    expect(onSameDomain('http://site.org', 'http://site.org:8080/a')).toBe(false)
    expect(onSameDomain('http://site.org', 'http://user@site.org/a')).toBe(true)
    expect(onSameDomain('http://site.org', '/relative/a')).toBe(false)
  })

  it('enables only the configured types and picks the default ones of each pass in order', () => {
    expect(enabledViewType(config, 'image_view')?.name).toBe('image_view')
    expect(enabledViewType(config, 'recline_graph_view')).toBeUndefined()
    const some = loadConfig({ 'service.views.plugins': 'recline_view datatables_view' })
    expect(enabledViewType(some, 'image_view')).toBeUndefined()
    expect(defaultViewTypes(config, false).map((t) => t.name)).toEqual(['image_view', 'recline_view'])
    expect(defaultViewTypes(config, true)).toEqual([])
    const c = loadConfig({ 'service.views.default_views': 'datatables_view text_view image_view' })
    expect(defaultViewTypes(c, false).map((t) => t.name)).toEqual(['text_view', 'image_view'])
    expect(defaultViewTypes(c, true).map((t) => t.name)).toEqual(['datatables_view'])
  })
})
