// Resource formats: canonical short names, guessed from URLs and file names, looked up leniently.

interface FormatDef {
  /** Canonical short name, as stored and shown. */
  name: string
  /** Usual mimetype first; all are lookup keys. */
  mimetypes: string[]
  /** File extensions (without dot) that identify the format in a URL or file name. */
  ext: string[]
  /** Other names clients send for it (matched case-insensitively). */
  aliases?: string[]
}

const FORMATS: FormatDef[] = [
  {
    name: 'CSV',
    mimetypes: ['text/csv', 'text/comma-separated-values'],
    ext: ['csv'],
    aliases: ['comma separated values'],
  },
  {
    name: 'TSV',
    mimetypes: ['text/tab-separated-values'],
    ext: ['tsv'],
    aliases: ['tab separated values'],
  },
  { name: 'TXT', mimetypes: ['text/plain'], ext: ['txt', 'text'], aliases: ['text file'] },
  {
    name: 'JSON',
    mimetypes: ['application/json'],
    ext: ['json'],
    aliases: ['javascript object notation'],
  },
  { name: 'JSON-LD', mimetypes: ['application/ld+json'], ext: ['jsonld'], aliases: ['jsonld'] },
  {
    name: 'GeoJSON',
    mimetypes: ['application/geo+json', 'application/vnd.geo+json'],
    ext: ['geojson'],
    aliases: ['geo json'],
  },
  {
    name: 'XML',
    mimetypes: ['application/xml', 'text/xml'],
    ext: ['xml'],
    aliases: ['extensible markup language'],
  },
  {
    name: 'HTML',
    mimetypes: ['text/html'],
    ext: ['html', 'htm'],
    aliases: ['htm', 'web page', 'webpage'],
  },
  {
    name: 'XLS',
    mimetypes: ['application/vnd.ms-excel'],
    ext: ['xls'],
    aliases: ['excel', 'ms excel'],
  },
  {
    name: 'XLSX',
    mimetypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ext: ['xlsx'],
    aliases: ['excel ooxml'],
  },
  {
    name: 'ODS',
    mimetypes: ['application/vnd.oasis.opendocument.spreadsheet'],
    ext: ['ods'],
    aliases: ['opendocument spreadsheet'],
  },
  { name: 'DOC', mimetypes: ['application/msword'], ext: ['doc'], aliases: ['word'] },
  {
    name: 'DOCX',
    mimetypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ext: ['docx'],
  },
  { name: 'ODT', mimetypes: ['application/vnd.oasis.opendocument.text'], ext: ['odt'] },
  {
    name: 'PPT',
    mimetypes: ['application/vnd.ms-powerpoint'],
    ext: ['ppt'],
    aliases: ['powerpoint'],
  },
  {
    name: 'PPTX',
    mimetypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    ext: ['pptx'],
  },
  { name: 'ODP', mimetypes: ['application/vnd.oasis.opendocument.presentation'], ext: ['odp'] },
  {
    name: 'PDF',
    mimetypes: ['application/pdf'],
    ext: ['pdf'],
    aliases: ['portable document format'],
  },
  { name: 'RTF', mimetypes: ['application/rtf', 'text/rtf'], ext: ['rtf'] },
  { name: 'ZIP', mimetypes: ['application/zip', 'application/x-zip-compressed'], ext: ['zip'] },
  { name: 'TAR', mimetypes: ['application/x-tar'], ext: ['tar'] },
  { name: 'GZ', mimetypes: ['application/gzip', 'application/x-gzip'], ext: [], aliases: ['gzip'] },
  { name: '7Z', mimetypes: ['application/x-7z-compressed'], ext: ['7z'] },
  { name: 'RAR', mimetypes: ['application/vnd.rar', 'application/x-rar-compressed'], ext: ['rar'] },
  { name: 'PNG', mimetypes: ['image/png'], ext: ['png'] },
  { name: 'JPEG', mimetypes: ['image/jpeg'], ext: ['jpg', 'jpeg', 'jpe'], aliases: ['jpg'] },
  { name: 'GIF', mimetypes: ['image/gif'], ext: ['gif'] },
  { name: 'BMP', mimetypes: ['image/bmp'], ext: ['bmp'] },
  { name: 'TIFF', mimetypes: ['image/tiff'], ext: ['tif', 'tiff'], aliases: ['tif'] },
  { name: 'SVG', mimetypes: ['image/svg+xml'], ext: ['svg'] },
  { name: 'GeoTIFF', mimetypes: ['image/tiff; application=geotiff'], ext: [], aliases: ['geotif'] },
  {
    name: 'KML',
    mimetypes: ['application/vnd.google-earth.kml+xml'],
    ext: ['kml'],
    aliases: ['keyhole markup language'],
  },
  { name: 'KMZ', mimetypes: ['application/vnd.google-earth.kmz'], ext: ['kmz'] },
  {
    name: 'SHP',
    mimetypes: ['application/x-esri-shape'],
    ext: ['shp'],
    aliases: ['shapefile', 'esri shapefile', 'esri shape'],
  },
  {
    name: 'GML',
    mimetypes: ['application/gml+xml'],
    ext: ['gml'],
    aliases: ['geography markup language'],
  },
  { name: 'GPX', mimetypes: ['application/gpx+xml'], ext: ['gpx'] },
  {
    name: 'WMS',
    mimetypes: ['application/vnd.ogc.wms_xml'],
    ext: [],
    aliases: ['web map service'],
  },
  { name: 'WFS', mimetypes: [], ext: [], aliases: ['web feature service'] },
  { name: 'WCS', mimetypes: [], ext: [], aliases: ['web coverage service'] },
  { name: 'Esri REST', mimetypes: [], ext: [], aliases: ['esri rest api', 'arcgis rest'] },
  { name: 'RDF', mimetypes: ['application/rdf+xml'], ext: ['rdf'], aliases: ['rdf/xml'] },
  { name: 'TTL', mimetypes: ['text/turtle'], ext: ['ttl'], aliases: ['turtle'] },
  { name: 'N3', mimetypes: ['text/n3'], ext: ['n3'], aliases: ['notation3'] },
  {
    name: 'SPARQL',
    mimetypes: ['application/sparql-results+xml'],
    ext: [],
    aliases: ['sparql endpoint'],
  },
  { name: 'RSS', mimetypes: ['application/rss+xml'], ext: ['rss'] },
  { name: 'Atom Feed', mimetypes: ['application/atom+xml'], ext: ['atom'], aliases: ['atom'] },
  { name: 'iCal', mimetypes: ['text/calendar'], ext: ['ics', 'ical'], aliases: ['ics'] },
  { name: 'SQL', mimetypes: ['application/sql'], ext: ['sql'] },
  { name: 'MDB', mimetypes: ['application/x-msaccess'], ext: ['mdb'], aliases: ['access'] },
  {
    name: 'NetCDF',
    mimetypes: ['application/netcdf', 'application/x-netcdf'],
    ext: ['nc'],
    aliases: ['nc'],
  },
  { name: 'HDF', mimetypes: ['application/x-hdf'], ext: ['hdf', 'h5'] },
  { name: 'Parquet', mimetypes: ['application/vnd.apache.parquet'], ext: ['parquet'] },
  { name: 'API', mimetypes: [], ext: [], aliases: ['application programming interface'] },
  { name: 'MP3', mimetypes: ['audio/mpeg'], ext: ['mp3'] },
  { name: 'MP4', mimetypes: ['video/mp4'], ext: ['mp4'] },
]

