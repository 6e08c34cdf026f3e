// The metadata schemas (test/fixtures/scheming/) the OpenAPI and MCP tests turn on: the same set
// as test/scheming/datasets.test.ts's SCHEMING (copied: importing a test file would run its tests).
const F = 'test/fixtures/scheming/'
export const SCHEMING = {
  'scheming.dataset_schemas': ['dataset.yaml', 'river-photos.yaml', 'monitoring-stations.yaml', 'dcat-ap.yaml', 'fluent.yaml']
    .map((f) => F + f)
    .join(' '),
  'scheming.organization_schemas': `${F}org-with-address.json`,
  'scheming.group_schemas': `${F}group-with-status.json`,
  'scheming.presets': `ckanext.scheming:presets.json ckanext.fluent:presets.json ${F}presets-extra.json`,
  'scheming.choices_helpers': `${F}choices-helpers.yaml`,
}
