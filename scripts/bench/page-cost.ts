// What a page view costs the server, one view at a time: the built dashboard with the sandbox's 2,000 links synced,
// then each page viewed `views` times in turn by one signed-in session, the CPU time of the dashboard's process tree
// per view (/proc), and the weight of /links as HTML and as RSC payload. One session and no concurrency, so two builds
// can be compared back to back on a busy machine: the figures are steadier than the load suite's. Not part of
// `npm run bench`.
// Run: tsx --conditions=react-server scripts/bench/page-cost.ts [views, default 100] [rounds, default 3]
// PAGE_COST_PAGES=/jobs,/api/ready views those paths instead of the four pages.
// With PAGE_COST_DATA_DIR, the synced data is kept there and reused by the next run (no second sync).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import { startBenchDashboard } from "./dashboard";
import { signIn, syncedReadModel } from "./load";
import { treeCpuMs, treeRssBytes } from "./proc";

const views = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 3);
const port = Number(process.env.BENCH_PORT ?? 3250);
const keptDir = process.env.PAGE_COST_DATA_DIR;
const dataDir = keptDir ?? mkdtempSync(path.join(tmpdir(), "linkdesk-page-cost-"));
const syncedMark = path.join(dataDir, ".synced");
const env = { BUDGET_APP_SHARE: "1", SYNC_SHARE: "1", SYNC_INTERVAL_MINUTES: "600" };

try {
  if (!existsSync(syncedMark)) {
    const first = await startBenchDashboard({ port, dataDir, env });
    try {
      await syncedReadModel(await signIn(first.url, DEMO_ACCOUNTS[0]!));
    } finally {
      await first.stop();
    }
    writeFileSync(syncedMark, "");
  }
  const dashboard = await startBenchDashboard({ port, dataDir, env: { ...env, SYNC_INTERVAL_MINUTES: "0" } });
  try {
    const session = await signIn(dashboard.url, DEMO_ACCOUNTS[1]!);
    const fixtures = (await (await fetch(`${dashboard.sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
    const linkId = fixtures.plain?.[0] ?? Object.values(fixtures).flat()[0]!;
    const get = (target: string, headers: Record<string, string> = {}) => fetch(`${dashboard.url}${target}`, { headers: { Cookie: session.cookie, ...headers }, redirect: "manual" });
    const pages = process.env.PAGE_COST_PAGES?.split(",") ?? ["/links", "/health", `/links/${linkId}`, "/jobs"];
    for (const target of pages) for (let i = 0; i < 5; i++) await (await get(target)).text();

    const htmlText = await (await get("/links")).text();
    const html = Buffer.byteLength(htmlText);
    let rscResponse = await get("/links", { RSC: "1" });
    const location = rscResponse.headers.get("location");
    if (rscResponse.status === 307 && location) {
      await rscResponse.body?.cancel();
      rscResponse = await get(new URL(location, dashboard.url).pathname + new URL(location, dashboard.url).search, { RSC: "1" });
    }
    const rscText = await rscResponse.text();
    const rsc = Buffer.byteLength(rscText);
    if (process.env.PAGE_COST_DUMP) {
      writeFileSync(`${process.env.PAGE_COST_DUMP}.html`, htmlText);
      writeFileSync(`${process.env.PAGE_COST_DUMP}.rsc`, rscText);
      for (const target of pages.slice(1)) writeFileSync(`${process.env.PAGE_COST_DUMP}${target.replaceAll("/", "_")}.html`, await (await get(target)).text());
    }
    console.log(`/links HTML ${(html / 1024).toFixed(1)} kB, RSC ${(rsc / 1024).toFixed(1)} kB`);

    // What the process spends with nobody viewing (timers: leases, budget, sync checks), so it is not taken for views.
    const idleBefore = treeCpuMs(dashboard.pid);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    console.log(`Idle: ${((treeCpuMs(dashboard.pid) - idleBefore) / 5).toFixed(1)} CPU ms per second`);

    const results = new Map<string, number[]>(pages.map((p) => [p, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of pages) {
        const before = treeCpuMs(dashboard.pid);
        for (let i = 0; i < views; i++) {
          const response = await get(target);
          await response.text();
          if (response.status !== 200) throw new Error(`${target} answered HTTP ${response.status}`);
        }
        results.get(target)!.push((treeCpuMs(dashboard.pid) - before) / views);
      }
    }
    for (const [target, perView] of results) {
      const sorted = [...perView].sort((a, b) => a - b);
      console.log(`${target.padEnd(40)} CPU ms/view median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} (${sorted.map((v) => v.toFixed(1)).join(", ")})`);
    }
    console.log(`RSS after the views: ${(treeRssBytes(dashboard.pid) / 2 ** 20).toFixed(0)} MB`);
  } finally {
    await dashboard.stop();
  }
} finally {
  if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
}
