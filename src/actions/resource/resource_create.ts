// resource_create: adds a resource (link or uploaded file) to the end of a dataset's resource list.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeResourceCreate } from '../../auth/resource'
import { loadPackage } from '../../model/package'
import { requireId, saveResource } from '../../model/resource-write'
import { loadOnResourceWrite } from '../../jobs/loader/enqueue'

export const resourceCreate = defineAction({
  name: 'resource_create',
  readOnly: false,
  // ckan: the dataset is looked up (404) before an anonymous caller is refused
  allowAnonymous: true,
  help: `Add a new resource to a dataset.

You must be allowed to edit the dataset. A file can be uploaded with a multipart/form-data
request that carries it in the "upload" field; the resource then gets url_type "upload" and
the file name as its url. Keys that are not resource fields are kept as extra fields.

:param package_id: the id or name of the dataset to add the resource to
:type package_id: string
:param url: the URL of the resource's data (optional, default: '')
:type url: string
:param id: an id for the new resource, 7 to 100 characters (optional)
:type id: string
:param name: (optional)
:type name: string
:param description: (optional)
:type description: string
:param format: the format, guessed from the URL when not given (optional)
:type format: string
:param hash: (optional)
:type hash: string
:param resource_type: (optional)
:type resource_type: string
:param mimetype: (optional)
:type mimetype: string
:param mimetype_inner: (optional)
:type mimetype_inner: string
:param cache_url: (optional)
:type cache_url: string
:param size: the size in bytes (optional)
:type size: int
:param created: (optional)
:type created: iso date string
:param last_modified: (optional)
:type last_modified: iso date string
:param cache_last_updated: (optional)
:type cache_last_updated: iso date string
:param upload: a file to upload (optional)
:type upload: file
:returns: the new resource
:rtype: dictionary`,
  auth: authorizeResourceCreate,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const pkg = await loadPackage(ctx, requireId(input, 'package_id'))
    return saveResource(ctx, pkg, input, undefined, loadOnResourceWrite)
  },
})
