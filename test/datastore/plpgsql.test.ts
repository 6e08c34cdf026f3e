// The DataStore trigger dialect: parsing, PostgreSQL-style errors and row-by-row evaluation.
import { describe, expect, it } from 'vitest'
import {
  compileFunction,
  DIALECT_DOC,
  PlpgsqlSyntaxError,
  referencedColumns,
  TriggerRaise,
  type Row,
  type TriggerContext,
} from '../../src/datastore/plpgsql'
import { BUILTINS } from '../../src/datastore/plpgsql-functions'

const NOW = '2024-05-06T07:08:09.123456'
const ctx = (over: Partial<TriggerContext> = {}): TriggerContext => ({
  op: 'INSERT',
  table: 'res-1',
  now: () => NOW,
  ...over,
})
const run = (body: string, row: Row, over: Partial<TriggerContext> = {}) =>
  compileFunction(body).run(row, ctx(over))
/** The value of one expression, through NEW.out := expr. */
const value = (expr: string, row: Row = {}, over: Partial<TriggerContext> = {}) =>
  run(`BEGIN NEW.out := ${expr}; RETURN NEW; END;`, row, over)!.out

function thrown(f: () => unknown): Error {
  try {
    f()
  } catch (err) {
    return err as Error
  }
  throw new Error('expected an error')
}

describe('compileFunction: CKAN trigger examples', () => {
  it('wraps a column, as spamify_trigger does', () => {
    const body = `BEGIN
      NEW.spam := 'spam spam ' || NEW.spam || ' spam';
      RETURN NEW;
    END;`
    expect(run(body, { spam: 'SPAM' })).toEqual({ spam: 'spam spam SPAM spam' })
  })

  it('rejects a row with a message carrying the value, as spamexception_trigger does', () => {
    const body = `
      BEGIN
      IF NEW.spam != 'spam' THEN
          RAISE EXCEPTION '"%"? Yeeeeccch!', NEW.spam;
      END IF;
      RETURN NEW;
      END;`
    expect(run(body, { spam: 'spam' })).toEqual({ spam: 'spam' })
    const err = thrown(() => run(body, { spam: 'EGGS' }))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe('"EGGS"? Yeeeeccch!')
  })

  it('accepts = as well as := for assignments', () => {
    const body = 'DECLARE v int; BEGIN v = 2; NEW.a = v * 2; RETURN NEW; END;'
    expect(run(body, {})).toEqual({ a: 4 })
  })

  it('accepts the no-op trigger and a body without the final semicolon', () => {
    expect(run('BEGIN RETURN NEW; END;', { a: 1 })).toEqual({ a: 1 })
    expect(run('begin return new; end', { a: 1 })).toEqual({ a: 1 })
  })
})

