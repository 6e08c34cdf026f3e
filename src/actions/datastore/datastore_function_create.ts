// datastore_function_create: defines a trigger function (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { datastoreOf } from '../../datastore/access'
import { findFunction, saveFunctionStmt } from '../../datastore/functions'
import { compileFunction, PlpgsqlSyntaxError } from '../../datastore/plpgsql'
import { isValidFieldName } from '../../datastore/ident'
import { ckanBool, field, fail, MISSING, reqString } from '../../validation/fields'

export const datastoreFunctionCreate = defineAction({
  name: 'datastore_function_create',
  readOnly: false,
  auth: 'sysadmin',
  // ckan: @logic.validate runs the schema before the access check
  validateFirst: true,
  help: `Create a trigger function for DataStore tables (sysadmins only).

The definition is a body in the PL/pgSQL subset the README describes ("Trigger functions"): it
can change the incoming row (NEW.col := expression) and reject it (RAISE EXCEPTION 'message').
Tables run it on every inserted or updated row once datastore_create lists it in "triggers".

:param name: the function name
:type name: string
:param or_replace: replace an existing function of that name (optional, default: False)
:type or_replace: bool
:param rettype: "trigger"
:type rettype: string
:param definition: the function body
:type definition: string`,
  params: z.object({
    name: field((v) =>
      typeof v !== 'string' || v === ''
        ? fail(MISSING)
        : isValidFieldName(v)
          ? v
          : fail(`"${v}" is not a valid function name`),
    ),
    definition: reqString,
    rettype: field((v) =>
      // ckan: any rettype ('void' by default); this dialect has trigger functions only
      v === undefined || v === null || v === '' || v === 'trigger'
        ? 'trigger'
        : fail("Value must be one of ['trigger']"),
    ),
    or_replace: ckanBool(false),
    arguments: z.array(z.unknown()).optional(),
  }),
  async run(ctx, p) {
    const db = datastoreOf(ctx)
    try {
      compileFunction(p.definition)
    } catch (e) {
      if (e instanceof PlpgsqlSyntaxError) throw ValidationError.field('definition', e.message)
      throw e
    }
    await db.exclusive(async () => {
      if (!p.or_replace && (await findFunction(db, p.name)))
        throw ValidationError.field(
          'name',
          `function "${p.name}" already exists with same argument types`,
        )
      await db.write([
        saveFunctionStmt(
          { name: p.name, definition: p.definition, rettype: p.rettype },
          p.arguments ?? [],
          ctx.now(),
        ),
      ])
    })
    return null
  },
})
