// What Linux keeps of a process or thread in /proc/<pid>[/task/<tid>]/stat, read one way for the
// benchmarks' CPU meters and the priority tests: the command (between the first '(' and the last
// ')', since it may hold spaces and parentheses) and the fields after it, the state first.
import { readdirSync, readFileSync } from 'node:fs';

/** The command and the fields after it: fields[0] is the state (field 3 of proc(5)), fields[i] is field i + 3. */
export function procStat(path: string): { comm: string; fields: string[] } {
  const stat = readFileSync(path, 'utf8');
  const end = stat.lastIndexOf(')');
  return { comm: stat.slice(stat.indexOf('(') + 1, end), fields: stat.slice(end + 2).split(' ') };
}

/** The nice value of every thread of a process (field 19). */
export function threadNices(pid: number | 'self' = 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => Number(procStat(`/proc/${pid}/task/${tid}/stat`).fields[16]));
}