describe('compileFunction: what a function does to a row', () => {
  it('upper-cases a column and leaves the caller row untouched', () => {
    const input = { name: 'ada', n: 1 }
    const out = run('BEGIN NEW.name := upper(NEW.name); RETURN NEW; END;', input)
    expect(out).toEqual({ name: 'ADA', n: 1 })
    expect(input).toEqual({ name: 'ada', n: 1 })
  })

  it('fills a default only when the column is NULL or missing', () => {
    const body = `BEGIN
      IF NEW.status IS NULL THEN NEW.status := 'new'; END IF;
      NEW.created := coalesce(NEW.created, current_date);
      RETURN NEW;
    END;`
    expect(run(body, {})).toEqual({ status: 'new', created: '2024-05-06' })
    expect(run(body, { status: null, created: '2020-01-01' })).toEqual({
      status: 'new',
      created: '2020-01-01',
    })
    expect(run(body, { status: 'old' })).toEqual({ status: 'old', created: '2024-05-06' })
  })

  it('skips a row with RETURN NULL', () => {
    const body = `BEGIN IF NEW.draft THEN RETURN NULL; END IF; RETURN NEW; END;`
    expect(run(body, { draft: true })).toBeNull()
    expect(run(body, { draft: false })).toEqual({ draft: false })
    expect(run(body, { draft: null })).toEqual({ draft: null })
  })

  it('returns OLD: the stored row on UPDATE, nothing on INSERT', () => {
    const body = 'BEGIN NEW.a := 99; RETURN OLD; END;'
    expect(run(body, { a: 2 }, { op: 'UPDATE', old: { a: 1 } })).toEqual({ a: 1 })
    expect(run(body, { a: 2 })).toBeNull()
  })

  it('sees TG_OP, TG_TABLE_NAME and OLD (NULL on INSERT)', () => {
    const body = `BEGIN
      NEW.info := TG_OP || ' ' || tg_table_name || ' ' || coalesce(OLD.a::text, '-');
      RETURN NEW;
    END;`
    expect(run(body, { a: 2 })!.info).toBe('INSERT res-1 -')
    expect(run(body, { a: 2 }, { op: 'UPDATE', old: { a: 1 } })!.info).toBe('UPDATE res-1 1')
  })

  it('fails like PostgreSQL when control reaches the end without RETURN', () => {
    const err = thrown(() => run('BEGIN NEW.a := 1; END;', {}))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe('control reached end of trigger procedure without RETURN')
  })

  it('keeps injection-like text inert: it is data, never SQL', () => {
    const payload = `'); DROP TABLE "user"; --`
    const body = `BEGIN NEW.note := '''); DROP TABLE "user"; --'; RETURN NEW; END;`
    expect(run(body, {})).toEqual({ note: payload })
    expect(value(`NEW.s || '%'`, { s: '%s %% $1' })).toBe('%s %% $1%')
    expect(value(`NEW.s LIKE '(.*)+$'`, { s: 'anything' })).toBe(false)
    expect(value(`NEW.s LIKE '(.*)+$'`, { s: '(.*)+$' })).toBe(true)
    // A backtracking regex would spin for minutes on this; the matcher is linear per %.
    expect(value(`NEW.s LIKE '%a%a%a%a%a%a%b'`, { s: 'a'.repeat(20000) })).toBe(false)
    const raised = thrown(() => run(`BEGIN RAISE EXCEPTION 'got %', NEW.s; END;`, { s: '%%' }))
    expect(raised.message).toBe('got %%')
    expect(value(`NEW."x""; DROP"`, { 'x"; DROP': 1 })).toBe(1)
  })
})

describe('compileFunction: IF / ELSIF / ELSE', () => {
  const grade = compileFunction(`
    BEGIN
      IF NEW.score IS NULL THEN NEW.grade := 'none';
      ELSIF NEW.score >= 90 THEN NEW.grade := 'A';
      ELSEIF NEW.score >= 80 THEN NEW.grade := 'B';
      ELSIF NEW.score >= 70 THEN NEW.grade := 'C';
      ELSE NEW.grade := 'F';
      END IF;
      RETURN NEW;
    END;`)
  it.each([
    [null, 'none'],
    [95, 'A'],
    [90, 'A'],
    [85, 'B'],
    [70, 'C'],
    [12, 'F'],
    ['88', 'B'],
  ])('grades %j as %s', (score, expected) => {
    expect(grade.run({ score }, ctx())!.grade).toBe(expected)
  })

  it('takes the ELSE branch when the condition is NULL', () => {
    const body = `BEGIN IF NEW.a > 1 THEN NEW.r := 'yes'; ELSE NEW.r := 'no'; END IF; RETURN NEW; END;`
    expect(run(body, { a: null })!.r).toBe('no')
    expect(run(body, { a: 2 })!.r).toBe('yes')
  })
})

