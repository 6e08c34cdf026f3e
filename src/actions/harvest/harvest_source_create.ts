// harvest_source_create: a new harvest source (a dataset of type `harvest`), ckanext-harvest's way.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { requireCanCreateSource } from '../../auth/harvest'
import { packageWritePolicy } from '../../auth/package'
import { createPackage } from '../../model/package-write'
import { sourceShowDict, sourceStatus } from '../../model/harvest'
import { sourceDatasetInput } from '../../jobs/harvest/source-input'

export const harvestSourceCreate = defineAction({
  name: 'harvest_source_create',
  readOnly: false,
  help: `Create a new harvest source: a dataset of type "harvest" whose runs bring a remote
catalogue's datasets into this one.

You need package_create's rights in the organization given as owner_org.

:param url: the URL of the remote catalogue (a CKAN site, a DCAT catalogue, a data.json file)
:type url: string
:param name: the name of the new source: 2 to 100 characters, lowercase letters, digits, "-"
    and "_"
:type name: string
:param title: the title of the source (optional, default: the name)
:type title: string
:param notes: a description of the source (optional)
:type notes: string
:param source_type: the harvester to use, one of those harvesters_info_show lists, e.g. "ckan",
    "dcat_rdf", "dcat_json", "ckan_changes"
:type source_type: string
:param frequency: how often the source runs by itself: MANUAL (the default), ALWAYS, HOURLY,
    DAILY, WEEKLY, BIWEEKLY or MONTHLY
:type frequency: string
:param config: the harvester's options as a JSON object (optional)
:type config: string
:param owner_org: the organization the source and its datasets belong to
:type owner_org: string
:returns: the new harvest source
:rtype: dictionary`,
  auth: (ctx, input) => requireCanCreateSource(ctx, input),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { dict, errors } = await sourceDatasetInput(ctx, input)
    delete dict.id
    if (Object.keys(errors).length) throw new ValidationError(errors)
    const created = await createPackage(ctx, dict, packageWritePolicy(ctx))
    return { ...sourceShowDict(created), status: await sourceStatus(ctx, created.id) }
  },
})
