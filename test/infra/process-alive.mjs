// Whether a started JVM is still there. kill(pid, 0) also succeeds for a zombie, which a JVM that died under a
// parent that does not reap it would be; /proc tells the two apart. (A zombie main thread with other threads still
// exiting is a JVM that is going away.)
import { readdirSync, readFileSync } from 'node:fs';

export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') return true;
    return readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}