describe('compileFunction: expressions', () => {
  const row = { a: 7, b: 2, s: 'Hello', n: null, t: true, price: '10.5', Name: 'N', name: 'n' }
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['7 / 2', 3],
    ['-7 / 2', -3],
    ['7 / 2.0', 3.5],
    ['NEW.a / NEW.b', 3],
    ['NEW.a::numeric / NEW.b', 3.5],
    ['7 % 3', 1],
    ['0.1 + 0.2', 0.3],
    ['NEW.a * 1.1', 7.7],
    ['1 / 3.0', 0.333333333333333],
    ['- NEW.a + 1', -6],
    ['NEW.price * 2', 21],
    [`'a' || 'b' || 1`, 'ab1'],
    [`'a' || NULL`, null],
    [`'x' || TRUE`, 'xt'],
    ['TRUE::text', 'true'],
    [`'42'::int + 1`, 43],
    [`' 42 '::integer`, 42],
    [`'2.5'::numeric * 2`, 5],
    ['2.5::int', 3],
    ['-2.5::int', -3],
    [`CAST('yes' AS boolean)`, true],
    [`'off'::bool`, false],
    [`'2024-01-31'::date + 1`, '2024-02-01'],
    [`1 + '2024-02-28'::date`, '2024-02-29'],
    [`date '2024-01-31' + 1`, '2024-02-01'],
    ['current_date - 6', '2024-04-30'],
    [`'2024-03-01'::date - '2024-02-01'::date`, 29],
    [`'2024-01-02 03:04'::timestamp`, '2024-01-02T03:04:00'],
    ['now()', NOW],
    ['current_timestamp', NOW],
    ['current_date', '2024-05-06'],
    ['NULL = NULL', null],
    ['NULL IS NULL', true],
    ['NEW.n IS NOT NULL', false],
    ['NEW.missing IS NULL', true],
    ['NULL IS DISTINCT FROM 1', true],
    ['NULL IS NOT DISTINCT FROM NULL', true],
    ['1 IS DISTINCT FROM 1', false],
    ['NEW.t IS TRUE', true],
    ['NULL IS NOT FALSE', true],
    ['1 IN (1, NULL)', true],
    ['2 IN (1, NULL)', null],
    ['2 NOT IN (1, 3)', true],
    ['2 NOT IN (1, NULL)', null],
    ['NULL IN (1)', null],
    ['NULL AND FALSE', false],
    ['NULL AND TRUE', null],
    ['NULL OR TRUE', true],
    ['NULL OR FALSE', null],
    ['NOT (NULL = 1)', null],
    ['NOT TRUE OR TRUE', true],
    ['TRUE OR FALSE AND FALSE', true],
    [`'abc' LIKE 'a%'`, true],
    [`'abc' LIKE 'A%'`, false],
    [`'abc' ILIKE 'A_C'`, true],
    [`'a%c' LIKE 'a\\%c'`, true],
    [`'abc' LIKE 'a\\%c'`, false],
    [`'abc' NOT LIKE '%b%'`, false],
    [`'abc' LIKE 'a.c'`, false],
    [`NULL LIKE 'a'`, null],
    [`'abcabc' LIKE '%abc'`, true],
    [`'mississippi' LIKE '%iss%ppi'`, true],
    [`'mississippi' LIKE '%iss%ppx'`, false],
    [`'ab' LIKE 'a_'`, true],
    [`'a' LIKE 'a_'`, false],
    [`'' LIKE '%'`, true],
    [`'x' LIKE ''`, false],
    [`'É_b' ILIKE 'é\\_B'`, true],
    [`'éxb' ILIKE 'é\\_B'`, false],
    ['5 BETWEEN 1 AND 5', true],
    ['0 NOT BETWEEN 1 AND 5', true],
    ['NULL BETWEEN 1 AND 2', null],
    [`CASE WHEN NEW.a > 5 THEN 'big' ELSE 'small' END`, 'big'],
    [`CASE NEW.b WHEN 1 THEN 'one' WHEN 2 THEN 'two' END`, 'two'],
    [`CASE WHEN NEW.n > 1 THEN 'x' END`, null],
    ['NEW.price > 9', true],
    ['NEW.price = 10.5', true],
    [`'10' < '9'`, true],
    [`10 < '9'`, false],
    [`NEW.t = 'true'`, true],
    [`NEW.s = 'hello'`, false],
    [`NEW."Name" || NEW.NAME || NEW.name`, 'Nnn'],
    [`upper('abc')`, 'ABC'],
    [`lower('ÀB')`, 'àb'],
    [`trim('  x  ')`, 'x'],
    [`trim(both 'x' from 'xxaxx')`, 'a'],
    [`trim(leading from '  a ')`, 'a '],
    [`trim(trailing 'y' from 'yay')`, 'ya'],
    [`ltrim('xxa', 'x')`, 'a'],
    [`rtrim('a  ')`, 'a'],
    [`btrim(E'\\t a ')`, '\t a'],
    [`length('héllo')`, 5],
    ['char_length(NULL)', null],
    [`substr('hello', 2, 3)`, 'ell'],
    [`substr('hello', 0, 3)`, 'he'],
    [`substring('hello' from 2 for 3)`, 'ell'],
    [`substring('hello' from 3)`, 'llo'],
    [`substring('hello' for 2)`, 'he'],
    [`replace('a-b-c', '-', '+')`, 'a+b+c'],
    [`concat('a', NULL, 1, TRUE)`, 'a1t'],
    [`coalesce(NULL, NEW.n, 'd')`, 'd'],
    ['nullif(1, 1)', null],
    ['nullif(1, 2)', 1],
    ['greatest(1, NULL, 3)', 3],
    [`least('b', 'a')`, 'a'],
    ['greatest(NULL, NULL)', null],
    ['abs(-3)', 3],
    ['round(2.5)', 3],
    ['round(-2.5)', -3],
    ['round(1.005, 2)', 1.01],
    ['round(1234, -2)', 1200],
    ['trunc(-1.7)', -1],
    ['ceil(1.2)', 2],
    ['ceiling(-1.2)', -1],
    ['floor(-1.2)', -2],
    ['mod(7, 3)', 1],
    [`position('c' in 'abc')`, 3],
    [`strpos('abc', 'x')`, 0],
    [`left('hello', 2)`, 'he'],
    [`left('hello', -2)`, 'hel'],
    [`right('hello', 2)`, 'lo'],
    [`right('hello', -2)`, 'llo'],
    [`lpad('7', 3, '0')`, '007'],
    [`rpad('ab', 5, 'xy')`, 'abxyx'],
    [`lpad('hello', 2)`, 'he'],
    [`split_part('a,b,c', ',', 2)`, 'b'],
    [`split_part('a,b,c', ',', -1)`, 'c'],
    [`split_part('a,b', ',', 5)`, ''],
    [`E'a\\tb\\x41\\u00e9'`, 'a\tbAé'],
    [`'it''s'`, "it's"],
    [`$$x'y$$`, "x'y"],
    [`$q$a$$b$q$`, 'a$$b'],
    ['TG_OP', 'INSERT'],
    ['1 /* c /* nested */ */ + -- x\n 1', 2],
  ])('%s → %j', (expr, expected) => {
    expect(value(expr, row)).toEqual(expected)
  })
})

