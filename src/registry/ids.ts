import { createHash } from 'node:crypto';

/*
 * Schema ids: the number a URN's schema is known by in Confluent's wire format (serve answers with
 * it, check reports the ids that clash). A manifest entry may give one; otherwise it is derived.
 */

/** A URN with its explicit schema id, when the manifest gives one. */
interface IdInput {
  urn: string;
  id?: number;
}

export const MAX_SCHEMA_ID = 2 ** 31 - 1;

/**
 * The id a URN gets without an explicit one: the first 31 bits of the SHA-256 of its UTF-8 bytes
 * (1 when those are all zero). It depends on the URN alone, so adding or removing other URNs never
 * changes it: a Confluent-framed message keeps decoding with its own schema.
 */
export function schemaId(urn: string): number {
  return createHash('sha256').update(urn, 'utf8').digest().readUInt32BE(0) >>> 1 || 1;
}

/** One subject's id problem: an explicit id out of range, or an id another subject has too. */
export interface IdIssue {
  urn: string;
  id: number;
  message: string;
}

/**
 * Every subject's id (explicit, else `schemaId`) and every problem: an explicit id that is not an
 * integer from 1 to 2^31-1, and each subject of an id that two or more subjects share (explicit
 * duplicates and derived collisions alike). What `bqschema check` reports and `serve` refuses to answer.
 */
export function assignIds(subjects: readonly IdInput[]): { ids: Map<string, number>; issues: IdIssue[] } {
  const ids = new Map<string, number>();
  const issues: IdIssue[] = [];
  const holders = new Map<number, string[]>();
  for (const { urn, id } of subjects) {
    if (ids.has(urn)) continue;
    let value = schemaId(urn);
    if (id !== undefined) {
      if (!Number.isInteger(id) || id < 1 || id > MAX_SCHEMA_ID) {
        issues.push({ urn, id, message: `schema id ${String(id)} of ${urn} is not an integer from 1 to ${MAX_SCHEMA_ID}` });
        continue;
      }
      value = id;
    }
    ids.set(urn, value);
    const list = holders.get(value);
    if (list === undefined) holders.set(value, [urn]);
    else list.push(urn);
  }
  for (const [id, urns] of holders) {
    if (urns.length < 2) continue;
    for (const urn of urns) {
      const others = urns.filter((u) => u !== urn).join(', ');
      issues.push({
        urn,
        id,
        message: `schema id ${id} of ${urn} is also the id of ${others}: give one of them an explicit "id" in the manifest`,
      });
    }
  }
  return { ids, issues };
}
