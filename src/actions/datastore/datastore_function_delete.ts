// datastore_function_delete: removes a trigger function (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { datastoreOf } from '../../datastore/access'
import { deleteFunctionStmt, findFunction, noSuchFunction } from '../../datastore/functions'
import { ckanBool, reqString } from '../../validation/fields'

export const datastoreFunctionDelete = defineAction({
  name: 'datastore_function_delete',
  readOnly: false,
  auth: 'sysadmin',
  // ckan: @logic.validate runs the schema before the access check
  validateFirst: true,
  help: `Delete a DataStore trigger function (sysadmins only).

A function that a table still lists in its triggers cannot be deleted.

:param name: the function name
:type name: string
:param if_exists: do nothing when there is no such function (optional, default: False)
:type if_exists: bool`,
  params: z.object({ name: reqString, if_exists: ckanBool(false) }),
  async run(ctx, p) {
    const db = datastoreOf(ctx)
    await db.exclusive(async () => {
      if (!(await findFunction(db, p.name))) {
        if (p.if_exists) return
        throw ValidationError.field('name', noSuchFunction(p.name))
      }
      const { rows } = await db.query('SELECT meta FROM _ds_table')
      const used = rows.some((r) =>
        (JSON.parse(String(r[0])) as { triggers?: { function: string }[] }).triggers?.some(
          (t) => t.function === p.name,
        ),
      )
      // ckan: the first line of PostgreSQL's error; its DETAIL line naming the table is dropped
      if (used)
        throw ValidationError.field(
          'name',
          `cannot drop function ${p.name}() because other objects depend on it`,
        )
      await db.write([deleteFunctionStmt(p.name)])
    })
    return null
  },
})