describe('compileFunction: variables and blocks', () => {
  it('initialises, converts to the declared type and shadows in nested blocks', () => {
    const body = `
      DECLARE
        total int := 40;
        label text DEFAULT 'n=';
        ratio CONSTANT numeric := 0.5;
      BEGIN
        total := total + '2';
        DECLARE total text := 'inner';
        BEGIN
          NEW.inner := total;
        END;
        NEW.out := label || total;
        NEW.half := total * ratio;
        RETURN NEW;
      END`
    expect(run(body, {})).toEqual({ inner: 'inner', out: 'n=42', half: 21 })
  })

  it('refuses values the declared type cannot hold', () => {
    const err = thrown(() => run(`DECLARE n int; BEGIN n := NEW.a; RETURN NEW; END;`, { a: 'abc' }))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe('invalid input syntax for type integer: "abc"')
  })

  it('refuses NULL for a NOT NULL variable at run time', () => {
    const body = `DECLARE n int NOT NULL := 1; BEGIN n := NEW.a; RETURN NEW; END;`
    expect(thrown(() => run(body, { a: null })).message).toBe(
      'null value cannot be assigned to variable "n" declared NOT NULL',
    )
  })
})

describe('compileFunction: RAISE', () => {
  it.each([
    [`RAISE EXCEPTION 'bad % and %%, %', NEW.a, NEW.n;`, 'bad 7 and %, <NULL>'],
    [`RAISE 'plain %', NEW.t;`, 'plain t'],
    [`RAISE EXCEPTION USING MESSAGE = 'via ' || NEW.a;`, 'via 7'],
    [`RAISE EXCEPTION 'x' USING HINT = 'ignored', ERRCODE = '22000';`, 'x'],
    [`RAISE EXCEPTION USING ERRCODE = '22012';`, '22012'],
  ])('%s raises %j', (stmt, message) => {
    const err = thrown(() => run(`BEGIN ${stmt} RETURN NEW; END;`, { a: 7, n: null, t: true }))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe(message)
  })

  it('ignores NOTICE, WARNING, INFO, LOG and DEBUG', () => {
    const body = `BEGIN
      RAISE NOTICE 'n %', 1 / 0; RAISE WARNING 'w'; RAISE INFO 'i'; RAISE LOG 'l'; RAISE DEBUG 'd';
      RETURN NEW;
    END;`
    expect(run(body, { a: 1 })).toEqual({ a: 1 })
  })
})

