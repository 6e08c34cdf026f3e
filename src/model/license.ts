// The 15 default licenses of license_list, and the lookups datasets need (title, isopen, url).
interface LicenseDef {
  id: string
  title: string
  url: string
  od: 'approved' | 'not reviewed'
  content?: boolean
  data?: boolean
  generic?: boolean
}

const OD = 'http://www.opendefinition.org/licenses/'

const DEFS: LicenseDef[] = [
  { id: 'notspecified', title: 'License not specified', url: '', od: 'not reviewed', generic: true },
  { id: 'odc-pddl', title: 'Open Data Commons Public Domain Dedication and License (PDDL)', url: OD + 'odc-pddl', od: 'approved', data: true },
  { id: 'odc-odbl', title: 'Open Data Commons Open Database License (ODbL)', url: OD + 'odc-odbl', od: 'approved', data: true },
  { id: 'odc-by', title: 'Open Data Commons Attribution License', url: OD + 'odc-by', od: 'approved', data: true },
  { id: 'cc-zero', title: 'Creative Commons CCZero', url: OD + 'cc-zero', od: 'approved', content: true, data: true },
  { id: 'cc-by', title: 'Creative Commons Attribution', url: OD + 'cc-by', od: 'approved' },
  { id: 'cc-by-sa', title: 'Creative Commons Attribution Share-Alike', url: OD + 'cc-by-sa', od: 'approved', content: true },
  { id: 'gfdl', title: 'GNU Free Documentation License', url: OD + 'gfdl', od: 'approved', content: true },
  { id: 'other-open', title: 'Other (Open)', url: '', od: 'approved', content: true, generic: true },
  { id: 'other-pd', title: 'Other (Public Domain)', url: '', od: 'approved', content: true, generic: true },
  { id: 'other-at', title: 'Other (Attribution)', url: '', od: 'approved', content: true, generic: true },
  { id: 'uk-ogl', title: 'UK Open Government Licence (OGL)', url: 'http://reference.data.gov.uk/id/open-government-licence', od: 'approved', content: true },
  { id: 'cc-nc', title: 'Creative Commons Non-Commercial (Any)', url: 'http://creativecommons.org/licenses/by-nc/2.0/', od: 'not reviewed' },
  { id: 'other-nc', title: 'Other (Non-Commercial)', url: '', od: 'not reviewed', generic: true },
  { id: 'other-closed', title: 'Other (Not Open)', url: '', od: 'not reviewed', generic: true },
]

const py = (b: boolean | undefined) => (b ? 'True' : 'False')

/** license_list items, in CKAN's order and shape (most values are strings). */
export const LICENSES = DEFS.map((d) => ({
  domain_content: py(d.content),
  domain_data: py(d.data),
  domain_software: 'False',
  family: '',
  id: d.id,
  is_generic: py(d.generic),
  maintainer: '',
  od_conformance: d.od,
  osd_conformance: 'not reviewed',
  status: 'active',
  title: d.title,
  url: d.url,
  is_okd_compliant: d.od === 'approved',
  is_osi_compliant: false,
}))

const BY_ID = new Map(DEFS.map((d) => [d.id, d]))

/** The license keys of a dataset dict: license_title, isopen and (for known licenses with a URL) license_url. */
export function licenseFields(licenseId: string | null | undefined): {
  license_title: string | null
  isopen: boolean
  license_url?: string
} {
  if (!licenseId) return { license_title: null, isopen: false }
  const d = BY_ID.get(licenseId)
  if (!d) return { license_title: licenseId, isopen: false }
  const title = d.title.includes('::') ? d.title.split('::').pop()!.trim() : d.title
  return { license_title: title, isopen: d.od === 'approved', ...(d.url ? { license_url: d.url } : {}) }
}
