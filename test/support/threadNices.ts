// The nice value of every thread of a process, as Linux keeps them: the 19th field of
// /proc/<pid>/task/<tid>/stat (counted after the command, which may hold spaces and parentheses).
import { readdirSync, readFileSync } from 'node:fs';

export function threadNices(pid: number | 'self' = 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}
