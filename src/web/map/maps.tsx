/** @jsxImportSource hono/jsx */
// The maps of the dataset page ("Dataset extent") and of the search pages ("Filter by area"): an
// SVG drawn on the server (the world's land as an image, the geometry or box over it), readable
// without JavaScript; the map script (client.ts) turns each into an interactive Leaflet map.
import type { Geometry } from 'geojson'
import type { Page } from '../page'
import type { Translate } from '../i18n'
import { FieldError, invalid, type Errors } from '../forms'
import worldAtlas from 'world-atlas/package.json'
import { BBOX_FIELDS, HEIGHT, WIDTH, boundsOf, boxRects, geometryPath, type Bbox } from './geo'

/** Where the land drawings are served: named after the world-atlas version they come from (cached for a year). */
export const WORLD_SVG = `/static/world-atlas-${worldAtlas.version}/land-110m.svg`
export const LAND_GEOJSON = `/static/world-atlas-${worldAtlas.version}/land-110m.geojson`

/**
 * The script map's settings from ckanext-spatial's options: a tile URL only for the custom base
 * layer (type `custom`, or no type) and only when one is set; {} otherwise (no tiles at all).
 */
export function mapConfig(page: Page): { url?: string; subdomains?: string; tms?: boolean; attribution?: string } {
  const c = page.deps.config
  const type = c.str('ckanext.spatial.common_map.type')
  const url = c.str('ckanext.spatial.common_map.custom_url') || c.str('ckanext.spatial.common_map.custom.url')
  if (!url || (type && type !== 'custom') || !/^(https?:)?\/\//.test(url)) return {}
  const out: { url: string; subdomains?: string; tms?: boolean; attribution?: string } = { url }
  if (c.str('ckanext.spatial.common_map.subdomains')) out.subdomains = c.str('ckanext.spatial.common_map.subdomains')
  if (c.bool('ckanext.spatial.common_map.tms')) out.tms = true
  if (c.str('ckanext.spatial.common_map.attribution')) out.attribution = c.str('ckanext.spatial.common_map.attribution')
  return out
}

/** A coordinate as the pages write numbers (in the page's language, three decimals at most). */
const deg = (n: number, page: Page) => page.num(n)

/** A box in words: west, south, east, north. */
export function bboxText(b: Bbox, page: Page): string {
  return page.t('map.bbox', { west: deg(b[0], page), south: deg(b[1], page), east: deg(b[2], page), north: deg(b[3], page) })
}

function Boxes({ bbox }: { bbox: Bbox }) {
  return (
    <>
      {boxRects(bbox).map((r) => (
        <rect class="map-box" x={String(r.x)} y={String(r.y)} width={String(r.width)} height={String(r.height)} />
      ))}
    </>
  )
}

/** The dataset page's map of where its data is, with the bounding box in words. */
export function DatasetMap({ page, geometry }: { page: Page; geometry: Geometry }) {
  const t = page.t
  const bounds = boundsOf(geometry)
  return (
    <section class="map-section" aria-labelledby="map-extent-heading">
      <h2 id="map-extent-heading">{t('map.extent')}</h2>
      <figure class="map" data-map="extent" data-map-label={t('map.extentMap')} data-map-config={JSON.stringify(mapConfig(page))} data-land={LAND_GEOJSON} data-extent={JSON.stringify(geometry)}>
        <svg class="map-svg" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="map-extent-caption">
          <image href={WORLD_SVG} width={String(WIDTH)} height={String(HEIGHT)} />
          <Boxes bbox={bounds} />
          <path class="map-geometry" d={geometryPath(geometry)} />
        </svg>
        <figcaption id="map-extent-caption">{bboxText(bounds, page)}</figcaption>
      </figure>
    </section>
  )
}

/**
 * The search pages' "Filter by area": the active box (with a link that removes it), a map of it,
 * and a form of four numbers that sets it (`ext_bbox`), keeping the page's other parameters.
 */
export function AreaFilter(props: { page: Page; base: string; bbox: Bbox | null; values: Record<string, string>; errors: Errors; keep: [string, string][]; removeHref: string; t: Translate }) {
  const { page, base, bbox, values, errors, keep, removeHref, t } = props
  return (
    <section class="area-filter" aria-labelledby="area-heading">
      <h2 id="area-heading">{t('map.filterByArea')}</h2>
      {bbox ? (
        <p class="area-active">
          {t('map.filtering', { box: bboxText(bbox, page) })}{' '}
          <a href={removeHref}>{t('map.removeArea')}</a>
        </p>
      ) : null}
      <figure class="map" data-map="search" data-form="area-form" data-map-label={t('map.areaMap')} data-draw-label={t('map.draw')} data-map-config={JSON.stringify(mapConfig(page))} data-land={LAND_GEOJSON} data-bbox={bbox ? bbox.join(',') : undefined}>
        <svg class="map-svg" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={bbox ? t('map.areaShown', { box: bboxText(bbox, page) }) : t('map.noArea')}>
          <image href={WORLD_SVG} width={String(WIDTH)} height={String(HEIGHT)} />
          {bbox ? <Boxes bbox={bbox} /> : null}
        </svg>
      </figure>
      <form id="area-form" class="area-form" method="get" action={base}>
        {keep.map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
        <fieldset>
          <legend>{t('map.boxLegend')}</legend>
          {BBOX_FIELDS.map((f) => {
            const name = `_${f}`
            const lat = f === 'south' || f === 'north'
            return (
              <div class="area-part">
                <label for={`area-${f}`}>{t(`map.${f}`)}</label>
                <input id={`area-${f}`} data-part={f} type="number" step="any" min={lat ? '-90' : '-180'} max={lat ? '90' : '180'} name={name} value={values[f] ?? ''} required {...invalid(errors, name)} />
                <FieldError errors={errors} name={name} />
              </div>
            )
          })}
        </fieldset>
        {errors._ ? (
          <p class="field-error" role="alert">
            {errors._.join(' ')}
          </p>
        ) : null}
        <p>
          <button type="submit">{t('map.apply')}</button>
        </p>
      </form>
    </section>
  )
}
