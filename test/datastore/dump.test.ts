// GET /datastore/dump/<id>: byte-exact csv, tsv, json and xml files, headers, the search
// parameters, errors as plain text, access rules, and a table larger than one stream chunk.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let member: Who
let stranger: Who
let rid: string
let alias: string
let big: string
let priv: string

const BIG_ROWS = 4500 // more than two stream chunks of 2000 rows

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  stranger = await t.make.user()
  const org = await t.make.organization(sys)
  const role = { id: org.id, username: member.name, role: 'member' }
  await t.ok('organization_member_create', role, sys)
  const pub = await t.make.dataset(sys, { owner_org: org.id })
  alias = uniq('dump_alias').replaceAll('-', '_')
  const created = await t.ok(
    'datastore_create',
    {
      resource: { package_id: pub.id },
      aliases: alias,
      fields: [
        { id: 'bük', type: 'text', info: { label: 'Book' } },
        { id: 'author', type: 'text' },
        { id: 'published', type: 'timestamp' },
        { id: 'characters', type: 'text[]' },
        { id: 'nested', type: 'json' },
        { id: 'ok', type: 'bool' },
        { id: 'n', type: 'numeric' },
        { id: 'i', type: 'int' },
      ],
      records: [
        {
          bük: 'annakarenina', author: 'tolstoy', published: '2005-03-01',
          characters: ['Princess Anna', 'Sergius'], nested: ['b', { moo: 'moo' }], ok: true,
          n: '1.5', i: 1,
        },
        { bük: 'warandpeace', author: 'tolstoy', nested: { a: 'b' }, ok: false, n: 2, i: 2 },
        {
          bük: 'say "hi", then\ttab', author: '<&> Ünï', published: '2020-01-02T03:04:05.5',
          i: 3,
        },
      ],
    },
    sys,
  )
  rid = created.resource_id
  big = await table(
    pub,
    [
      { id: 'n', type: 'int' },
      { id: 'word', type: 'text' },
    ],
    Array.from({ length: BIG_ROWS }, (_, i) => ({ n: i + 1, word: `w${i + 1}` })),
  )
  const hidden = await t.make.dataset(sys, { owner_org: org.id, private: true })
  priv = await table(hidden, [{ id: 'secret', type: 'text' }], [{ secret: 's' }])
})

async function table(pkg: { id: string }, fields: object[], records: object[]) {
  const params = { resource: { package_id: pkg.id }, fields, records }
  return (await t.ok('datastore_create', params, sys)).resource_id as string
}

/** The raw response: bytes decoded without dropping a BOM. */
async function dump(path: string, as: Who | null = null) {
  const res = await t.app.request(path, { headers: as ? { authorization: as.apikey } : {} })
  const bytes = new Uint8Array(await res.arrayBuffer())
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    bytes,
    text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes),
  }
}

const CSV =
  '_id,bük,author,published,characters,nested,ok,n,i\r\n' +
  '1,annakarenina,tolstoy,2005-03-01T00:00:00,"[""Princess Anna"",""Sergius""]","[""b"", {""moo"": ""moo""}]",t,1.5,1\n' +
  '2,warandpeace,tolstoy,,null,"{""a"": ""b""}",f,2,2\n' +
  '3,"say ""hi"", then\ttab",<&> Ünï,2020-01-02T03:04:05,null,null,,,3\n'

