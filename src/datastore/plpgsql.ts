// DataStore trigger functions: a PL/pgSQL subset, parsed and run in JS (same on Node and Workers).
// The dialect is documented in DIALECT_DOC below; the README's "trigger dialect" section is that text.
import { PlpgsqlSyntaxError } from './plpgsql-lex'
import { collectFields, parseFunction } from './plpgsql-parse'
import { compileProgram, type Program, type Row, type TriggerContext } from './plpgsql-eval'
import { TriggerRaise } from './plpgsql-values'

export { PlpgsqlSyntaxError, TriggerRaise, type Row, type TriggerContext }

export const DIALECT_DOC = `## Trigger functions (the DataStore PL/pgSQL dialect)

\`datastore_function_create\` with \`rettype: "trigger"\` stores a function; a DataStore table
runs the functions listed in its \`triggers\` on every inserted or updated row, in list order,
before the row is written. A function can change the row, skip it, or reject the whole write.
Functions run inside the server, in JavaScript: nothing in them ever reaches SQL, and there are
no loops, so every function finishes.

\`definition\` is a PL/pgSQL function body:

    DECLARE
      full_name text;                       -- optional; also CONSTANT, NOT NULL, := / DEFAULT
    BEGIN
      IF NEW.name IS NULL OR trim(NEW.name) = '' THEN
        RAISE EXCEPTION 'row % has no name', NEW.id;
      ELSIF NEW.name ILIKE 'test%' THEN
        RETURN NULL;                        -- skip this row
      END IF;
      NEW.name := upper(NEW.name);
      NEW.created := coalesce(NEW.created, current_date);
      RETURN NEW;
    END;

### Statements

| Statement | Effect |
|---|---|
| \`NEW.col := expr;\` (or \`=\`) | sets a column of the row being written |
| \`var := expr;\` | sets a variable from \`DECLARE\` (converted to its declared type) |
| \`IF c THEN ... [ELSIF c THEN ...] [ELSE ...] END IF;\` | \`ELSEIF\` also accepted |
| \`RAISE EXCEPTION 'fmt %', expr, ...;\` | rejects the write: a Validation Error \`{"records": [message]}\`. Each \`%\` takes the next argument (NULL prints \`<NULL>\`), \`%%\` is a literal \`%\`. \`RAISE 'fmt'\` means EXCEPTION; \`USING MESSAGE = expr\` also works |
| \`RAISE NOTICE/WARNING/INFO/LOG/DEBUG ...;\` | accepted and ignored |
| \`RETURN NEW;\` | writes the (changed) row |
| \`RETURN NULL;\` | skips the row silently |
| \`RETURN OLD;\` | on UPDATE, keeps the stored row; on INSERT, skips the row |
| \`NULL;\` | does nothing |
| \`[DECLARE ...] BEGIN ... END;\` | a nested block with its own variables |

A function that ends without \`RETURN\` fails with "control reached end of trigger procedure
without RETURN". Comments are \`-- ...\` and \`/* ... */\`. Loops, \`SELECT\`/\`PERFORM\` and other
SQL statements, \`EXCEPTION\` handlers, cursors and dynamic SQL are not part of the dialect.

### Expressions

SQL semantics with three-valued logic: NULL compared with anything is NULL, and an \`IF\` whose
condition is NULL takes the \`ELSE\` branch.

- Values: \`'text'\` (\`''\` for a quote), \`E'\\n escapes'\`, \`$$dollar quoted$$\`, numbers, \`TRUE\`,
  \`FALSE\`, \`NULL\`.
- Names: \`NEW.col\`, \`OLD.col\` (NULL on INSERT), variables, \`TG_OP\` (\`'INSERT'\` or
  \`'UPDATE'\`), \`TG_TABLE_NAME\`, \`TG_WHEN\` (\`'BEFORE'\`), \`TG_LEVEL\` (\`'ROW'\`). Unquoted
  names are lower-cased; write \`NEW."Name"\` for a column with capitals.
- Operators, loosest first: \`OR\`; \`AND\`; \`NOT\`; \`IS [NOT] NULL | TRUE | FALSE\`,
  \`IS [NOT] DISTINCT FROM\`; \`= <> != < <= > >=\`; \`[NOT] IN (...)\`, \`[NOT] LIKE\`,
  \`[NOT] ILIKE\` (\`%\`, \`_\`, \`\\\` escapes), \`[NOT] BETWEEN a AND b\`; \`||\` (text
  concatenation, NULL if either side is NULL); \`+ -\`; \`* / %\`; unary \`-\`; \`::type\`.
- \`CASE WHEN c THEN x ... [ELSE y] END\` and \`CASE v WHEN x THEN y ... END\`.
- Casts \`expr::type\` and \`CAST(expr AS type)\` to text, varchar, int/integer/int4,
  smallint, bigint, numeric, float/float8/double precision, real, bool/boolean, date,
  timestamp, json. Bad input fails as PostgreSQL does: \`invalid input syntax for type integer: "x"\`.
- Integers divide as integers (\`7 / 2\` is 3; write \`7 / 2.0\` or \`x::numeric / 2\` for 3.5).
  Other arithmetic is in double precision, rounded to 15 significant digits (\`0.1 + 0.2\` is 0.3).
- \`date + integer\`, \`date - integer\` and \`date - date\` (days) work on values of type date:
  date columns, \`current_date\`, \`x::date\` and \`date '2024-01-31'\`.
- A number compared with a string that holds a number compares as numbers; other mixed
  comparisons compare the text forms. Text compares by code point.
- Functions: \`upper lower trim([LEADING|TRAILING|BOTH] [chars FROM] s) btrim ltrim rtrim
  length char_length character_length substr substring(s FROM a FOR b) replace concat coalesce
  nullif greatest least abs round(x[, n]) trunc(x[, n]) ceil ceiling floor mod now()
  current_date current_timestamp localtimestamp position(a IN b) strpos left right lpad rpad
  split_part\`. Any other function fails when the function is created:
  \`function name(types) does not exist\`. Text values are limited to 10,000,000 characters.

### Types of row values

When the table's column types are known, \`NEW.col\` reads as its column type and
\`NEW.col := expr\` converts the value as PostgreSQL assigns to that column (\`'abc'\` into an
integer column fails with \`invalid input syntax for type integer: "abc"\`, 2.5 becomes 3).
Type modifiers such as \`varchar(10)\` and \`numeric(10, 2)\` are accepted and ignored;
timestamps keep the \`YYYY-MM-DDTHH:MM:SS\` form and ignore time zones. Errors in a function
(a failed cast, division by zero) reject the write like \`RAISE EXCEPTION\`.
`

