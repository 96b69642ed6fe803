// Where a page view's server CPU time goes: the built dashboard with the sandbox's 2,000 links synced, then started
// again on the same data with no sync and V8's CPU profiler running only while one signed-in session views the page
// `views` times (cpu-profile-preload.mjs); prints the packages and functions with the most self time. Not part of
// `npm run bench`.
// Run: tsx --conditions=react-server scripts/bench/profile-page.ts [path, default /links] [views, default 200]
// With PAGE_COST_DATA_DIR, the synced data is kept there and reused (as page-cost.ts does): no sync before each profile.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import { startBenchDashboard } from "./dashboard";
import { signIn, syncedReadModel } from "./load";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const target = process.argv[2] ?? "/links";
const views = Number(process.argv[3] ?? 200);
const port = Number(process.env.BENCH_PORT ?? 3250);
const keptDir = process.env.PAGE_COST_DATA_DIR;
const dataDir = keptDir ?? mkdtempSync(path.join(tmpdir(), "linkdesk-profile-"));
const syncedMark = path.join(dataDir, ".synced");
const profileFile = path.join(dataDir, "view.cpuprofile");
rmSync(profileFile, { force: true });
try {
  const env = { BUDGET_APP_SHARE: "1", SYNC_SHARE: "1", SYNC_INTERVAL_MINUTES: "600" };
  if (!existsSync(syncedMark)) {
    const first = await startBenchDashboard({ port, dataDir, env });
    try {
      await syncedReadModel(await signIn(first.url, DEMO_ACCOUNTS[0]!));
    } finally {
      await first.stop();
    }
    writeFileSync(syncedMark, "");
  }
  const profiled = await startBenchDashboard({
    port,
    dataDir,
    env: {
      ...env,
      SYNC_INTERVAL_MINUTES: "0",
      NODE_OPTIONS: `--import ${path.join(import.meta.dirname, "cpu-profile-preload.mjs")}`,
      LINKDESK_CPU_PROFILE: profileFile,
    },
  });
  let wallMs = 0;
  try {
    const session = await signIn(profiled.url, DEMO_ACCOUNTS[1]!);
    const view = async () =>
      (await fetch(`${profiled.url}${target}`, { headers: { Cookie: session.cookie }, redirect: "manual" })).text();
    for (let i = 0; i < 5; i++) await view();
    process.kill(profiled.pid, "SIGUSR2");
    const started = performance.now();
    for (let i = 0; i < views; i++) await view();
    wallMs = performance.now() - started;
    process.kill(profiled.pid, "SIGUSR2");
    for (let i = 0; i < 50 && !existsSync(profileFile); i++) await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    await profiled.stop();
  }
  if (!existsSync(profileFile)) throw new Error("the dashboard wrote no CPU profile");
  report(JSON.parse(readFileSync(profileFile, "utf8")) as Profile, wallMs);
} finally {
  // PROFILE_KEEP leaves the profile in the kept data directory, for a closer look (e.g. in Chrome's DevTools).
  if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
  else if (!process.env.PROFILE_KEEP) rmSync(profileFile, { force: true });
}

function report(profile: Profile, wallMs: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self]
    .filter(([id]) => ["(idle)", "(program)"].includes(byId.get(id)!.callFrame.functionName))
    .reduce((a, [, ms]) => a + ms, 0);
  const where = (url: string) => {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    if (pkg) return pkg;
    if (url.includes(".next/server/chunks")) return ".next server chunks (app code + bundled packages)";
    if (url.startsWith("node:") || url === "") return "node internals / native";
    return path.relative(process.cwd(), url.replace(/^file:\/\//, ""));
  };
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)" || functionName === "(program)") continue;
    const key = `${functionName || "(anonymous)"} ${where(url)}:${lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
    packages.set(where(url), (packages.get(where(url)) ?? 0) + ms);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, ms]) =>
          `  ${(ms / views).toFixed(2).padStart(7)} ms/view  ${((ms / (total - idle)) * 100).toFixed(1).padStart(5)} %  ${k}`,
      );
  console.log(
    `${target}: ${views} views in ${(wallMs / 1000).toFixed(1)} s; profiled CPU (idle excluded) ${((total - idle) / views).toFixed(1)} ms per view`,
  );
  console.log("\nBy package or place:\n" + top(packages, 15).join("\n"));
  console.log("\nBy function (self time):\n" + top(functions, 30).join("\n"));
}