describe('dump formats', () => {
  it('writes csv by default with CRLF after the header and LF after rows', async () => {
    const r = await dump(`/datastore/dump/${rid}`)
    expect(r.status).toBe(200)
    expect(r.type).toBe('text/csv; charset=utf-8')
    expect(r.disposition).toBe(`attachment; filename="${rid}.csv"`)
    expect(r.text).toBe(CSV)
    expect((await dump(`/datastore/dump/${rid}?format=csv`)).text).toBe(CSV)
  })

  it('puts a UTF-8 BOM first with bom=true', async () => {
    const r = await dump(`/datastore/dump/${rid}?bom=true`)
    expect([...r.bytes.slice(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 0x5f])
    expect(r.text).toBe('\uFEFF' + CSV)
    const tsv = await dump(`/datastore/dump/${rid}?format=tsv&bom=True`)
    expect(tsv.text.startsWith('\uFEFF_id\tbük')).toBe(true)
    expect((await dump(`/datastore/dump/${rid}?bom=false`)).bytes[0]).toBe(0x5f)
  })

  it('writes tsv', async () => {
    const r = await dump(`/datastore/dump/${rid}?format=tsv`)
    expect(r.type).toBe('text/tab-separated-values; charset=utf-8')
    expect(r.disposition).toBe(`attachment; filename="${rid}.tsv"`)
    expect(r.text).toBe(
      '_id\tbük\tauthor\tpublished\tcharacters\tnested\tok\tn\ti\r\n' +
        '1\tannakarenina\ttolstoy\t2005-03-01T00:00:00\t"[""Princess Anna"",""Sergius""]"\t"[""b"", {""moo"": ""moo""}]"\tt\t1.5\t1\n' +
        '2\twarandpeace\ttolstoy\t\tnull\t"{""a"": ""b""}"\tf\t2\t2\n' +
        '3\t"say ""hi"", then\ttab"\t<&> Ünï\t2020-01-02T03:04:05\tnull\tnull\t\t\t3\n',
    )
  })

  it('writes json with compact items and raw UTF-8', async () => {
    const r = await dump(`/datastore/dump/${rid}?format=json`)
    expect(r.type).toBe('application/json; charset=utf-8')
    expect(r.disposition).toBe(`attachment; filename="${rid}.json"`)
    expect(r.text).toBe(
      '{\n' +
        '  "fields": [{"id":"_id","type":"int"},{"id":"bük","type":"text","info":{"label":"Book"}},' +
        '{"id":"author","type":"text"},{"id":"published","type":"timestamp"},' +
        '{"id":"characters","type":"_text"},{"id":"nested","type":"json"},{"id":"ok","type":"bool"},' +
        '{"id":"n","type":"numeric"},{"id":"i","type":"int4"}],\n' +
        '  "records": [\n' +
        '    [1,"annakarenina","tolstoy","2005-03-01T00:00:00",["Princess Anna","Sergius"],["b",{"moo":"moo"}],true,1.5,1],\n' +
        '    [2,"warandpeace","tolstoy",null,null,{"a":"b"},false,2,2],\n' +
        '    [3,"say \\"hi\\", then\\ttab","<&> Ünï","2020-01-02T03:04:05",null,null,null,null,3]\n' +
        ']}\n',
    )
  })

  it('writes an empty json record list', async () => {
    const r = await dump(`/datastore/dump/${rid}?format=json&fields=i&filters=${enc({ i: 99 })}`)
    expect(r.text).toBe('{\n  "fields": [{"id":"i","type":"int4"}],\n  "records": [\n]}\n')
  })

  it('writes xml with _id as an attribute, nil elements and nested values', async () => {
    const r = await dump(`/datastore/dump/${rid}?format=xml`)
    expect(r.type).toBe('text/xml; charset=utf-8')
    expect(r.disposition).toBe(`attachment; filename="${rid}.xml"`)
    expect(r.text).toBe(
      '<data xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
        '<row _id="1"><bük>annakarenina</bük><author>tolstoy</author><published>2005-03-01T00:00:00</published>' +
        '<characters><value key="0">Princess Anna</value><value key="1">Sergius</value></characters>' +
        '<nested><value key="0">b</value><value key="1"><value key="moo">moo</value></value></nested>' +
        '<ok>True</ok><n>1.5</n><i>1</i></row>\n' +
        '<row _id="2"><bük>warandpeace</bük><author>tolstoy</author><published xsi:nil="true" />' +
        '<characters xsi:nil="true" /><nested><value key="a">b</value></nested><ok>False</ok><n>2</n><i>2</i></row>\n' +
        '<row _id="3"><bük>say "hi", then\ttab</bük><author>&lt;&amp;&gt; Ünï</author>' +
        '<published>2020-01-02T03:04:05</published><characters xsi:nil="true" /><nested xsi:nil="true" />' +
        '<ok xsi:nil="true" /><n xsi:nil="true" /><i>3</i></row>\n' +
        '</data>\n',
    )
  })

  it('makes _id a child element when it is not the first field', async () => {
    const r = await dump(`/datastore/dump/${rid}?format=xml&fields=i,_id&limit=1`)
    expect(r.text).toBe(
      '<data xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
        '<row><i>1</i><_id>1</_id></row>\n' +
        '</data>\n',
    )
  })
})

const enc = (v: unknown) => encodeURIComponent(JSON.stringify(v))

describe('dump parameters', () => {
  const csv = async (qs: string) => {
    const r = await dump(`/datastore/dump/${rid}?${qs}`)
    expect(r.status).toBe(200)
    return r.text
  }

  it('selects fields in order', async () => {
    expect(await csv('fields=i,bük')).toBe(
      'i,bük\r\n1,annakarenina\n2,warandpeace\n3,"say ""hi"", then\ttab"\n',
    )
  })

  it('filters, sorts, skips and limits', async () => {
    expect(await csv(`fields=i&filters=${enc({ author: 'tolstoy' })}`)).toBe('i\r\n1\n2\n')
    expect(await csv('fields=i&sort=i%20desc')).toBe('i\r\n3\n2\n1\n')
    expect(await csv('fields=i&offset=1')).toBe('i\r\n2\n3\n')
    expect(await csv('fields=i&limit=2')).toBe('i\r\n1\n2\n')
    expect(await csv('fields=i&offset=1&limit=1')).toBe('i\r\n2\n')
    expect(await csv('fields=i&limit=0')).toBe('i\r\n')
  })

  it('adds the rank column for q and keeps the _id order', async () => {
    const text = await csv('q=tolstoy')
    const lines = text.split('\n')
    expect(lines[0]).toBe('_id,bük,author,published,characters,nested,ok,n,i,rank\r')
    expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual(['1', '2'])
    expect(await csv('q=tolstoy&fields=i')).toBe('i\r\n1\n2\n')
  })

  it('reads q as a per-column JSON object and plain=false syntax', async () => {
    expect(await csv(`fields=i&q=${enc({ author: 'tolstoy' })}`)).toBe('i\r\n1\n2\n')
    expect(await csv(`fields=i&q=${enc({ bük: 'tolstoy' })}`)).toBe('i\r\n')
    const either = encodeURIComponent('annakarenina | warandpeace')
    expect(await csv(`fields=i&plain=false&q=${either}`)).toBe('i\r\n1\n2\n')
  })

  it('removes duplicate rows with distinct', async () => {
    expect(await csv('fields=author&distinct=true&sort=author')).toBe(
      'author\r\n<&> Ünï\ntolstoy\n',
    )
  })

  it('dumps through an alias under the alias name', async () => {
    const r = await dump(`/datastore/dump/${alias}`)
    expect(r.status).toBe(200)
    expect(r.disposition).toBe(`attachment; filename="${alias}.csv"`)
    expect(r.text).toBe(CSV)
  })
})

describe('dump errors', () => {
  const bad = async (qs: string, message: string) => {
    const r = await dump(`/datastore/dump/${rid}?${qs}`)
    expect(r.status).toBe(400)
    expect(r.type).toBe('text/plain; charset=utf-8')
    expect(r.text).toBe(message)
  }

  it('answers 400 with "<param>: <message>" lines', async () => {
    await bad('format=xlsx', "format: Value must be one of ('csv', 'tsv', 'json', 'xml')")
    await bad('offset=x', 'offset: Invalid integer')
    await bad('limit=-3', 'limit: Invalid integer')
    await bad('filters=%7Bnope', 'filters: Cannot parse JSON')
    await bad(
      'format=xlsx&offset=x',
      "format: Value must be one of ('csv', 'tsv', 'json', 'xml')\noffset: Invalid integer",
    )
  })

  it('answers 400 for unknown columns in filters, fields and sort', async () => {
    await bad(`filters=${enc({ nope: 1 })}`, 'filters: invalid value "nope"')
    await bad('fields=_id,nope', 'fields: invalid value "nope"')
    await bad('sort=nope', 'sort: invalid value "nope"')
    const drop = encodeURIComponent(`_id; DROP TABLE "${rid}"`)
    await bad(`sort=${drop}`, `sort: invalid value "_id; DROP TABLE "${rid}""`)
    expect((await dump(`/datastore/dump/${rid}`)).text).toBe(CSV)
  })

  it('answers 400 naming the reason of an invalid query', async () => {
    await bad(
      `filters=${enc({ i: 'many' })}`,
      'query: Invalid query: invalid input syntax for type integer: "many"',
    )
    await bad('plain=false&q=a%20b', 'query: Invalid query: syntax error in tsquery: "a b"')
  })

  it('answers 404 for an unknown table or a deleted resource', async () => {
    const r = await dump('/datastore/dump/no-such-table')
    expect(r.status).toBe(404)
    expect(r.text).toBe('DataStore resource not found')
    const ds = await t.make.dataset(sys)
    const gone = await table(ds, [{ id: 'x', type: 'int' }], [{ x: 1 }])
    expect((await dump(`/datastore/dump/${gone}`)).status).toBe(200)
    await t.ok('resource_delete', { id: gone }, sys)
    expect((await dump(`/datastore/dump/${gone}`)).status).toBe(404)
  })

  it('answers 403 for a private resource without rights', async () => {
    for (const who of [null, stranger]) {
      const r = await dump(`/datastore/dump/${priv}`, who)
      expect(r.status).toBe(403)
      expect(r.text).toBe('Not authorized to read DataStore resource')
    }
  })

  it('dumps a private resource for an organization member or a sysadmin', async () => {
    for (const who of [member, sys]) {
      const r = await dump(`/datastore/dump/${priv}`, who)
      expect(r.status).toBe(200)
      expect(r.text).toBe('_id,secret\r\n1,s\n')
    }
  })
})

describe('dump of a large table', () => {
  const expected = (from: number, to: number) => {
    let s = ''
    for (let n = from; n <= to; n++) s += `${n},${n},w${n}\n`
    return s
  }

  it('writes every row once, in order, across stream chunks', async () => {
    const r = await dump(`/datastore/dump/${big}`)
    expect(r.status).toBe(200)
    expect(r.text).toBe('_id,n,word\r\n' + expected(1, BIG_ROWS))
  })

  it('pages across chunk boundaries with offset and limit', async () => {
    const r = await dump(`/datastore/dump/${big}?offset=1999&limit=2002`)
    expect(r.text).toBe('_id,n,word\r\n' + expected(2000, 4001))
  })

  it('writes a valid json file across chunks', async () => {
    const r = await dump(`/datastore/dump/${big}?format=json&fields=n`)
    const parsed = JSON.parse(r.text) as { fields: unknown[]; records: number[][] }
    expect(parsed.fields).toEqual([{ id: 'n', type: 'int4' }])
    expect(parsed.records).toEqual(Array.from({ length: BIG_ROWS }, (_, i) => [i + 1]))
    expect(r.text.endsWith(`,\n    [${BIG_ROWS}]\n]}\n`)).toBe(true)
  })

  it('writes every xml row across chunks', async () => {
    const r = await dump(`/datastore/dump/${big}?format=xml&sort=n%20desc&limit=2500`)
    const rows = r.text.split('\n').slice(1, -2)
    expect(rows).toHaveLength(2500)
    expect(rows[0]).toBe(`<row _id="${BIG_ROWS}"><n>${BIG_ROWS}</n><word>w${BIG_ROWS}</word></row>`)
    expect(rows.at(-1)).toBe('<row _id="2001"><n>2001</n><word>w2001</word></row>')
  })
})