/** A trigger function ready to run on rows. */
export interface CompiledFunction {
  /**
   * The row to write (a copy when the function changed it), or null to skip it.
   * Throws TriggerRaise for RAISE EXCEPTION and runtime errors.
   */
  run(newRow: Row, ctx: TriggerContext): Row | null
}

/** Parses the body; throws PlpgsqlSyntaxError (PostgreSQL's wording). */
export function compileFunction(definition: string): CompiledFunction {
  const ast = guardStack(() => parseFunction(definition), PlpgsqlSyntaxError)
  const untyped = guardStack(() => compileProgram(ast), PlpgsqlSyntaxError)
  const typed = new WeakMap<object, Program>()
  const specialise = (types: Record<string, string>): Program => {
    let program = typed.get(types)
    if (!program) {
      try {
        program = compileProgram(ast, types)
      } catch (err) {
        // Only the table's columns can make it fail here, e.g. NEW.x with no column x.
        if (err instanceof PlpgsqlSyntaxError) throw new TriggerRaise(err.message)
        throw err
      }
      typed.set(types, program)
    }
    return program
  }
  return {
    run: (newRow, ctx) =>
      guardStack(
        () => (ctx.columnTypes ? specialise(ctx.columnTypes) : untyped)(newRow, ctx),
        TriggerRaise,
      ),
  }
}

/**
 * The nesting limit keeps definitions well inside the JS stack; this is the backstop for a
 * caller that is itself deep in the stack: the overflow becomes PostgreSQL's error.
 */
function guardStack<T>(step: () => T, As: new (message: string) => Error): T {
  try {
    return step()
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message))
      throw new As('stack depth limit exceeded')
    throw err
  }
}

/**
 * Column names the function references as NEW.x / OLD.x, in order of first use: lower-cased
 * unless double-quoted (PostgreSQL's identifier folding). Throws PlpgsqlSyntaxError.
 */
export function referencedColumns(definition: string): string[] {
  return collectFields(parseFunction(definition))
}
