/** @jsxImportSource hono/jsx */
// The map views on a resource page, drawn on the server so they work without scripts:
// geojson_view (feature count and an SVG of the features), wms_view and wmts_view (the service's
// layers from its GetCapabilities). Each figure carries data-geojson-url / data-service-url (and
// data-view-type) for an interactive map a script may add; errors are shown in the view's place.
import type { Page } from './page'
import { drawGeoJson } from '../lib/geojson-svg'
import { geoJsonPath, resourceGeoJson, serviceLayers } from '../http/geo-data'

type Dict = Record<string, any>
const text = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v))
export const GEO_VIEW_TYPES = ['geojson_view', 'wms_view', 'wmts_view']

/** An http(s) URL as it is, anything else left out (no javascript: in an attribute a script reads). */
const httpUrl = (u: unknown) => (/^https?:\/\//i.test(text(u)) ? text(u) : undefined)
const box = (b: readonly number[]) => b.map((n) => Number(n.toFixed(4))).join(', ')

async function geojsonFigure(page: Page, v: Dict, d: Dict, r: Dict) {
  const t = page.t
  const title = text(v.title) || t('geo.data')
  const url = geoJsonPath(text(d.name) || text(d.id), text(r.id))
  const got = await resourceGeoJson(page.ctx, page.deps, text(r.id))
  if (!got.ok)
    return (
      <figure class="view geo-view" data-view-type="geojson_view">
        <p role="alert">{t('geo.error', { error: got.error })}</p>
        <figcaption>{title}</figcaption>
      </figure>
    )
  const draw = drawGeoJson(got.doc)
  return (
    <figure class="view geo-view" data-view-type="geojson_view" data-geojson-url={url}>
      <svg class="geo-map" viewBox={`0 0 ${draw.width} ${draw.height}`} role="img" aria-label={t('geo.map', { title })} preserveAspectRatio="xMidYMid meet">
        {draw.paths.map((p) =>
          p.area ? (
            <path d={p.d} fill="currentColor" fill-opacity="0.25" fill-rule="evenodd" stroke="currentColor" stroke-width="1" vector-effect="non-scaling-stroke" />
          ) : (
            <path d={p.d} fill="none" stroke="currentColor" stroke-width="1.5" vector-effect="non-scaling-stroke" />
          ),
        )}
        {draw.points.map(([x, y]) => (
          <circle cx={x} cy={y} r="3" fill="currentColor" />
        ))}
      </svg>
      <figcaption>
        {title}: {t('geo.features', { n: draw.features })}
        {draw.bbox ? ` · ${t('geo.extent')}: ${box(draw.bbox)}` : ''}
        {got.rows && got.rows.total > got.rows.shown ? <> · {t('geo.truncated', { n: page.num(got.rows.shown) })}</> : null}
        {got.rows?.skipped ? <> · {t('geo.skipped', { n: got.rows.skipped })}</> : null} · <a href={url}>{t('geo.data')}</a>
      </figcaption>
    </figure>
  )
}

async function serviceFigure(page: Page, v: Dict, r: Dict) {
  const t = page.t
  const service = v.view_type === 'wmts_view' ? 'wmts' : 'wms'
  const title = text(v.title) || service.toUpperCase()
  const got = await serviceLayers(page.deps, r, service)
  if (!got.ok)
    return (
      <figure class="view geo-view" data-view-type={v.view_type}>
        <p role="alert">{t('geo.error', { error: got.error })}</p>
        <figcaption>{title}</figcaption>
      </figure>
    )
  const caps = got.capabilities
  return (
    <figure class="view geo-view" data-view-type={v.view_type} data-service-url={httpUrl(r.url)} data-capabilities-url={httpUrl(got.url)}>
      {caps.layers.length ? (
        <div class="scroll" tabindex={0} role="region" aria-label={`${title}: ${t('geo.layers')}`}>
          <table>
            <caption>
              {t('geo.layers')} ({caps.layers.length})
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('geo.layerName')}</th>
                <th scope="col">{t('geo.layerTitle')}</th>
                <th scope="col">{t('geo.extent')}</th>
              </tr>
            </thead>
            <tbody>
              {caps.layers.map((l) => (
                <tr>
                  <td>
                    <code>{l.name}</code>
                  </td>
                  <td>{l.title}</td>
                  <td>{l.bbox ? box(l.bbox) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>{t('geo.noLayers')}</p>
      )}
      <figcaption>
        {title}: {caps.title || service.toUpperCase()} ({service.toUpperCase()} {caps.version})
      </figcaption>
    </figure>
  )
}

/** The resource's map views, in their order; null when it has none. */
export async function geoViews(page: Page, views: Dict[], d: Dict, r: Dict) {
  const shown = views.filter((v) => GEO_VIEW_TYPES.includes(v.view_type))
  if (!shown.length) return null
  const figures = []
  for (const v of shown) figures.push(v.view_type === 'geojson_view' ? await geojsonFigure(page, v, d, r) : await serviceFigure(page, v, r))
  return <section class="geo-views">{figures}</section>
}
