// The semantic-search index of the long-term store, as the config file's `store.index` names it
// (LangGraph CLI's IndexConfig): `embed` is a module's export, either an embeddings object
// (`embedDocuments`/`embedQuery`, e.g. @langchain/openai's) or a function from texts to vectors
// (LangGraph's EmbeddingsFunc), or "openai:<model>" (OpenAIEmbeddings, reading OPENAI_API_KEY);
// `dims` is checked against every vector; `fields` are the JSON paths embedded of each value.
import { pathToFileURL } from 'node:url';
import type { StoreConfig } from '../agentConfig.ts';

export interface StoreIndex {
  dims: number;
  fields: string[];
  /** One vector per text, each `dims` long. */
  embedTexts(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

type EmbeddingsLike = {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
};
type EmbedFunction = (texts: string[]) => number[][] | Promise<number[][]>;

async function embedderOf(embed: NonNullable<StoreConfig['index']>['embed']): Promise<EmbeddingsLike> {
  if ('provider' in embed) {
    if (embed.provider !== 'openai' || !embed.model)
      throw new Error(
        `store.index.embed "${embed.provider}:${embed.model}": the providers served are "openai:<model>"; ` +
          'or name a module, "./embeddings.ts:embed", exporting an embeddings object or a function of texts',
      );
    const { OpenAIEmbeddings } = await import('@langchain/openai');
    return new OpenAIEmbeddings({ model: embed.model });
  }
  const module = (await import(pathToFileURL(embed.file).href)) as Record<string, unknown>;
  const found = await module[embed.exportName];
  if (typeof found === 'function') {
    const fn = found as EmbedFunction;
    return { embedDocuments: async (texts) => fn(texts), embedQuery: async (text) => (await fn([text]))[0]! };
  }
  const object = found as Partial<EmbeddingsLike> | undefined;
  if (typeof object?.embedDocuments === 'function' && typeof object.embedQuery === 'function')
    return object as EmbeddingsLike;
  throw new Error(
    `store.index.embed: export "${embed.exportName}" of ${embed.file} is neither an embeddings object (embedDocuments, embedQuery) nor a function of texts`,
  );
}

function checked(vector: unknown, dims: number): number[] {
  if (!Array.isArray(vector) || vector.length !== dims || !vector.every((x) => Number.isFinite(x)))
    throw new Error(
      `store.index.embed returned ${Array.isArray(vector) ? `a vector of ${vector.length}` : 'no vector'}; store.index.dims says ${dims} finite numbers`,
    );
  return vector as number[];
}

export async function loadStoreIndex(config: StoreConfig['index']): Promise<StoreIndex | undefined> {
  if (!config) return undefined;
  const embedder = await embedderOf(config.embed);
  const { dims } = config;
  return {
    dims,
    fields: config.fields,
    async embedTexts(texts) {
      if (texts.length === 0) return [];
      const vectors = await embedder.embedDocuments(texts);
      if (vectors.length !== texts.length)
        throw new Error(`store.index.embed returned ${vectors.length} vectors for ${texts.length} texts`);
      return vectors.map((v) => checked(v, dims));
    },
    embedQuery: async (text) => checked(await embedder.embedQuery(text), dims),
  };
}

/** The parts of a path: `a.b`, `a[0]`, `a[*].b`, `a[-1]`; `$` alone is the whole value. */
function tokens(path: string): string[] {
  return path.match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
}

const asText = (v: unknown): string[] =>
  v === undefined || v === null
    ? []
    : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? [String(v)]
      : [JSON.stringify(v)];

/** The texts at a JSON path of a value (several where the path has `[*]`), as LangGraph extracts them to embed. */
export function textsAtPath(value: unknown, path: string): string[] {
  if (path === '$') return [JSON.stringify(value)];
  const walk = (v: unknown, rest: string[]): string[] => {
    if (rest.length === 0) return asText(v);
    const [token, ...more] = rest as [string, ...string[]];
    if (token.startsWith('[')) {
      if (!Array.isArray(v)) return [];
      const index = token.slice(1, -1);
      if (index === '*') return v.flatMap((x) => walk(x, more));
      const i = Number(index);
      if (!Number.isInteger(i)) return [];
      const at = i < 0 ? v.length + i : i;
      return at >= 0 && at < v.length ? walk(v[at], more) : [];
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, token)) return [];
    return walk((v as Record<string, unknown>)[token], more);
  };
  return walk(value, tokens(path));
}

/** What to embed of a value: each field path's texts, labelled `path` (or `path.i` for several). */
export function fieldTexts(value: Record<string, unknown>, fields: string[]): { field: string; text: string }[] {
  return fields.flatMap((path) => {
    const texts = textsAtPath(value, path);
    return texts.length === 1
      ? [{ field: path, text: texts[0]! }]
      : texts.map((text, i) => ({ field: `${path}.${i}`, text }));
  });
}

/** Cosine similarity (0 when either vector is all zeros). */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
