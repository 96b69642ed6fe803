import { readFileSync, readdirSync } from "node:fs";

// What a process manager sees: processes by PID, read from /proc (Linux). A PID is only "the same process" with the
// same start time, so a PID reused by an unrelated process later is not mistaken for a survivor.

export interface ProcessRef {
  pid: number;
  /** Field 22 of /proc/PID/stat: clock ticks after boot at which the process started. */
  startTime: string;
  command: string;
}

interface Stat {
  pid: number;
  ppid: number;
  state: string;
  startTime: string;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name sits in parentheses and may itself hold spaces and parentheses: the fields follow the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid] = fields;
  const startTime = fields[19];
  if (state === undefined || ppid === undefined || startTime === undefined) return undefined;
  return { pid, ppid: Number(ppid), state, startTime };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

function allStats(): Stat[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is Stat => stat !== undefined);
}

/** The process and every process below it, as they are now. */
export function processTree(rootPid: number): ProcessRef[] {
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const root = stats.find((s) => s.pid === rootPid);
  if (!root) return [];
  const tree: Stat[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return tree.map((s) => ({ pid: s.pid, startTime: s.startTime, command: commandOf(s.pid) }));
}

/** Whether that very process still runs (a zombie, already ended and only waiting to be reaped, does not). */
export function isRunning(ref: ProcessRef): boolean {
  const stat = readStat(ref.pid);
  return stat !== undefined && stat.startTime === ref.startTime && stat.state !== "Z";
}

/** Ends processes this test started (by PID, checked against their start time), abruptly: clean-up after a failure. */
export function killProcesses(refs: ProcessRef[]): void {
  for (const ref of refs) {
    if (!isRunning(ref)) continue;
    try {
      process.kill(ref.pid, "SIGKILL");
    } catch {
      // ended meanwhile
    }
  }
}
