import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { processTree } from "../../e2e/process-tree";

// A server's cost as Linux accounts it, read from /proc: CPU time and resident memory of a process and every process
// below it (`next start` may serve from a child), so the figure is the server's whatever its process layout.

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined; // ended meanwhile
  }
}

/** CPU time (user + system, its reaped children included) of one process, in ms. */
function cpuMsOf(pid: number): number {
  const text = read(`/proc/${pid}/stat`);
  if (!text) return 0;
  // Fields follow the command name's closing parenthesis; utime, stime, cutime, cstime are fields 14 to 17.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Resident memory of one process (VmRSS), in bytes. */
function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`) ?? "");
  return match ? Number(match[1]) * 1024 : 0;
}

export const treePids = (rootPid: number) => processTree(rootPid).map((p) => p.pid);
export const treeCommands = (rootPid: number) => processTree(rootPid).map((p) => `${p.pid}: ${p.command.slice(0, 80)}`);
export const treeCpuMs = (rootPid: number) => treePids(rootPid).reduce((sum, pid) => sum + cpuMsOf(pid), 0);
export const treeRssBytes = (rootPid: number) => treePids(rootPid).reduce((sum, pid) => sum + rssOf(pid), 0);

/** Samples the tree's resident memory every `everyMs` until stopped; returns the peak seen. */
export function sampleRss(rootPid: number, everyMs = 250): { stop: () => number } {
  let peak = treeRssBytes(rootPid);
  const timer = setInterval(() => (peak = Math.max(peak, treeRssBytes(rootPid))), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, treeRssBytes(rootPid));
    },
  };
}
