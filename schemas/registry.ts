// Loads every Avro schema under schemas/<topic>/<Event>.v<N>.avsc. The newest version of an
// event is the one we write; any older version is still read, resolved into the newest
// (replay covers years of topics). The writer's version travels in the message headers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import type { EventPayloads } from './events.generated.ts';

export type EventName = keyof EventPayloads;

interface SchemaVersion {
  readonly version: number;
  readonly type: avro.Type;
  readonly resolverToLatest: avro.Resolver | null;
}

interface EventSchema {
  readonly name: string;
  readonly topic: string;
  readonly latest: SchemaVersion;
  readonly versions: ReadonlyMap<number, SchemaVersion>;
}

export const schemasDir = import.meta.dirname;
const fileName = /^([A-Za-z]+)\.v(\d+)\.avsc$/;

export interface SchemaFile {
  topic: string;
  event: string;
  version: number;
  schema: avro.Schema;
}

export function readSchemaFiles(dir: string = schemasDir): SchemaFile[] {
  const files: SchemaFile[] = [];
  for (const topic of readdirSync(dir, { withFileTypes: true })) {
    if (!topic.isDirectory()) continue;
    for (const file of readdirSync(join(dir, topic.name))) {
      const m = fileName.exec(file);
      if (!m) continue;
      files.push({
        topic: topic.name,
        event: m[1]!,
        version: Number(m[2]),
        schema: JSON.parse(readFileSync(join(dir, topic.name, file), 'utf8')) as avro.Schema,
      });
    }
  }
  return files;
}

function buildRegistry(): Map<string, EventSchema> {
  const grouped = new Map<string, SchemaFile[]>();
  for (const f of readSchemaFiles()) grouped.set(f.event, [...(grouped.get(f.event) ?? []), f]);
  const out = new Map<string, EventSchema>();
  for (const [name, files] of grouped) {
    files.sort((a, b) => a.version - b.version);
    const newest = files.at(-1)!;
    const latestType = avro.Type.forSchema(newest.schema);
    const versions = new Map<number, SchemaVersion>();
    for (const f of files) {
      const type = f === newest ? latestType : avro.Type.forSchema(f.schema);
      versions.set(f.version, {
        version: f.version,
        type,
        resolverToLatest: f === newest ? null : latestType.createResolver(type),
      });
    }
    out.set(name, { name, topic: newest.topic, latest: versions.get(newest.version)!, versions });
  }
  return out;
}

const registry = buildRegistry();

function schemaOf(name: string): EventSchema {
  const s = registry.get(name);
  if (!s) throw new Error(`unknown event type ${name}`);
  return s;
}

/** The logical topic (without prefix) an event type belongs to. */
export function topicOf(name: EventName): string {
  return schemaOf(name).topic;
}

export const EVENT_TYPE_HEADER = 'event-type';
export const SCHEMA_VERSION_HEADER = 'schema-version';

export interface EncodedEvent {
  value: Buffer;
  headers: Record<string, string>;
}

export function encodeEvent<N extends EventName>(name: N, payload: EventPayloads[N]): EncodedEvent {
  const s = schemaOf(name);
  return {
    value: s.latest.type.toBuffer(payload),
    headers: { [EVENT_TYPE_HEADER]: name, [SCHEMA_VERSION_HEADER]: String(s.latest.version) },
  };
}

/**
 * An upper bound of the Avro binary size of a payload (or a part of one), without encoding it:
 * strings and bytes take their length plus a varint; numbers at most ten bytes; union branches
 * and block counts are covered by the slack; record field names (not encoded) are counted as if
 * they were map keys. `loose` counts three bytes per UTF-16 unit instead of measuring UTF-8 (a
 * bound still, and cheaper). Used to split a request into events that each fit a Kafka message.
 */
export function encodedSizeBound(value: unknown, loose = false): number {
  if (typeof value === 'string') return (loose ? value.length * 3 : Buffer.byteLength(value)) + 11;
  if (value === null || value === undefined || typeof value === 'boolean') return 2;
  if (typeof value === 'number' || typeof value === 'bigint') return 11;
  if (value instanceof Uint8Array) return value.length + 11;
  let size = 11;
  if (Array.isArray(value)) for (const item of value) size += encodedSizeBound(item, loose);
  else
    for (const k in value as Record<string, unknown>)
      size +=
        (loose ? k.length * 3 : Buffer.byteLength(k)) +
        11 +
        encodedSizeBound((value as Record<string, unknown>)[k], loose);
  return size;
}

/** Encodes with an explicit older schema version: used by tests of schema evolution. */
export function encodeEventAtVersion(name: EventName, version: number, payload: unknown): EncodedEvent {
  const v = schemaOf(name).versions.get(version);
  if (!v) throw new Error(`${name} has no schema version ${version}`);
  return {
    value: v.type.toBuffer(payload),
    headers: { [EVENT_TYPE_HEADER]: name, [SCHEMA_VERSION_HEADER]: String(version) },
  };
}

export type DecodedEvent = { [N in EventName]: { name: N; version: number; payload: EventPayloads[N] } }[EventName];

export function decodeEvent(headers: { get(key: string): string | undefined }, value: Buffer): DecodedEvent {
  const name = headers.get(EVENT_TYPE_HEADER);
  const version = Number(headers.get(SCHEMA_VERSION_HEADER));
  if (!name) throw new Error('message has no event-type header');
  const s = schemaOf(name);
  const v = s.versions.get(version);
  if (!v) throw new Error(`${name} v${version} is not a known schema version`);
  const payload = v.resolverToLatest ? s.latest.type.fromBuffer(value, v.resolverToLatest) : v.type.fromBuffer(value);
  return { name, version, payload } as DecodedEvent;
}
