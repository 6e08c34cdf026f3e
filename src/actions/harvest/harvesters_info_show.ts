// harvesters_info_show: the harvesters (source types) this catalogue has.
import { z } from 'zod'
import { defineAction } from '../action'
import { HARVESTERS } from '../../jobs/harvest/registry'

export const harvestersInfoShow = defineAction({
  name: 'harvesters_info_show',
  readOnly: true,
  help: `List the harvesters a source can use (its source_type): name, title, description, and
show_config (whether the source form offers a config box).

:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({}).passthrough(),
  async run() {
    return HARVESTERS.map((h) => ({
      ...h.info,
      show_config: (h.info.form_config_interface ?? '') === 'Text',
    }))
  },
})
