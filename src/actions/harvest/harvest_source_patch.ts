// harvest_source_patch: only the fields given change (the others are those harvest_source_show gives).
import { sourceWrite } from './harvest_source_update'

export const harvestSourcePatch = sourceWrite({
  name: 'harvest_source_patch',
  intro: 'Patch a harvest source: only the fields given change.',
  merge: true,
})
