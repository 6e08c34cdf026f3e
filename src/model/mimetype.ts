// Mimetype guessing from a URL or file name, as CKAN does with Python's mimetypes.guess_type.

/**
 * Extension → mimetype: Python's built-in table plus the system table (/etc/mime.types) a usual
 * CKAN deployment on Debian or Ubuntu reads, so `xml` is application/xml and `xlsx` is known.
 * Parquet has no entry there; its IANA type (registered 2024) is used.
 */
const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  text: 'text/plain',
  json: 'application/json',
  jsonld: 'application/ld+json',
  geojson: 'application/geo+json',
  xml: 'application/xml',
  xsd: 'application/xml',
  rdf: 'application/rdf+xml',
  ttl: 'text/turtle',
  n3: 'text/n3',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  md: 'text/markdown',
  ics: 'text/calendar',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odt: 'application/vnd.oasis.opendocument.text',
  odp: 'application/vnd.oasis.opendocument.presentation',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  rtf: 'application/rtf',
  pdf: 'application/pdf',
  zip: 'application/zip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
  kml: 'application/vnd.google-earth.kml+xml',
  kmz: 'application/vnd.google-earth.kmz',
  gml: 'application/gml+xml',
  atom: 'application/atom+xml',
  rss: 'application/x-rss+xml',
  sql: 'application/sql',
  nc: 'application/x-netcdf',
  hdf: 'application/x-hdf',
  h5: 'application/x-hdf5',
  parquet: 'application/vnd.apache.parquet',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
}

// Python's suffix_map: a short name for a compressed file, and its encodings_map.
const SUFFIXES: Record<string, string> = {
  tgz: '.tar.gz',
  taz: '.tar.gz',
  tz: '.tar.gz',
  tbz2: '.tar.bz2',
  txz: '.tar.xz',
  svgz: '.svg.gz',
}
const ENCODINGS = new Set(['gz', 'z', 'bz2', 'xz', 'br'])

/** The extension of the last path segment, without the dot ('' if none); like posixpath.splitext. */
function splitExt(path: string): [string, string] {
  const slash = path.lastIndexOf('/')
  const dot = path.lastIndexOf('.')
  // ckan/python: leading dots of the last segment do not start an extension
  if (dot <= slash || /^\.*$/.test(path.slice(slash + 1, dot))) return [path, '']
  return [path.slice(0, dot), path.slice(dot + 1)]
}

/**
 * Python's mimetypes.guess_type(url)[0]: the type of the URL's (or file name's) extension, looking
 * through a compression suffix (data.csv.gz is text/csv), or null. The whole text after the scheme
 * counts, so a query string or fragment defeats the guess, as in CKAN.
 */
export function guessMimetype(url: string): string | null {
  let [base, ext] = splitExt(url.replace(/^[a-z][a-z0-9+.-]*:/i, ''))
  const suffix = SUFFIXES[ext] ?? SUFFIXES[ext.toLowerCase()]
  if (suffix) [base, ext] = splitExt(base + suffix)
  if (ENCODINGS.has(ext) || ENCODINGS.has(ext.toLowerCase())) [base, ext] = splitExt(base)
  return TYPES[ext] ?? TYPES[ext.toLowerCase()] ?? null
}

/**
 * ckan (ckan.mimetype_guess = file_ext): a resource given without a mimetype gets the guess from
 * its URL when the URL has a path; `http://example.com` has none.
 */
export function guessResourceMimetype(url: string): string | null {
  if (!url) return null
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(url)
  const path = m ? m[1]!.replace(/[?#].*$/, '') : url
  return path ? guessMimetype(url) : null
}
