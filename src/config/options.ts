// Every configuration option, declared once: key, type, default, help, runtime-editability.
export type OptionType = 'string' | 'bool' | 'int' | 'list'

export interface OptionDef {
  /** The documented key, spelled with the `service.` prefix where CKAN uses `ckan.`. */
  key: string
  type: OptionType
  default: string | number | boolean | string[] | null
  help: string
  /** Editable at run time through config_option_update (stored in the database). */
  runtimeEditable?: boolean
  /** The only values allowed (a string option); loadConfig refuses any other. */
  choices?: readonly string[]
}

const o = (
  key: string,
  type: OptionType,
  def: OptionDef['default'],
  help: string,
  runtimeEditable = false,
): OptionDef => ({ key, type, default: def, help, runtimeEditable })

export const OPTIONS: OptionDef[] = [
  // Site
  o('service.site_id', 'string', 'default', 'Site identifier; also the name of the site user.'),
  o('service.site_url', 'string', 'http://localhost:5000', 'Public base URL (help links, upload and dump URLs).', true),
  o('service.site_title', 'string', 'CKAN', 'Site title reported by status_show.', true),
  o('service.site_logo', 'string', '/base/images/ckan-logo.png', 'Site logo path or URL.', true),
  o('service.site_description', 'string', '', 'Site description reported by status_show.', true),
  o('service.site_about', 'string', '', 'About text.', true),
  o('service.site_intro_text', 'string', '', 'Front page introduction text.', true),
  o('service.site_custom_css', 'string', '', 'Custom CSS for the web front end.', true),
  o('service.theme', 'string', 'css/main', 'Front-end theme.', true),
  o('service.homepage_style', 'string', '1', 'Front page layout number (positive integer).', true),
  o('logo_upload', 'string', null, 'Uploaded logo (runtime option).', true),
  o('clear_logo_upload', 'string', null, 'Clears the uploaded logo (runtime option).', true),
  o('service.locale_default', 'string', 'en', 'Default locale: the web pages\' language when the URL has no /<locale> prefix and Accept-Language names no offered one.'),
  o('service.locales_offered', 'list', ['en', 'fr', 'de', 'es'], 'Languages the web pages are offered in (of en, fr, de, es): each answers under /<locale>/ and in the language switcher.'),
  {
    ...o('service.api_compat', 'string', '2.9', 'The CKAN version whose Action API the catalogue speaks where versions differ: 2.9, 2.10 or 2.11 (docs/ckan-versions.md lists each difference). Additions of later versions are offered under every setting.'),
    choices: ['2.9', '2.10', '2.11'],
  },
  o('service.api.changed_entities', 'bool', false, 'CKAN 2.12: successful API answers of package_update and the actions that change a dataset through it (package_patch, package_revise, the resource writes, package_resource_reorder) carry changed_entities: {"packages": [ids of the datasets really changed]}.'),
  o('service.hide_version', 'bool', false, 'CKAN 2.10: status_show leaves out ckan_version except for sysadmins.'),
  o('service.plugins', 'list', ['datastore'], 'Enabled plugins, reported by status_show as extensions.'),
  o('email_to', 'string', null, 'Address that receives error e-mails (status_show error_emails_to).'),
  // Metadata schemas (ckanext-scheming's options, spelled as it spells them)
  o('scheming.dataset_schemas', 'list', [], 'Dataset schema files (YAML or JSON; paths, http(s) URLs, or module:path under scheming.module_dir), one per dataset type. Empty: CKAN\'s core dataset schema.'),
  o('scheming.organization_schemas', 'list', [], 'Organization schema files, one per organization type.'),
  o('scheming.group_schemas', 'list', [], 'Group schema files, one per group type.'),
  o('scheming.presets', 'list', ['ckanext.scheming:presets.json'], 'Preset files, later ones overriding earlier ones; ckanext.scheming:presets.json and ckanext.fluent:presets.json are built in.'),
  o('scheming.dataset_fallback', 'bool', false, 'Refuse datasets of a type no schema declares ("Unsupported dataset type"), instead of applying CKAN\'s core schema to them.'),
  o('scheming.choices_helpers', 'string', '', 'A YAML or JSON file naming the choice lists a schema field\'s choices_helper may use: {"helper_name": [{"value": "...", "label": "..."}]} (scheming\'s helpers are Python functions; here they are data).'),
  o('scheming.module_dir', 'string', 'schemas', 'Folder that module:path schema names resolve against: ckanext.example:x.yaml is <folder>/ckanext/example/x.yaml.'),
  // Authorization
  o('service.auth.anon_create_dataset', 'bool', false, 'Anonymous users may create (unowned) datasets.'),
  o('service.auth.create_dataset_if_not_in_organization', 'bool', true, 'Users without an organization role may create datasets.'),
  o('service.auth.create_unowned_dataset', 'bool', true, 'Datasets may have no organization (owner_org optional).'),
  o('service.auth.user_create_groups', 'bool', true, 'Any logged-in user may create groups.'),
  o('service.auth.user_create_organizations', 'bool', true, 'Any logged-in user may create organizations.'),
  o('service.auth.user_delete_groups', 'bool', true, 'Group admins may delete their groups.'),
  o('service.auth.user_delete_organizations', 'bool', true, 'Organization admins may delete their organizations.'),
  o('service.auth.create_user_via_api', 'bool', false, 'Non-sysadmins may call user_create.'),
  o('service.auth.create_user_via_web', 'bool', true, 'Visitors may register an account on the /user/register page.'),
  o('service.auth.roles_that_cascade_to_sub_groups', 'list', ['admin'], 'Organization roles inherited by child organizations.'),
  o('service.auth.public_user_details', 'bool', true, 'Anonymous callers may see user details and member lists.'),
  o('service.auth.public_activity_stream_detail', 'bool', false, 'Readers may see activity data (include_data).'),
  o('service.auth.create_default_api_keys', 'bool', false, 'New users get an API key automatically.'),
  o('service.auth.allow_dataset_collaborators', 'bool', false, 'Users may be given a capacity (member, editor) on single datasets (package_collaborator_*).'),
  o('service.auth.allow_admin_collaborators', 'bool', false, 'Dataset collaborators may also be admins, who manage the other collaborators.'),
  o('service.auth.allow_collaborators_to_change_owner_org', 'bool', false, 'Editor and admin collaborators may move a dataset to another organization (where they may create datasets).'),
  o('service.auth.password_min_length', 'int', null, 'Minimum password length for users. Unset: 4 (CKAN 2.9) under api_compat 2.9, 8 (CKAN 2.10) from 2.10.'),
  o('service.auth.password_hash_iterations', 'int', 100000, 'PBKDF2-SHA256 iterations for new password hashes.'),
  o('service.auth.enable_cookie_auth_in_api', 'bool', true, "CKAN 2.10's option: under service.api_compat 2.10 or 2.11, an /api/ call that no API key or token in its headers authenticates but that carries the web pages' session cookie is made as the signed-in user (a valid key or token wins), and its POSTs must then carry the pages' CSRF token (X-CSRFToken or X-CSRF-Token header, or the _csrf_token form field). False: the API reads keys and tokens only. Under 2.9 the API never reads the cookie, whatever this says."),
  o('apikey_header_name', 'string', 'X-CKAN-API-Key', 'Extra request header that carries the API key.'),
  o('apitoken_header_name', 'string', 'Authorization', 'Request header that carries the API token or key (CKAN 2.11\'s name; apikey_header_name is also read). Authorization, X-CKAN-API-Key and X-SERVICE-API-Key are read too, under every api_compat setting.'),
  o('api_token.jwt.encode.secret', 'string', null, 'Key that signs API tokens (HS256; a "string:" prefix is accepted). Unset: a random key the site keeps in its database.'),
  o('api_token.jwt.decode.secret', 'string', null, 'Key that verifies API tokens (default: the encode key, else the site\'s own key).'),
  o('beaker.session.secret', 'string', null, 'Key that signs the web pages\' session cookies (HS256). Unset: a random key the site keeps in its database.'),
  o('service.http.max_age', 'int', 0, 'Seconds a browser may reuse an anonymous GET answer of a read action without asking (it revalidates with the ETag after).'),
  o('service.http.s_maxage', 'int', 60, 'Seconds a shared cache (a CDN) may serve an anonymous GET answer of a read action; authenticated answers are never shared.'),
  o('ckanext.datajson.bureau_code', 'string', '000:00', 'data.json (DCAT-US 1.1): the OMB bureau code of datasets without a bureau_code extra.'),
  o('ckanext.datajson.program_code', 'string', '000:000', 'data.json (DCAT-US 1.1): the program code of datasets without a program_code extra.'),
  // DCAT (ckanext-dcat's own option names)
  o('ckanext.dcat.enable_rdf_endpoints', 'bool', true, 'DCAT: serve the catalogue and dataset RDF endpoints (/catalog.<format>, /dataset/<id>.<format>).'),
  o('ckanext.dcat.rdf.profiles', 'list', ['euro_dcat_ap_3'], 'DCAT: the profiles of RDF documents when the request names none (euro_dcat_ap, euro_dcat_ap_2, euro_dcat_ap_3, euro_dcat_ap_scheming, euro_health_dcat_ap, dcat_us_3, schemaorg, croissant), separated by spaces.'),
  o('ckanext.dcat.base_uri', 'string', null, 'DCAT: the catalogue URI that dataset and resource URIs start with (default: the site URL).'),
  o('ckanext.dcat.catalog_endpoint', 'string', '/catalog.{_format}', 'DCAT: the path of the catalogue endpoint; starts with / and holds {_format}.'),
  o('ckanext.dcat.output_spatial_format', 'list', ['wkt', 'geojson'], "DCAT: the literals a dataset's `spatial` geometry is written as in locn:geometry, dcat:bbox and dcat:centroid: wkt (gsp:wktLiteral), geojson (the GeoJSON media type), or both (ckanext-dcat's default is wkt alone)."),
  o('ckanext.dcat.datasets_per_page', 'int', 100, 'DCAT: datasets on each page of the catalogue endpoint.'),
  o('ckanext.dcat.enable_content_negotiation', 'bool', false, 'DCAT: answer RDF on / and /dataset/<id> when the Accept header asks for it (text/turtle, text/n3, application/rdf+xml, application/ld+json).'),
  o('ckanext.dcat.structured_data.profiles', 'list', ['schemaorg'], 'DCAT: the profiles of the JSON-LD that dataset pages embed when the structured_data plugin is listed in ckan.plugins.'),
  o('ckanext.dcat.croissant.profiles', 'list', ['croissant'], 'DCAT: the profiles of the Croissant JSON-LD (/dataset/<id>/croissant.jsonld, and dataset pages when the croissant plugin is listed in ckan.plugins).'),
  // Maps (ckanext-spatial's common map options, spelled as it spells them)
  o('ckanext.spatial.common_map.type', 'string', null, 'Maps: the base layer of the script maps on dataset and search pages: custom (tiles from custom_url); unset with custom_url set means custom too. Leaflet-providers names (Stadia, MapBox, ...) are not built in: with one of them, or with no tile URL, the maps draw the world\'s land from the site itself and ask no tile server for anything.'),
  o('ckanext.spatial.common_map.custom_url', 'string', null, 'Maps: the tile URL template of the custom base layer, in Leaflet\'s form ({s} subdomain, {z} zoom, {x} {y} tile), e.g. https://tile.example.org/{z}/{x}/{y}.png. Unset: no tiles.'),
  o('ckanext.spatial.common_map.custom.url', 'string', null, 'Maps: another name of ckanext.spatial.common_map.custom_url (read when that one is unset).'),
  o('ckanext.spatial.common_map.subdomains', 'string', null, 'Maps: the letters that replace {s} in the tile URL, in turn (default abc).'),
  o('ckanext.spatial.common_map.tms', 'bool', false, 'Maps: the tile server numbers rows from the south (TMS) rather than from the north.'),
  o('ckanext.spatial.common_map.attribution', 'string', null, 'Maps: the credit shown on the map for its tiles, as plain text (markup is shown as typed, not interpreted).'),
  o('service.changes.retention_days', 'int', 90, 'How far back changes_list reaches: a cursor older than this is refused (the harvester reads the catalogue again). Older change-log rows are deleted when the search snapshot is next written.'),
  o('who.timeout', 'int', 604800, 'Seconds a web sign-in lasts.'),
  o('service.auth.login_attempts', 'int', 10, 'Failed web sign-ins allowed per user name and per client address in 15 minutes before further attempts are refused.'),
  // Lists and limits
  o('service.search.rows_max', 'int', 1000, 'Upper limit of package_search rows.'),
  o('service.search.shards', 'string', 'auto', 'Workers with the SEARCH_SHARD binding: the search index in this many Durable Objects (0: every isolate holds the whole index), or auto: none up to service.search.local_max_datasets datasets, then the smallest power of two whose objects stay under service.search.shard_heap_mb, switched by the Cron Trigger once the new shards are built. Node keeps its index in process whatever this says.'),
  o('service.search.local_max_datasets', 'int', 10000, 'With service.search.shards = auto: up to this many datasets every Worker isolate holds the index itself (past it, a new isolate would take longer than ~250 ms to load the index for its first search; docs/deploy-cloudflare.md).'),
  o('service.search.shard_heap_mb', 'int', 64, 'With service.search.shards = auto: the heap one search shard object may use (its index and the runtime).'),
  o('search.facets.limit', 'int', 50, 'Default package_search facet.limit.'),
  o('search.facets.default', 'int', 10, 'Facet items shown by default in the web front end.'),
  o('service.search.default_package_sort', 'string', 'score desc, metadata_modified desc', 'Default package_search sort.'),
  o('service.group_and_organization_list_max', 'int', 1000, 'Cap (and default) of group_list/organization_list limit.'),
  o('service.group_and_organization_list_all_fields_max', 'int', 25, 'Cap (and default) of the list limit with all_fields.'),
  o('service.default_group_sort', 'string', 'title', 'Default sort of group_list and organization_list.'),
  o('service.activity_list_limit', 'int', 31, 'Default limit of activity lists.'),
  o('service.activity_list_limit_max', 'int', 100, 'Upper limit of activity lists.'),
  o('service.activity_streams_enabled', 'bool', true, 'Record activity stream items.'),
  o('service.activity_streams_email_notifications', 'bool', false, 'Send activity notification e-mails.'),
  o('service.email_notifications_since', 'string', '2 days', 'send_email_notifications looks back at most this far ("2 days", "4:35:00", "7 days, 3:23:34").'),
  o('service.hide_activity_from_users', 'list', null, 'Users whose activity is hidden from streams (default: the site user).'),
  o('service.extra_resource_fields', 'list', [], 'Extra resource keys that resource_search may query.'),
  o('service.views.default_views', 'list', ['image_view', 'recline_view'], 'View types created for new resources.'),
  o('service.views.plugins', 'list', ['image_view', 'webpage_view', 'text_view', 'recline_view', 'recline_grid_view', 'datatables_view', 'chart_view'], 'Enabled resource view types (CKAN enables each view plugin through ckan.plugins); views of other types are not listed and cannot be created. chart_view (beyond CKAN): charts of a DataStore table saved from the resource page.'),
  o('ckanext.geoview.geojson.max_file_size', 'int', 25 * 1024 * 1024, 'geojson_view: the largest GeoJSON file (bytes) the page reads and draws; a larger one is linked, not drawn (ckanext-geoview\'s option).'),
  o('service.views.geo.timeout', 'int', 10, 'geojson_view, wms_view, wmts_view: seconds allowed for reading a linked GeoJSON file or a service\'s GetCapabilities.'),
  o('service.views.geo.capabilities_max_bytes', 'int', 5 * 1024 * 1024, 'wms_view, wmts_view: the largest GetCapabilities answer (bytes) that is read.'),
  o('service.views.geo.max_rows', 'int', 10000, 'geojson_view of a DataStore table: at most this many rows become features.'),
  o('service.preview.image_formats', 'list', ['png', 'jpeg', 'jpg', 'gif'], 'Resource formats that image_view shows.'),
  o('service.preview.text_formats', 'list', ['text/plain', 'txt', 'plain'], 'Resource formats that text_view shows as plain text (empty: the default).'),
  o('service.preview.xml_formats', 'list', ['xml', 'rdf', 'rdf+xml', 'owl+xml', 'atom', 'rss'], 'Resource formats that text_view shows as XML (empty: the default).'),
  o('service.preview.json_formats', 'list', ['json'], 'Resource formats that text_view shows as JSON (empty: the default).'),
  o('service.preview.jsonp_formats', 'list', ['jsonp'], 'Resource formats that text_view shows as JSONP, from any domain (empty: the default).'),
  // Requests (one parser for every body: JSON, form, multipart fields, query string)
  o('service.max_request_body_mb', 'int', 10, 'Largest request body, in MB, file parts of a multipart body excepted (they have service.max_resource_size and service.max_image_size); larger: 413.'),
  o('service.max_request_depth', 'int', 64, 'Deepest nesting of arrays and objects in a JSON body; deeper: Validation Error.'),
  o('service.max_request_keys', 'int', 100000, 'Most keys of one JSON object, items of one JSON array, or fields of a form, multipart body or query string; more: Validation Error.'),
  o('service.cache.datasets_mb', 'int', 128, 'Memory (MB, estimated) for this process\'s cache of dataset dicts, least recently used first out (16 by default in a Worker isolate).'),
  o('service.action.timeout_ms', 'int', 60000, 'Time budget of one API call: a search (package_search, datastore_search, datastore_search_sql) still running past it stops with a 409 error. On Workers the platform\'s CPU limit applies as well.'),
  o('service.max_request_string_length', 'int', 10485760, 'Longest string value (characters) in a request; longer: Validation Error.'),
  // DataStore
  o('service.datastore.write_url', 'string', '', 'DataStore database URL (default: datastore.db beside an embedded catalogue; env DATASTORE_URL wins).'),
  o('service.datastore.read_url', 'string', '', 'DataStore read location of datastore_search, datastore_search_sql, datastore_info and dumps, with read-only access (default: the write database; env DATASTORE_READ_URL wins, its token DATASTORE_READ_AUTH_TOKEN).'),
  o('service.datastore.default_fts_lang', 'string', 'english', 'Default full-text language of datastore_search.'),
  o('service.datastore.sqlsearch.enabled', 'bool', true, 'Enable datastore_search_sql.'),
  o('service.datastore.search.rows_max', 'int', 32000, 'Upper limit of datastore_search limit.'),
  o('service.datastore.profile.exact_rows', 'int', 200_000, 'Column profiles (datastore_info include_profile): up to this many rows, distinct counts and the most frequent values are exact; above it they are estimated from a sample of about 100,000 rows (an exact profile of 1,000,000 rows takes ~30 s and ~200 MB more memory, the sampled one ~11 s and none).'),
  o('service.datastore.profile.timeout_seconds', 'int', 600, 'How long the job computing a table\'s column profile may run; past it the job fails and the last profile stays.'),
  o('service.datastore.search.rows_default', 'int', 100, 'Default datastore_search limit.'),
  o('service.datastore.search.timeout_ms', 'int', 60000, 'Time limit of one datastore_search (409 "Search took too long"); at most service.action.timeout_ms.'),
  o('service.datastore.aggregate.max_groups', 'int', 10000, 'Most groups one datastore_search with group_by may make: a query that would make more is refused with a Validation Error (its statement stops making groups one past the limit). It bounds the groups the database keeps, sorts and counts for one call; the time limit of datastore_search applies as well.'),
  o('service.datastore.versions.retention', 'string', '', 'Versions kept of each versioned DataStore table (datastore_create versioned: true): empty keeps all, "N" the last N versions, "Nd" the versions of the last N days (with the one current N days ago). Older versions and the row images only they need are deleted after each write to the table; datastore_search as_of one of them is refused.'),
  o('service.datastore.ms_in_timestamp', 'bool', false, 'Timestamps in datastore_search results and dumps keep their milliseconds ("2005-03-01T00:00:00.000"), as CKAN 2.12 shows them by default (ckan.datastore.ms_in_timestamp). Off by default: CKAN 2.9 to 2.11 cut them, and api_compat stops at 2.11.'),
  o('service.datastore.sqlsearch.timeout_ms', 'int', 60000, 'Time limit of one datastore_search_sql query.'),
  o('service.datastore.sqlsearch.allowed_functions', 'list', [], 'The functions datastore_search_sql may call, instead of the built-in list (empty: the built-in list). As in CKAN\'s allowed_functions_file: a name is matched in any case, a "double-quoted" name only as spelt.'),
  // Storage
  o('service.storage_path', 'string', './data/uploads', 'Directory of uploaded files on Node (keys such as resources/<id>/<file> below it).'),
  o('service.max_resource_size', 'int', 10, 'Largest accepted resource upload, in MB (CKAN: ckan.max_resource_size).'),
  o('service.max_image_size', 'int', 2, 'Largest accepted user/group/organization image, in MB (CKAN: ckan.max_image_size).'),
  {
    ...o('service.mimetype_guess', 'string', 'file_ext', 'How a resource without a given mimetype gets one: file_ext (from its URL\'s or uploaded file\'s extension), file_contents (from an uploaded file\'s first bytes), none (CKAN: ckan.mimetype_guess).'),
    choices: ['file_ext', 'file_contents', 'none'],
  },
  o('service.upload.user.types', 'list', ['image'], 'Top-level media types accepted as user images (image_upload), judged from the content; "*" first: any. Both this and .mimetypes empty: any file under api_compat 2.9, no uploads from 2.10 (CKAN: ckan.upload.user.types).'),
  o('service.upload.user.mimetypes', 'list', ['image/png', 'image/gif', 'image/jpeg'], 'Media types accepted as user images, judged from the content (from api_compat 2.10 also the file name\'s and the declared type); "*" first: any (CKAN: ckan.upload.user.mimetypes).'),
  o('service.upload.group.types', 'list', ['image'], 'Top-level media types accepted as group and organization images (image_upload), judged from the content; "*" first: any. Both this and .mimetypes empty: any file under api_compat 2.9, no uploads from 2.10 (CKAN: ckan.upload.group.types).'),
  o('service.upload.group.mimetypes', 'list', ['image/png', 'image/gif', 'image/jpeg'], 'Media types accepted as group and organization images, judged from the content (from api_compat 2.10 also the file name\'s and the declared type); "*" first: any (CKAN: ckan.upload.group.mimetypes).'),
  // Loader (ckanext-xloader's job, built in)
  o('service.loader.allow_private_urls', 'bool', false, 'Let the loader fetch linked files from loopback, link-local and private addresses (off: refused, so the catalogue cannot probe its own network).'),
  o('service.loader.max_content_length', 'int', 1_000_000_000, 'Largest linked file the loader fetches, in bytes (ckanext.xloader.max_content_length).'),
  // Background jobs (Node runners: the server's own and `npm run worker`; the Worker's Cron Trigger)
  o('service.harvest.page_size', 'int', 1000, 'Harvesting: datasets asked for per page of a remote catalogue (package_search rows, changes_list limit).'),
  o('service.harvest.timeout_seconds', 'int', 30, 'Harvesting: how long one request to a remote catalogue may take before it counts as failed.'),
  o('service.harvest.max_objects', 'int', 100_000, 'Harvesting: most remote datasets one run gathers; a source with more is listed only this far (the job report says so).'),
  o('service.harvest.max_bytes', 'int', 50_000_000, 'Harvesting: largest response (one page or document) a run reads from a remote catalogue, in bytes.'),
  o('service.harvest.import_concurrency', 'int', 8, 'Harvesting: datasets a run writes at once (their writes share group commits on Node).'),
  o('service.harvest.schedule_seconds', 'int', 60, 'Harvesting: how often the Node server looks for sources whose frequency makes them due (0: never; Workers look at every Cron Trigger).'),
  o('service.backup.dir', 'string', '', 'Node: a directory where the server makes backups on a schedule (npm run admin -- backup, run as a background job); empty: no scheduled backups.'),
  o('service.backup.interval_hours', 'int', 24, 'Node, with service.backup.dir: hours between scheduled backups.'),
  o('service.backup.keep', 'int', 7, 'Node, with service.backup.dir: backups kept there (the oldest go after each new one).'),
  o('service.webhooks.allow_private_urls', 'bool', false, 'Webhooks (beyond CKAN): allow webhook URLs on loopback, link-local and private addresses (refused by default: the SSRF guard).'),
  o('service.webhooks.retry_seconds', 'list', ['5', '300', '1800', '7200', '18000', '36000', '36000'], 'Webhooks: the pause before each retry of a failed delivery, in seconds (Standard Webhooks\' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, a little more than a day in all); after the last the delivery is failed.'),
  o('service.webhooks.disable_after_days', 'int', 5, 'Webhooks: a webhook whose deliveries have failed this many days without a success is turned off, and its owner told by e-mail.'),
  o('service.webhooks.concurrency', 'int', 16, 'Webhooks: how many webhooks a delivery run sends to at once (each one\'s events one after another, in order).'),
  o('service.webhooks.keep_days', 'int', 30, 'Webhooks: how long the record of a settled (delivered or failed) delivery is kept; 0: for ever.'),
  o('service.webhooks.poll_seconds', 'int', 5, 'Webhooks: how often the Node server queues a delivery run while a webhook is active (Workers: each Cron Trigger).'),
  // Rate limits (beyond CKAN): fixed windows per caller and class of request
  o('service.ratelimit.enabled', 'bool', false, 'Rate limits (beyond CKAN): count API, MCP, download and dump requests per caller (an API token or key, a signed-in user, an anonymous address) and class, and answer 429 past the limit (docs/api.md "Rate limits").'),
  o('service.ratelimit.window_seconds', 'int', 60, 'Rate limits: the length of a window; each limit below is a number of requests per window.'),
  o('service.ratelimit.reads', 'int', 1200, 'Rate limits: read actions (show, list, DataStore reads), downloads and dumps per window of a signed-in caller (0: no limit).'),
  o('service.ratelimit.searches', 'int', 300, 'Rate limits: searches (*_search, *_autocomplete) per window of a signed-in caller (0: no limit).'),
  o('service.ratelimit.writes', 'int', 120, 'Rate limits: write actions per window of a signed-in caller (0: no limit).'),
  o('service.ratelimit.datastore_sql', 'int', 60, 'Rate limits: datastore_search_sql calls per window of a signed-in caller (0: no limit).'),
  o('service.ratelimit.uploads', 'int', 20, 'Rate limits: writes that carry a file (multipart posts) per window of a signed-in caller (0: no limit).'),
  o('service.ratelimit.anonymous.reads', 'int', 600, 'Rate limits: reads per window of one anonymous address (0: no limit).'),
  o('service.ratelimit.anonymous.searches', 'int', 120, 'Rate limits: searches per window of one anonymous address (0: no limit).'),
  o('service.ratelimit.anonymous.writes', 'int', 30, 'Rate limits: writes per window of one anonymous address (0: no limit).'),
  o('service.ratelimit.anonymous.datastore_sql', 'int', 30, 'Rate limits: datastore_search_sql calls per window of one anonymous address (0: no limit).'),
  o('service.ratelimit.anonymous.uploads', 'int', 5, 'Rate limits: uploads per window of one anonymous address (0: no limit).'),
  o('service.ratelimit.sysadmins', 'bool', false, 'Rate limits: count sysadmins too (by default they are exempt).'),
  o('service.ratelimit.client_address_header', 'string', '', 'Rate limits and usage figures, behind a reverse proxy on Node: the header naming the client address (e.g. X-Forwarded-For; its last address, the one the nearest proxy added). Empty: the socket\'s address on Node, CF-Connecting-IP on Workers.'),
  // Usage figures (CKAN's tracking, counted in memory and flushed in batches)
  o('service.tracking_enabled', 'bool', false, 'Usage figures (CKAN\'s ckan.tracking_enabled): count dataset and resource page views, API reads and downloads (bots left out by user agent, no addresses kept), for tracking_summary, the views_recent/views_total sorts, the "Popular" sort and the usage page (docs/usage.md).'),
  o('service.tracking.flush_seconds', 'int', 10, 'Usage figures: how often counts kept in memory are written to the database in one batch (Workers: by the first request after that long).'),
  o('service.tracking.recent_days', 'int', 14, 'Usage figures: the days "recent" covers (CKAN: 14).'),
  o('service.tracking.bot_user_agents', 'string', 'bot|crawl|spider|slurp|scrape|preview|monitor|uptime|pingdom|headless|lighthouse|facebookexternalhit|archive', 'Usage figures: a regular expression (case-insensitive) of user agents not counted; requests without a user agent are not counted either.'),
  o('service.jobs.concurrency', 'int', 2, 'Jobs the Node server runs at once in its own process (2: a quick job is not held behind one long load); 0: none (run `npm run worker` instead). `npm run worker` runs this many too (at least 1).'),
  o('service.jobs.queues', 'list', ['default'], 'Queues the runners take jobs from (oldest job first across them).'),
  o('service.jobs.lease_seconds', 'int', 300, 'How long a claimed job stays with its runner without a renewal (renewed every half of it); a dead runner\'s job runs again once it expires.'),
  o('service.jobs.poll_ms', 'int', 1000, 'Pause of a Node runner between polls of an empty queue.'),
  o('service.jobs.cron_budget_seconds', 'int', 25, 'Workers: how long one Cron Trigger run keeps claiming jobs.'),
  // E-mail (CKAN's own keys, without a ckan. prefix)
  o('smtp.server', 'string', null, 'SMTP server as host or host:port (port 25 by default); unset: no e-mail is sent.'),
  o('smtp.starttls', 'bool', false, 'Require STARTTLS (fail when the server does not offer it); off: plain SMTP.'),
  o('smtp.user', 'string', null, 'SMTP login name (needs smtp.password).'),
  o('smtp.password', 'string', null, 'SMTP password.'),
  o('smtp.mail_from', 'string', null, 'Sender address of e-mails; the site title is the sender name.'),
  o('smtp.reply_to', 'string', null, 'Reply-To address of e-mails.'),
]

export const OPTIONS_BY_KEY = new Map(OPTIONS.map((d) => [d.key, d]))

/**
 * The canonical key for a spelling a client or the environment used: `ckan.x` and
 * `service.x` name the same option.
 */
export function canonicalKey(key: string): string {
  if (OPTIONS_BY_KEY.has(key)) return key
  if (key.startsWith('ckan.')) {
    const alt = 'service.' + key.slice(5)
    if (OPTIONS_BY_KEY.has(alt)) return alt
  }
  return key
}

/** The spelling CKAN clients use on the wire (`ckan.` prefix). */
export function wireKey(key: string): string {
  return key.startsWith('service.') ? 'ckan.' + key.slice(8) : key
}
