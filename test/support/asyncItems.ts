// Every item of an async iterable (the clients' paginated lists), in order. Array.fromAsync does
// this, but es2024, the library the project compiles against, does not declare it yet.
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
