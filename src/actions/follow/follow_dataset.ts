// follow_dataset: the caller starts following a dataset.
import { followAction } from './follow_user'

export const followDataset = followAction({
  name: 'follow_dataset',
  kind: 'dataset',
  mustLogIn: 'You must be logged in to follow a dataset.',
  example: 'warandpeace',
  note: `A private dataset can be
followed only by those who may read it.`,
})
