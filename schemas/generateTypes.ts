// Derives TypeScript types from the Avro schemas (the single source of truth):
//   node schemas/generateTypes.ts            writes schemas/events.generated.ts
//   node schemas/generateTypes.ts --check    fails when the file is stale (run by the tests)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSchemaFiles, schemasDir } from './registry.ts';

type AvroSchema =
  | string
  | AvroSchema[]
  | { type: string; name?: string; fields?: Field[]; items?: AvroSchema; symbols?: string[]; doc?: string };
interface Field {
  name: string;
  type: AvroSchema;
  doc?: string;
}

export function generateTypes(): string {
  const named = new Map<string, string>();
  const primitives: Record<string, string> = {
    null: 'null',
    boolean: 'boolean',
    int: 'number',
    long: 'number',
    float: 'number',
    double: 'number',
    bytes: 'Buffer',
    string: 'string',
  };

  const tsType = (s: AvroSchema): string => {
    if (typeof s === 'string') return primitives[s] ?? s;
    if (Array.isArray(s)) return s.map(tsType).join(' | ');
    if (s.type === 'array') return `${tsType(s.items!)}[]`;
    if (s.type === 'enum') {
      named.set(s.name!, `export type ${s.name} = ${s.symbols!.map((x) => `'${x}'`).join(' | ')};`);
      return s.name!;
    }
    if (s.type === 'record') {
      const body = s
        .fields!.map((f) => `${f.doc ? `  /** ${f.doc} */\n` : ''}  ${f.name}: ${tsType(f.type)};`)
        .join('\n');
      named.set(s.name!, `${s.doc ? `/** ${s.doc} */\n` : ''}export interface ${s.name} {\n${body}\n}`);
      return s.name!;
    }
    return primitives[s.type] ?? s.type;
  };

  const latest = new Map<string, ReturnType<typeof readSchemaFiles>[number]>();
  for (const f of readSchemaFiles()) if ((latest.get(f.event)?.version ?? 0) < f.version) latest.set(f.event, f);
  const events = [...latest.values()].sort((a, b) => a.event.localeCompare(b.event));
  for (const e of events) tsType(e.schema as AvroSchema);
  const lines = [
    '// Generated from schemas/**/*.avsc by schemas/generateTypes.ts. Do not edit.',
    '',
    ...[...named.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, v]) => v + '\n'),
    'export interface EventPayloads {',
    ...events.map((e) => `  ${e.event}: ${e.event};`),
    '}',
    '',
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const target = join(schemasDir, 'events.generated.ts');
  const text = generateTypes();
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== text) {
      console.error('schemas/events.generated.ts is stale: run node schemas/generateTypes.ts');
      process.exit(1);
    }
  } else writeFileSync(target, text);
}
