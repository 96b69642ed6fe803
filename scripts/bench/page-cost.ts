// What a page view costs the server, one view at a time: the built dashboard with the sandbox's 2,000 links synced,
// then each page viewed `views` times a round by one signed-in session, the pages taking turns 10 views at a time: the
// CPU time of the dashboard's process tree per view (/proc), and the weight of /links as HTML and as RSC payload. The
// floor is /account, an almost empty signed-in page (the shell, the session, the framework) measured in the same
// rounds: each page's cost is also given as a ratio to it, round by round, so a busy machine moves both sides alike.
// One session and no concurrency, so two builds can be compared back to back: steadier figures than the load suite's.
// In `npm run bench` (`npm run bench -- page-cost`), or alone with more rounds:
//   tsx --conditions=react-server scripts/bench/page-cost.ts [views, default 60] [rounds, default 3]
// PAGE_COST_PAGES=/jobs,/api/ready views those paths (after /account) instead of the default pages.
// With PAGE_COST_DATA_DIR, the synced data is kept there and reused by the next run (no second sync).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import { startBenchDashboard } from "./dashboard";
import { signIn, syncedReadModel } from "./load";
import { treeCpuMs, treeRssBytes } from "./proc";
import { atMost, type Figure, fromRuns, printSuite, type SuiteResult } from "./report";

/** The almost empty signed-in page every other page is compared with. */
export const FLOOR_PAGE = "/account";
/** The pages measured besides the floor; `{link}` is a synced link's own page. */
const DEFAULT_PAGES = ["/links", "/health", "/links/{link}", "/jobs", "/audit"];
/** Issue 25: these pages cost at most this many times the floor. */
const RATIO_GOALS: Record<string, number> = { "/links": 1.5, "/health": 1.5 };
/** Views of one page before the next page's turn. */
const BLOCK = 10;

export interface PageCostOptions {
  port?: number;
  views?: number;
  rounds?: number;
  pages?: string[];
  /** Print each step, for the command-line run. */
  verbose?: boolean;
}

export async function benchPageCost({
  port = 3250,
  views = 60,
  rounds = 3,
  pages = DEFAULT_PAGES,
  verbose = false,
}: PageCostOptions = {}): Promise<SuiteResult> {
  const log = (line: string) => verbose && console.log(line);
  const keptDir = process.env.PAGE_COST_DATA_DIR;
  const dataDir = keptDir ?? mkdtempSync(path.join(tmpdir(), "linkdesk-page-cost-"));
  const syncedMark = path.join(dataDir, ".synced");
  const env = { BUDGET_APP_SHARE: "1", SYNC_SHARE: "1", SYNC_INTERVAL_MINUTES: "600" };
  const figures: Figure[] = [];
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
      const fixtures = (await (await fetch(`${dashboard.sandboxUrl}/_sandbox/fixtures`)).json()) as Record<
        string,
        string[]
      >;
      const linkId = fixtures.plain?.[0] ?? Object.values(fixtures).flat()[0]!;
      const get = (target: string, headers: Record<string, string> = {}) =>
        fetch(`${dashboard.url}${target}`, { headers: { Cookie: session.cookie, ...headers }, redirect: "manual" });
      const targets = [FLOOR_PAGE, ...pages.filter((p) => p !== FLOOR_PAGE)].map((p) => p.replace("{link}", linkId));
      const labelOf = (target: string) => target.replace(linkId, "{link}");
      for (const target of targets) for (let i = 0; i < 5; i++) await (await get(target)).text();

      const htmlText = await (await get("/links")).text();
      let rscResponse = await get("/links", { RSC: "1" });
      const location = rscResponse.headers.get("location");
      if (rscResponse.status === 307 && location) {
        await rscResponse.body?.cancel();
        const to = new URL(location, dashboard.url);
        rscResponse = await get(to.pathname + to.search, { RSC: "1" });
      }
      const rscText = await rscResponse.text();
      if (process.env.PAGE_COST_DUMP) {
        writeFileSync(`${process.env.PAGE_COST_DUMP}.html`, htmlText);
        writeFileSync(`${process.env.PAGE_COST_DUMP}.rsc`, rscText);
        for (const target of targets.filter((t) => t !== "/links"))
          writeFileSync(
            `${process.env.PAGE_COST_DUMP}${target.replaceAll("/", "_")}.html`,
            await (await get(target)).text(),
          );
      }
      const html = Buffer.byteLength(htmlText) / 1024;
      const rsc = Buffer.byteLength(rscText) / 1024;
      log(`/links HTML ${html.toFixed(1)} kB, RSC ${rsc.toFixed(1)} kB`);

      // What the process spends with nobody viewing (timers: leases, budget, sync checks): part of every view's figure.
      const idleBefore = treeCpuMs(dashboard.pid);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const idle = (treeCpuMs(dashboard.pid) - idleBefore) / 5;
      log(`Idle: ${idle.toFixed(1)} CPU ms per second`);

      // Within a round the pages take turns in blocks of BLOCK views, so a machine whose load changes during the round
      // weighs on every page alike rather than on whichever page was being viewed then.
      const perView = new Map<string, number[]>(targets.map((t) => [t, []]));
      for (let round = 0; round < rounds; round++) {
        const spent = new Map<string, number>(targets.map((t) => [t, 0]));
        for (let done = 0; done < views; done += BLOCK) {
          for (const target of targets) {
            const before = treeCpuMs(dashboard.pid);
            for (let i = done; i < Math.min(views, done + BLOCK); i++) {
              const response = await get(target);
              await response.text();
              if (response.status !== 200) throw new Error(`${target} answered HTTP ${response.status}`);
            }
            spent.set(target, spent.get(target)! + treeCpuMs(dashboard.pid) - before);
          }
        }
        for (const target of targets) perView.get(target)!.push(spent.get(target)! / views);
      }
      const floor = perView.get(targets[0]!)!;
      const floorFigure = fromRuns(`${FLOOR_PAGE} (the floor) CPU per view`, floor, "ms");
      figures.push(floorFigure);
      for (const target of targets.slice(1)) {
        const label = labelOf(target);
        const runs = perView.get(target)!;
        figures.push(
          fromRuns(`${label} CPU per view`, runs, "ms", { versus: { label: FLOOR_PAGE, value: floorFigure.value! } }),
        );
        // Round by round: each page against the floor measured just before it.
        const ratios = runs.map((ms, round) => ms / floor[round]!);
        const goal = RATIO_GOALS[label];
        figures.push(fromRuns(`${label} cost / ${FLOOR_PAGE} cost`, ratios, "×", goal ? { goal: atMost(goal) } : {}));
      }
      figures.push(
        { label: "/links weight: HTML", value: html, unit: "kB" },
        { label: "/links weight: RSC payload", value: rsc, unit: "kB" },
        { label: "idle CPU of the dashboard (counted in each view)", value: idle, unit: "ms/s" },
        { label: "RSS after the views", value: treeRssBytes(dashboard.pid) / 2 ** 20, unit: "MB" },
      );
    } finally {
      await dashboard.stop();
    }
  } finally {
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
  }
  return {
    name: `Page cost: server CPU per view, one session, ${views} views × ${rounds} rounds, beside ${FLOOR_PAGE}`,
    figures,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const result = await benchPageCost({
    port: Number(process.env.BENCH_PORT ?? 3250),
    views: Number(process.argv[2] ?? 60),
    rounds: Number(process.argv[3] ?? 3),
    pages: process.env.PAGE_COST_PAGES?.split(","),
    verbose: true,
  });
  printSuite({ key: "page-cost", seconds: (performance.now() - started) / 1000, ...result });
}
