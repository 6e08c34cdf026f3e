// The harvesters (source types) this catalogue has, by name.
import type { Harvester } from './types'
import { ckanHarvester } from './harvesters/ckan'
import { ckanChangesHarvester } from './harvesters/ckan-changes'
import { dcatJsonHarvester } from './harvesters/dcat-json'
import { dcatRdfHarvester } from './harvesters/dcat-rdf'

/** Every harvester; a new one is defined in harvesters/ and added here. */
export const HARVESTERS: Harvester[] = [ckanHarvester, ckanChangesHarvester, dcatRdfHarvester, dcatJsonHarvester]

export const harvesterNamed = (name: string): Harvester | undefined => HARVESTERS.find((h) => h.info.name === name)

export const harvesterNames = (): string[] => HARVESTERS.map((h) => h.info.name)