describe('compileFunction: runtime errors reject the write', () => {
  it.each([
    ['1 / 0', 'division by zero'],
    ['NEW.a % 0', 'division by zero'],
    [`'abc'::int`, 'invalid input syntax for type integer: "abc"'],
    [`'1.5'::int`, 'invalid input syntax for type integer: "1.5"'],
    [`'x'::numeric`, 'invalid input syntax for type numeric: "x"'],
    [`'maybe'::boolean`, 'invalid input syntax for type boolean: "maybe"'],
    [`'2024-02-30'::date`, 'invalid input syntax for type date: "2024-02-30"'],
    [`NEW.s + 1`, 'invalid input syntax for type numeric: "Hello"'],
    ['NEW.t + 1', 'operator does not exist: boolean + integer'],
    ['3000000000::int', 'integer out of range'],
    [`substr('abc', 1, -1)`, 'negative substring length not allowed'],
    [`split_part('a', ',', 0)`, 'field position must not be zero'],
    [`lpad('a', 20000000)`, 'requested length too large'],
    [`'a' LIKE 'a\\'`, 'LIKE pattern must not end with escape character'],
  ])('%s fails with %j', (expr, message) => {
    const err = thrown(() => value(expr, { a: 7, s: 'Hello', t: true }))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe(message)
  })
})