const BY_KEY = new Map<string, FormatDef>()
const BY_EXT = new Map<string, FormatDef>()
for (const f of FORMATS) {
  for (const k of [f.name, ...f.mimetypes, ...(f.aliases ?? [])]) BY_KEY.set(k.toLowerCase(), f)
  for (const e of f.ext) {
    BY_EXT.set(e, f)
    if (!BY_KEY.has(e)) BY_KEY.set(e, f)
  }
}

/** ckan: a known format (by name, mimetype or alias, any case) becomes its short name; others stay as given. */
export function canonicalFormat(format: string): string {
  return BY_KEY.get(format.toLowerCase())?.name ?? format
}

// Compression suffixes that a mimetype guess looks through (data.csv.gz is CSV).
const ENCODINGS = new Set(['gz', 'bz2', 'xz', 'br', 'z'])

function extensionOf(path: string): string | undefined {
  let rest = path
  for (;;) {
    const slash = rest.lastIndexOf('/')
    const dot = rest.lastIndexOf('.')
    if (dot <= slash + 1) return undefined
    const ext = rest.slice(dot + 1).toLowerCase()
    if (!ENCODINGS.has(ext)) return ext
    rest = rest.slice(0, dot)
  }
}

/**
 * ckan: the format guessed from a URL's file extension, or undefined. Like a mimetype guess,
 * it looks at the whole text after the scheme, so a query string or fragment defeats it.
 */
export function guessFormat(url: string): string | undefined {
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:/i, '')
  const ext = extensionOf(afterScheme)
  return ext === undefined ? undefined : BY_EXT.get(ext)?.name
}

