// The presets a site's `scheming.presets` names by module path: ckanext-scheming's default set
// (`ckanext.scheming:presets.json`), ckanext-fluent's (`ckanext.fluent:presets.json`) and
// ckanext-dcat's (`ckanext.dcat.schemas:presets.yaml`), with the
// same names, validators and snippets, so schema files written for them load unchanged.

type Values = Record<string, unknown>
const p = (preset_name: string, values: Values) => ({ preset_name, values })

const SCHEMING = [
  p('title', {
    validators: 'if_empty_same_as(name) unicode_safe',
    form_snippet: 'large_text.html',
    form_attrs: { 'data-module': 'slug-preview-target' },
  }),
  p('dataset_slug', {
    validators: 'not_empty unicode_safe name_validator package_name_validator',
    form_snippet: 'slug.html',
  }),
  p('tag_string_autocomplete', {
    validators: 'ignore_missing tag_string_convert',
    classes: ['control-full'],
    form_attrs: {
      'data-module': 'autocomplete',
      'data-module-tags': '',
      'data-module-source': '/api/2/util/tag/autocomplete?incomplete=?',
      class: '',
    },
  }),
  p('dataset_organization', { validators: 'owner_org_validator unicode_safe', form_snippet: 'organization.html' }),
  p('resource_url_upload', {
    validators: 'ignore_missing unicode_safe remove_whitespace',
    form_snippet: 'upload.html',
    form_placeholder: 'http://example.com/my-data.csv',
    upload_field: 'upload',
    upload_clear: 'clear_upload',
    upload_label: 'File',
  }),
  p('organization_url_upload', {
    validators: 'ignore_missing unicode_safe remove_whitespace',
    form_snippet: 'organization_upload.html',
    form_placeholder: 'http://example.com/my-data.csv',
  }),
  p('resource_format_autocomplete', {
    validators: 'if_empty_guess_format ignore_missing clean_format unicode_safe',
    form_placeholder: 'eg. CSV, XML or JSON',
    form_attrs: {
      'data-module': 'autocomplete',
      'data-module-source': '/api/2/util/resource/format_autocomplete?incomplete=?',
    },
  }),
  p('select', { form_snippet: 'select.html', display_snippet: 'select.html', validators: 'scheming_required scheming_choices' }),
  p('multiple_checkbox', {
    form_snippet: 'multiple_checkbox.html',
    display_snippet: 'multiple_choice.html',
    validators: 'scheming_multiple_choice',
    output_validators: 'scheming_multiple_choice_output',
  }),
  p('multiple_select', {
    form_snippet: 'multiple_select.html',
    display_snippet: 'multiple_choice.html',
    validators: 'scheming_multiple_choice',
    output_validators: 'scheming_multiple_choice_output',
  }),
  p('date', { form_snippet: 'date.html', display_snippet: 'date.html', validators: 'scheming_required isodate convert_to_json_if_date' }),
  p('datetime', {
    form_snippet: 'datetime.html',
    display_snippet: 'datetime.html',
    validators: 'scheming_isodatetime convert_to_json_if_datetime',
  }),
  p('datetime_tz', {
    form_snippet: 'datetime_tz.html',
    display_snippet: 'datetime_tz.html',
    validators: 'scheming_isodatetime_tz convert_to_json_if_datetime',
  }),
  p('json_object', {
    validators: 'scheming_required scheming_valid_json_object',
    output_validators: 'scheming_load_json',
    form_snippet: 'json.html',
    display_snippet: 'json.html',
  }),
  p('multiple_text', {
    form_snippet: 'multiple_text.html',
    display_snippet: 'multiple_text.html',
    validators: 'scheming_multiple_text',
    output_validators: 'scheming_load_json',
  }),
  p('markdown', { form_snippet: 'markdown.html', display_snippet: 'markdown.html' }),
  p('radio', { form_snippet: 'radio.html', display_snippet: 'select.html', validators: 'scheming_required scheming_choices' }),
]

const fluent = (name: string, snippet: string, display: string, validators: string, output: string, extra: Values = {}) =>
  p(name, { form_snippet: snippet, display_snippet: display, error_snippet: 'fluent_text.html', validators, output_validators: output, ...extra })

const FLUENT = [
  fluent('fluent_core_translated', 'fluent_text.html', 'fluent_text.html', 'fluent_text', 'fluent_core_translated_output'),
  fluent('fluent_text', 'fluent_text.html', 'fluent_text.html', 'fluent_text', 'fluent_text_output'),
  fluent('fluent_tags', 'fluent_tags.html', 'fluent_tags.html', 'fluent_tags', 'fluent_tags_output', {
    form_attrs: { style: 'width: 100%', class: 'form-control' },
  }),
  fluent('fluent_markdown', 'fluent_markdown.html', 'fluent_markdown.html', 'fluent_text', 'fluent_text_output'),
  fluent('fluent_link', 'fluent_text.html', 'fluent_link.html', 'fluent_text', 'fluent_text_output'),
]

// ckanext-dcat's presets file, which its DCAT-AP schemas (dcat_ap_full.yaml and the others) use
const DCAT = [
  p('dcat_date', { form_snippet: 'date.html', display_snippet: 'dcat_date.html', validators: 'ignore_missing dcat_date convert_to_json_if_datetime' }),
  p('cr_title', { validators: 'not_empty unicode_safe', form_snippet: 'large_text.html', form_attrs: { 'data-module': 'slug-preview-target' } }),
]

/** The preset files known by their module path, as the `presets` list of a presets file. */
export const BUILTIN_PRESETS: Record<string, { preset_name: string; values: Values }[]> = {
  'ckanext.scheming:presets.json': SCHEMING,
  'ckanext.fluent:presets.json': FLUENT,
  'ckanext.dcat.schemas:presets.yaml': DCAT,
}

/** scheming's default for `scheming.presets`. */
export const DEFAULT_PRESETS = 'ckanext.scheming:presets.json'
