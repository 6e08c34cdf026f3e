// organization_autocomplete: organizations whose name or title contains the typed text.
import { autocompleteAction } from '../group/group_autocomplete'

export const organizationAutocomplete = autocompleteAction({
  name: 'organization_autocomplete',
  isOrg: true,
})
