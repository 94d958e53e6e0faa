import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { HttpProvider } from '../../src/index.js';
import { schemaId } from '../../src/serve/index.js';
import { bq, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';
import { manifest, Repo } from '../helpers/git-repo.js';
import { call, serve, stop, type Served } from '../helpers/serve.js';

/*
 * serve --history: each distinct schema of a URN in the registry's git history is a Confluent
 * version, oldest first, today's last; each version is answered by number and by id, ids stay the
 * same for the same content across restarts, /compatibility checks against the version named, and
 * a Confluent client (@kafkajs/confluent-schema-registry) and HttpProvider pinned to a version
 * read it.
 */

afterAll(removeTempTrees);

const URN = 'urn:bq:orders:created';
const OTHER = 'urn:bq:orders:cancelled';
const enc = encodeURIComponent;
const V1 = { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } };
const V2 = { type: 'object', properties: { id: { type: 'string' }, n: { type: 'number' } } };
const V3 = { type: 'object', properties: { id: { type: 'string' }, n: { type: ['number', 'string'] } } };

/** V1 and V2 committed (V2 reformatted once: no new version), V3 in the working tree. */
function repo(): Repo {
  const r = new Repo();
  r.commit({
    'registry.json': manifest({ [URN]: 'orders.json', [OTHER]: 'cancelled.json' }),
    'orders.json': JSON.stringify(V1),
    'cancelled.json': JSON.stringify({ type: 'object' }),
  });
  r.commit({ 'orders.json': JSON.stringify(V2) });
  r.commit({ 'orders.json': JSON.stringify(V2, null, 2) });
  writeFileSync(join(r.dir, 'orders.json'), JSON.stringify(V3));
  return r;
}

const schemaOf = async (port: number, path: string): Promise<unknown> => JSON.parse((await call(port, 'GET', path)).body.schema as string);

describe('serve --history', () => {
  let served: Served | undefined;
  afterAll(async () => {
    if (served) await stop(served);
  });

  it('lists each distinct version, answers each by number and by id, and says how many it serves', async () => {
    const r = repo();
    served = await serve(['--history'], { cwd: r.dir });
    const port = served.port;
    expect(served.stderr()).toMatch(/listening on http:\/\/\S+ \(2 subjects, 4 versions from git history\)/);
    expect((await call(port, 'GET', `/subjects/${enc(URN)}/versions`)).body).toEqual([1, 2, 3]);
    expect((await call(port, 'GET', `/subjects/${enc(OTHER)}/versions`)).body).toEqual([1]);
    expect(await schemaOf(port, `/subjects/${enc(URN)}/versions/1`)).toEqual(V1);
    expect(await schemaOf(port, `/subjects/${enc(URN)}/versions/2`)).toEqual(V2);
    const latest = (await call(port, 'GET', `/subjects/${enc(URN)}/versions/latest`)).body;
    expect(latest.version).toBe(3);
    expect(JSON.parse(latest.schema as string)).toEqual(V3);
    const missing = await call(port, 'GET', `/subjects/${enc(URN)}/versions/4`);
    expect([missing.status, missing.body.error_code]).toEqual([404, 40402]);
    const ids = await Promise.all(
      [1, 2, 3].map(async (v) => (await call(port, 'GET', `/subjects/${enc(URN)}/versions/${v}`)).body.id as number),
    );
    expect(ids[0]).toBe(schemaId(URN)); // version 1 keeps the id the URN has without history
    expect(new Set(ids).size).toBe(3);
    expect(JSON.parse((await call(port, 'GET', `/schemas/ids/${ids[1]}`)).body.schema as string)).toEqual(V2);
    expect((await call(port, 'GET', `/schemas/ids/${ids[1]}/versions`)).body).toEqual([{ subject: URN, version: 2 }]);

    // Ids are the content's: after V3 is committed and a V4 follows, versions 1 to 3 keep theirs.
    await stop(served);
    r.commit({});
    writeFileSync(join(r.dir, 'orders.json'), JSON.stringify({ type: 'object', properties: { id: { type: 'string' } } }));
    served = await serve(['--history'], { cwd: r.dir });
    const again = await Promise.all(
      [1, 2, 3].map(async (v) => (await call(served!.port, 'GET', `/subjects/${enc(URN)}/versions/${v}`)).body.id as number),
    );
    expect(again).toEqual(ids);
    expect((await call(served.port, 'GET', `/subjects/${enc(URN)}/versions`)).body).toEqual([1, 2, 3, 4]);
  });

  it('checks compatibility against the version named; a Confluent client and a pinned HttpProvider read earlier versions', async () => {
    if (served) await stop(served);
    const r = repo();
    served = await serve(['--history'], { cwd: r.dir });
    const port = served.port;
    // Integer n only: compatible with version 1 (integers), not with the latest (strings too), backward.
    const narrow = JSON.stringify({
      schema: JSON.stringify({ type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } }),
      schemaType: 'JSON',
    });
    const against = async (v: string): Promise<unknown> =>
      (await call(port, 'POST', `/compatibility/subjects/${enc(URN)}/versions/${v}`, narrow)).body.is_compatible;
    expect(await against('1')).toBe(true);
    expect(await against('2')).toBe(false);
    expect(await against('latest')).toBe(false);

    const client = new SchemaRegistry({ host: `http://127.0.0.1:${port}` });
    const id1 = await client.getRegistryId(URN, 1);
    expect(id1).toBe(schemaId(URN));
    const id2 = await client.getRegistryId(URN, 2);
    expect(await client.getLatestSchemaId(URN)).not.toBe(id2);
    // Registering an earlier version's schema answers that version's id (Confluent: already registered).
    expect((await client.register({ type: SchemaType.JSON, schema: JSON.stringify(V1) }, { subject: URN })).id).toBe(id1);
    // A message framed with version 2's id decodes with version 2's schema: a number n is valid there.
    const framed = await client.encode(id2, { id: 'a', n: 1.5 });
    expect(framed.readInt32BE(1)).toBe(id2);
    expect(await client.decode(framed)).toEqual({ id: 'a', n: 1.5 });
    await expect(client.encode(id1, { id: 'a', n: 1.5 })).rejects.toThrow();

    const pinned = new HttpProvider(`http://127.0.0.1:${port}`, { versions: { [URN]: 1 } });
    const latest = new HttpProvider(`http://127.0.0.1:${port}`);
    expect((await pinned.schemaFor(URN))!.isValid({ id: 'a', n: 'x' })).toBe(false);
    expect((await latest.schemaFor(URN))!.isValid({ id: 'a', n: 'x' })).toBe(true);
    const gone = new HttpProvider(`http://127.0.0.1:${port}`, { versions: { [URN]: 9 } });
    await expect(gone.schemaFor(URN)).rejects.toThrow(/HTTP 404: Version 9 not found/);
    expect(() => new HttpProvider('http://x.invalid', { versions: { [URN]: 0 } })).toThrow(
      /versions\["urn:bq:orders:created"\] must be an integer from 1 to 2147483647, got 0/,
    );
  });

  it('without git history to read: one line, exit 2, nothing served', async () => {
    const plain = tempTree({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': JSON.stringify(V1) });
    expectOneLineError(
      await bq(['serve', '--history', '--port', '0'], { cwd: plain }),
      /^bqschema: cannot read the registry's history: .* is not in a git repository$/,
    );
  });
});
