// DCAT-US 1.1 (Project Open Data's data.json), what data.gov's harvester reads: the public
// datasets as catalog entries.
import { polygonAsBox } from '../lib/wkt'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined)

/** An extra's value by key (ckanext-datajson's bureau_code, program_code…). */
const extra = (d: Dict, key: string) => str(((d.extras ?? []) as Dict[]).find((e) => e.key === key)?.value)

/**
 * DCAT-US `spatial`: a dataset's `spatial` geometry (GeoJSON, a schema field or an extra) as a
 * bounding box "minx,miny,maxx,maxy" when it is exactly a box polygon, else as GeoJSON text (both
 * forms DCAT-US allows); without a geometry its `spatial_text` place name, if any.
 */
function spatialOf(d: Dict): string | undefined {
  const v = d.spatial ?? extra(d, 'spatial')
  const text = typeof v === 'string' ? str(v) : v && typeof v === 'object' ? JSON.stringify(v) : undefined
  if (text) {
    try {
      const g = JSON.parse(text)
      if (g && typeof g === 'object' && typeof g.type === 'string') {
        const box = polygonAsBox(g)
        return box ? box.join(',') : JSON.stringify(g)
      }
    } catch {
      // not GeoJSON: left out
    }
  }
  return str(d.spatial_text) ?? extra(d, 'spatial_text')
}

export function dataJson(base: string, siteTitle: string, datasets: Dict[], codes: { bureau: string; program: string }) {
  return {
    '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld',
    '@id': `${base}/data.json`,
    '@type': 'dcat:Catalog',
    conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
    describedBy: 'https://project-open-data.cio.gov/v1.1/schema/catalog.json',
    dataset: datasets.map((d) => {
      const email = str(d.maintainer_email) ?? str(d.author_email)
      const dists = ((d.resources ?? []) as Dict[])
        .filter((r) => /^https?:\/\//i.test(String(r.url ?? '')))
        .map((r) => ({
          '@type': 'dcat:Distribution',
          ...(str(r.name) ? { title: r.name } : {}),
          ...(str(r.description) ? { description: r.description } : {}),
          ...(r.url_type === 'upload' || r.url_type === 'datastore' || str(r.mimetype)
            ? { downloadURL: r.url, ...(str(r.mimetype) && /^[-\w.]+\/[-\w.+]+$/.test(r.mimetype) ? { mediaType: r.mimetype } : {}) }
            : { accessURL: r.url }),
          ...(str(r.format) ? { format: r.format } : {}),
        }))
      return {
        '@type': 'dcat:Dataset',
        title: str(d.title) ?? d.name,
        description: str(d.notes) ?? str(d.title) ?? d.name,
        keyword: (d.tags ?? []).length ? d.tags.map((t: Dict) => String(t.name)) : [String(d.name)],
        modified: String(d.metadata_modified ?? d.metadata_created).slice(0, 19) + 'Z',
        publisher: { '@type': 'org:Organization', name: str(d.organization?.title) ?? str(d.organization?.name) ?? siteTitle },
        contactPoint: {
          '@type': 'vcard:Contact',
          fn: str(d.maintainer) ?? str(d.author) ?? str(d.organization?.title) ?? siteTitle,
          hasEmail: `mailto:${email && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) ? email : `no-reply@${new URL(base).hostname}`}`,
        },
        identifier: d.id,
        accessLevel: 'public',
        // federal catalogues: the agency's codes (an extra per dataset, else the site's setting)
        bureauCode: (extra(d, 'bureau_code') ?? codes.bureau).split(',').map((s) => s.trim()).filter(Boolean),
        programCode: (extra(d, 'program_code') ?? codes.program).split(',').map((s) => s.trim()).filter(Boolean),
        ...(str(d.license_url) && /^https?:\/\//.test(d.license_url) ? { license: d.license_url } : {}),
        landingPage: `${base}/dataset/${encodeURIComponent(d.name)}`,
        ...(spatialOf(d) ? { spatial: spatialOf(d) } : {}),
        ...(dists.length ? { distribution: dists } : {}),
      }
    }),
  }
}
