// package_create: a new dataset with its resources, tags, extras and group memberships.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizePackageCreate, packageWritePolicy } from '../../auth/package'
import { createPackage } from '../../model/package-write'

export const packageCreate = defineAction({
  name: 'package_create',
  readOnly: false,
  // ckan: the rule itself decides about anonymous callers (anon_create_dataset)
  allowAnonymous: true,
  help: `Create a new dataset (package).

You must be allowed to create datasets: either in the organization given as owner_org
(editor or admin there), or without an organization when the site allows unowned datasets.
To add the dataset to groups you must be a member of each of them.

:param name: the name of the new dataset: 2 to 100 characters, lowercase letters, digits,
    "-" and "_"; it must not be used by another dataset
:type name: string
:param title: the title of the dataset (optional, default: the name)
:type title: string
:param owner_org: the id or name of the organization that owns the dataset (required unless
    the site allows datasets without an organization)
:type owner_org: string
:param private: whether only members of the organization may see the dataset
    (optional, default: False)
:type private: bool
:param author: (optional)
:type author: string
:param author_email: (optional)
:type author_email: string
:param maintainer: (optional)
:type maintainer: string
:param maintainer_email: (optional)
:type maintainer_email: string
:param license_id: the id of the dataset's license, see license_list (optional)
:type license_id: string
:param notes: a description of the dataset (optional)
:type notes: string
:param url: a URL for the dataset's source (optional)
:type url: string
:param version: at most 100 characters (optional)
:type version: string
:param state: the state of the dataset; only sysadmins may set it on create (optional,
    default: 'active')
:type state: string
:param type: the type of the dataset (optional, default: 'dataset')
:type type: string
:param resources: the dataset's resources, each as for resource_create (optional)
:type resources: list of resource dictionaries
:param tags: the dataset's tags, each with a "name" and optionally a "vocabulary_id"
    (optional)
:type tags: list of tag dictionaries
:param extras: custom fields, each with a "key" and a "value" (optional)
:type extras: list of dictionaries
:param relationships_as_object: relationships where this dataset is the object (optional)
:type relationships_as_object: list of relationship dictionaries
:param relationships_as_subject: relationships where this dataset is the subject (optional)
:type relationships_as_subject: list of relationship dictionaries
:param groups: the groups to add the dataset to, each with an "id" or a "name" (optional)
:type groups: list of dictionaries
:returns: the new dataset, as package_show returns it
:rtype: dictionary`,
  auth: (ctx, input) => authorizePackageCreate(ctx, input),
  params: z.record(z.string(), z.unknown()),
  run: (ctx, _params, input) => createPackage(ctx, input, packageWritePolicy(ctx)),
})