describe('compileFunction: with the table column types', () => {
  const columnTypes = { a: 'int4', b: 'int4', p: 'numeric', s: 'text', flag: 'bool', d: 'date' }
  const typed = (body: string, row: Row) => run(body, row, { columnTypes })

  it('reads columns as their type', () => {
    const body = `BEGIN NEW.s := NEW.s || '!'; NEW.a := NEW.a + 1; RETURN NEW; END;`
    expect(typed(body, { a: '41', s: 5 })).toEqual({ a: 42, s: '5!' })
  })

  it('divides integer columns as integers and numeric columns exactly', () => {
    const body = `BEGIN NEW.a := NEW.a / NEW.b; NEW.p := NEW.p / NEW.b; RETURN NEW; END;`
    expect(typed(body, { a: 7, b: 2, p: 7 })).toEqual({ a: 3, b: 2, p: 3.5 })
  })

  it('converts assigned values as PostgreSQL assigns to the column', () => {
    const body = `BEGIN NEW.a := NEW.p; NEW.s := NEW.flag; NEW.d := '2024-01-02 10:00'; RETURN NEW; END;`
    expect(typed(body, { p: 2.6, flag: true })).toEqual({
      a: 3,
      p: 2.6,
      flag: true,
      s: 'true',
      d: '2024-01-02',
    })
    const err = thrown(() => typed(`BEGIN NEW.a := 'abc'; RETURN NEW; END;`, {}))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe('invalid input syntax for type integer: "abc"')
  })

  it('rejects columns the table does not have', () => {
    const err = thrown(() => typed(`BEGIN NEW.nope := 1; RETURN NEW; END;`, {}))
    expect(err).toBeInstanceOf(TriggerRaise)
    expect(err.message).toBe('record "new" has no field "nope"')
  })

  it('checks condition types statically', () => {
    const err = thrown(() => typed(`BEGIN IF NEW.a THEN RETURN NULL; END IF; RETURN NEW; END;`, {}))
    expect(err.message).toBe('argument of IF must be type boolean, not type integer')
    expect(
      typed(`BEGIN IF NEW.flag THEN RETURN NULL; END IF; RETURN NEW; END;`, { flag: 'yes' }),
    ).toBeNull()
  })
})

describe('compileFunction: syntax errors in PostgreSQL wording', () => {
  const fn = (stmts: string) => `BEGIN ${stmts} RETURN NEW; END;`
  it.each([
    ['HELLO WORLD', 'syntax error at or near "HELLO"'],
    ['BEGIN HELLO END;', 'syntax error at or near "HELLO"'],
    ['', 'syntax error at end of input'],
    ['BEGIN RETURN NEW;', 'syntax error at end of input'],
    ['BEGIN RETURN NEW; END; extra', 'syntax error at or near "extra"'],
    ['BEGIN NEW.x := 1 RETURN NEW; END;', 'syntax error at or near "RETURN"'],
    ['BEGIN IF TRUE THEN RETURN NEW; END; END;', 'syntax error at or near ";"'],
    [fn('NEW.x := (1 + ;'), 'syntax error at or near ";"'],
    [fn(`NEW.x := 'abc;`), `unterminated quoted string at or near "'abc; RETURN NEW; END;"`],
    ['BEGIN /* x', 'unterminated /* comment at or near "/* x"'],
    [fn('NEW."" := 1;'), 'zero-length delimited identifier at or near """"'],
    [fn('NEW.x := 1abc;'), 'trailing junk after numeric literal at or near "1abc"'],
    [fn('NEW.x := 1 @ 2;'), 'syntax error at or near "@"'],
    [fn('NEW.x := foo(1);'), 'function foo(integer) does not exist'],
    [fn(`NEW.x := upper('a', NEW.y);`), 'function upper(unknown, unknown) does not exist'],
    [fn('NEW.x := y;'), 'column "y" does not exist'],
    [fn('y := 1;'), '"y" is not a known variable'],
    [fn('tg_op := 1;'), 'variable "tg_op" is declared CONSTANT'],
    [fn('OLD.x := 1;'), 'OLD is read-only in DataStore trigger functions'],
    ['BEGIN SELECT 1; END;', 'SELECT is not supported in DataStore trigger functions'],
    ['BEGIN LOOP END LOOP; END;', 'LOOP is not supported in DataStore trigger functions'],
    [fn(`RAISE EXCEPTION '% %', 1;`), 'too few parameters specified for RAISE'],
    [fn(`RAISE EXCEPTION 'x', 1;`), 'too many parameters specified for RAISE'],
    [fn('RAISE;'), 'RAISE without parameters cannot be used outside an exception handler'],
    [fn(`RAISE 'x' USING FOO = 1;`), 'unrecognized RAISE statement option "FOO"'],
    [fn(`RAISE 'x' USING MESSAGE = 'y';`), 'RAISE option already specified: MESSAGE'],
    ['BEGIN RETURN; END;', 'missing expression at or near ";"'],
    ['BEGIN RETURN 1; END;', 'RETURN in a trigger function must be NEW, OLD or NULL'],
    ['DECLARE x foo; BEGIN RETURN NEW; END;', 'type "foo" does not exist'],
    ['DECLARE x int; X text; BEGIN RETURN NEW; END;', 'duplicate declaration at or near "X"'],
    [
      'DECLARE x CONSTANT int := 1; BEGIN x := 2; RETURN NEW; END;',
      'variable "x" is declared CONSTANT',
    ],
    [
      'DECLARE x int NOT NULL; BEGIN RETURN NEW; END;',
      `variable "x" must have a default value, since it's declared NOT NULL`,
    ],
    [fn('IF 1 THEN NULL; END IF;'), 'argument of IF must be type boolean, not type integer'],
    [fn(`NEW.x := upper('a') AND TRUE;`), 'argument of AND must be type boolean, not type text'],
    [fn('NEW.x := current_date * 2;'), 'operator does not exist: date * integer'],
    [fn(`NEW.x := ${'('.repeat(300)}1${')'.repeat(300)};`), 'stack depth limit exceeded'],
  ])('%j → %s', (definition, message) => {
    const err = thrown(() => compileFunction(definition))
    expect(err).toBeInstanceOf(PlpgsqlSyntaxError)
    expect(err.message).toBe(message)
  })
})

