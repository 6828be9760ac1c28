// The read models on a replicated ClickHouse cluster (CLICKHOUSE_CLUSTER): the same DDL as on one
// server, rewritten in one place as the client sends it. Tables, views and the database are made
// (and dropped, and renamed by a replay's swap) ON CLUSTER, so every replica has them; MergeTree
// engines become their Replicated forms, whose parts every replica copies from the others through
// ZooKeeper (18.16) or ClickHouse Keeper (current releases). A table's path in ZooKeeper is its
// database and the name it is created with, under the replica's {shard} macro; the replica is its
// {replica} macro (the servers' config.xml defines both, see infra/clickhouse.ts). A RENAME keeps
// that path, so a table swapped in by a replay keeps the path of its replay name: unique, since
// each replay's names are.
//
// Names are given their database: an ON CLUSTER statement runs on each server in that server's
// default database, not the one the request named.
//
// Mutations (ALTER … DELETE) and ALTER … ADD COLUMN are not rewritten: on a replicated table
// ClickHouse replicates them itself.
import { raw, type Sql } from './sql.ts';

const IDENT = '`(?:[^`\\\\]|\\\\.)+`|[A-Za-z_][A-Za-z0-9_]*';
const CREATE = new RegExp(`^(\\s*CREATE\\s+(?:TABLE|VIEW|DATABASE)\\s+IF\\s+NOT\\s+EXISTS\\s+)(${IDENT})`, 'i');
const DROP = new RegExp(`^(\\s*DROP\\s+(?:TABLE|VIEW|DATABASE)\\s+(?:IF\\s+EXISTS\\s+)?)(${IDENT})\\s*$`, 'i');
const RENAME = /^\s*RENAME\s+TABLE\s/i;
const ENGINE = /\bENGINE\s*=\s*(Replacing|Summing|Aggregating|Collapsing)?MergeTree(?:\(([^)]*)\))?/i;

const unquote = (name: string) => (name.startsWith('`') ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name);
const quote = (name: string) => `\`${name.replace(/[`\\]/g, '\\$&')}\``;

/**
 * The statement as the cluster needs it: ON CLUSTER for CREATE / DROP / RENAME, Replicated
 * engines for MergeTree tables of `database`. Anything else is sent as it is.
 */
export function clusterStatement(statement: Sql, cluster: string, database: string): Sql {
  const text = statement.text;
  const on = ` ON CLUSTER ${quote(cluster)}`;
  const qualified = (name: string) => `${quote(database)}.${quote(unquote(name))}`;
  const created = CREATE.exec(text);
  if (created) {
    const [head, prefix, name] = created;
    let rest = text.slice(head.length);
    const engine = ENGINE.exec(rest);
    if (engine) {
      const [whole, kind = '', args] = engine;
      const path = `/clickhouse/tables/{shard}/${database}/${unquote(name!)}`;
      const replicated = `ENGINE = Replicated${kind}MergeTree('${path.replace(/'/g, "\\'")}', '{replica}'${args?.trim() ? `, ${args.trim()}` : ''})`;
      rest = rest.slice(0, engine.index) + replicated + rest.slice(engine.index + whole.length);
    }
    const isDatabase = /DATABASE\s+IF/i.test(prefix!);
    return raw(`${prefix}${isDatabase ? name : qualified(name!)}${on}${rest}`);
  }
  const dropped = DROP.exec(text);
  if (dropped) return raw(`${dropped[1]}${/DATABASE\s/i.test(dropped[1]!) ? dropped[2] : qualified(dropped[2]!)}${on}`);
  if (RENAME.test(text)) {
    const pairs = text
      .replace(RENAME, '')
      .split(',')
      .map((pair) => {
        const names = new RegExp(`^\\s*(${IDENT})\\s+TO\\s+(${IDENT})\\s*$`, 'i').exec(pair);
        if (!names) throw new Error(`cannot send this RENAME ON CLUSTER: ${text.slice(0, 200)}`);
        return `${qualified(names[1]!)} TO ${qualified(names[2]!)}`;
      });
    return raw(`RENAME TABLE ${pairs.join(', ')}${on}`);
  }
  return statement;
}