describe('compileFunction: nesting limits', () => {
  const assign = (expr: string) => `BEGIN NEW.x := ${expr}; RETURN NEW; END;`
  it('accepts 90-deep parentheses and 900-operator chains', () => {
    expect(run(assign(`${'('.repeat(90)}1${')'.repeat(90)}`), {})).toEqual({ x: 1 })
    expect(run(assign(`0${' + 1'.repeat(900)}`), {})).toEqual({ x: 900 })
  })

  it.each([
    ['parentheses', assign(`${'abs('.repeat(120)}1${')'.repeat(120)}`)],
    ['operator chains', assign(`0${' + 1'.repeat(100_000)}`)],
    ['IF statements', `BEGIN ${'IF TRUE THEN '.repeat(120)} ${'END IF; '.repeat(120)} END;`],
    ['blocks', `BEGIN ${'BEGIN '.repeat(120)} ${'END; '.repeat(120)} END;`],
  ])("refuses deeply nested %s with PostgreSQL's error", (_, definition) => {
    const err = thrown(() => compileFunction(definition))
    expect(err).toBeInstanceOf(PlpgsqlSyntaxError)
    expect(err.message).toBe('stack depth limit exceeded')
  })
})

describe('referencedColumns', () => {
  it.each([
    ['BEGIN RETURN NEW; END;', []],
    ['BEGIN NEW.Name := upper(NEW.NAME); RETURN NEW; END;', ['name']],
    [`BEGIN NEW."Name" := NEW.name || OLD."X"; RETURN NEW; END;`, ['Name', 'name', 'X']],
    [
      `DECLARE v text := NEW.d; BEGIN
         IF NEW.a IN (NEW.b) THEN RAISE EXCEPTION '%', CASE WHEN NEW.c THEN OLD.a END; END IF;
         RETURN NEW;
       END;`,
      ['d', 'a', 'b', 'c'],
    ],
    ['BEGIN NEW.end := NEW.from::text; RETURN NEW; END;', ['end', 'from']],
  ])('%s → %j', (definition, expected) => {
    expect(referencedColumns(definition)).toEqual(expected)
  })

  it('throws the syntax error of a bad definition', () => {
    expect(() => referencedColumns('BEGIN HELLO END;')).toThrow(
      new PlpgsqlSyntaxError('syntax error at or near "HELLO"'),
    )
  })
})

describe('DIALECT_DOC', () => {
  it('names every built-in function', () => {
    const missing = Object.keys(BUILTINS).filter((name) => !DIALECT_DOC.includes(name))
    expect(missing).toEqual([])
  })
})
