// What a page view costs the server, one view at a time: the built dashboard with the sandbox's 2,000 links synced,
// then each page viewed `views` times a round by one signed-in session, the pages taking turns 10 views at a time: the
// CPU time of the dashboard's process tree per view (/proc), and the weight of /links as HTML and as RSC payload. The
// floor is /account, an almost empty signed-in page (the shell, the session, the framework) measured in the same
// rounds: each page's cost is also given as a ratio to it, round by round, so a busy machine moves both sides alike.
// One session and no concurrency: steadier figures than the load suite's. To compare two builds, in one run:
// PAGE_COST_VERSUS=/path/to/another/checkout (npm install and npm run build done there) serves that build beside this
// one, on a copy of the same synced data; the builds take turns block by block, and each build's pages are given
// against its own floor (the other build's figures are labelled with its folder and commit).
// In `npm run bench` (`npm run bench -- page-cost`), or alone with more rounds:
//   tsx --conditions=react-server scripts/bench/page-cost.ts [views, default 60] [rounds, default 3]
// PAGE_COST_PAGES=/jobs,/api/ready views those paths (after /account) instead of the default pages.
// With PAGE_COST_DATA_DIR, the synced data is kept there and reused by the next run (no second sync).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
    // PAGE_COST_VERSUS: another checkout, built, served beside this one on a copy of the same data; the two take
    // turns block by block, so both see the same machine, and each page's ratio is to its own build's floor.
    const versusRoot = process.env.PAGE_COST_VERSUS;
    const versusDir = `${dataDir}-versus`;
    if (versusRoot) {
      rmSync(versusDir, { recursive: true, force: true });
      cpSync(dataDir, versusDir, { recursive: true });
    }
    const running: Awaited<ReturnType<typeof startBenchDashboard>>[] = [];
    try {
      const quiet = { ...env, SYNC_INTERVAL_MINUTES: "0" };
      running.push(await startBenchDashboard({ port, dataDir, env: quiet }));
      if (versusRoot)
        running.push(await startBenchDashboard({ port: port + 2, dataDir: versusDir, env: quiet, root: versusRoot }));
      const builds = await Promise.all(
        running.map(async (dashboard, i) => ({
          dashboard,
          prefix: i === 0 ? "" : `${buildName(versusRoot!)}: `,
          session: await signIn(dashboard.url, DEMO_ACCOUNTS[1]!),
        })),
      );
      const [main] = builds;
      const fixtures = (await (await fetch(`${main!.dashboard.sandboxUrl}/_sandbox/fixtures`)).json()) as Record<
        string,
        string[]
      >;
      const linkId = fixtures.plain?.[0] ?? Object.values(fixtures).flat()[0]!;
      const get = (build: (typeof builds)[number], target: string, headers: Record<string, string> = {}) =>
        fetch(`${build.dashboard.url}${target}`, {
          headers: { Cookie: build.session.cookie, ...headers },
          redirect: "manual",
        });
      const targets = [FLOOR_PAGE, ...pages.filter((p) => p !== FLOOR_PAGE)].map((p) => p.replace("{link}", linkId));
      const labelOf = (target: string) => target.replace(linkId, "{link}");
      for (const build of builds)
        for (const target of targets) for (let i = 0; i < 5; i++) await (await get(build, target)).text();

      const weights: Figure[] = [];
      for (const build of builds) {
        const htmlText = await (await get(build, "/links")).text();
        let rscResponse = await get(build, "/links", { RSC: "1" });
        const location = rscResponse.headers.get("location");
        if (rscResponse.status === 307 && location) {
          await rscResponse.body?.cancel();
          const to = new URL(location, build.dashboard.url);
          rscResponse = await get(build, to.pathname + to.search, { RSC: "1" });
        }
        const rscText = await rscResponse.text();
        if (process.env.PAGE_COST_DUMP && build === main) {
          writeFileSync(`${process.env.PAGE_COST_DUMP}.html`, htmlText);
          writeFileSync(`${process.env.PAGE_COST_DUMP}.rsc`, rscText);
          for (const target of targets.filter((t) => t !== "/links"))
            writeFileSync(
              `${process.env.PAGE_COST_DUMP}${target.replaceAll("/", "_")}.html`,
              await (await get(build, target)).text(),
            );
        }
        const html = Buffer.byteLength(htmlText) / 1024;
        const rsc = Buffer.byteLength(rscText) / 1024;
        log(`${build.prefix}/links HTML ${html.toFixed(1)} kB, RSC ${rsc.toFixed(1)} kB`);
        weights.push(
          { label: `${build.prefix}/links weight: HTML`, value: html, unit: "kB" },
          { label: `${build.prefix}/links weight: RSC payload`, value: rsc, unit: "kB" },
        );
      }

      // What the process spends with nobody viewing (timers: leases, budget, sync checks): part of every view's figure.
      const idleBefore = treeCpuMs(main!.dashboard.pid);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const idle = (treeCpuMs(main!.dashboard.pid) - idleBefore) / 5;
      log(`Idle: ${idle.toFixed(1)} CPU ms per second`);

      // Within a round the pages (and the builds) take turns in blocks of BLOCK views, so a machine whose load changes
      // during the round weighs on every page alike rather than on whichever page was being viewed then.
      const keyOf = (build: (typeof builds)[number], target: string) => `${build.prefix}${target}`;
      const perView = new Map<string, number[]>(builds.flatMap((b) => targets.map((t) => [keyOf(b, t), []])));
      for (let round = 0; round < rounds; round++) {
        const spent = new Map<string, number>([...perView.keys()].map((key) => [key, 0]));
        for (let done = 0; done < views; done += BLOCK) {
          for (const build of builds) {
            for (const target of targets) {
              const before = treeCpuMs(build.dashboard.pid);
              for (let i = done; i < Math.min(views, done + BLOCK); i++) {
                const response = await get(build, target);
                await response.text();
                if (response.status !== 200) throw new Error(`${target} answered HTTP ${response.status}`);
              }
              const key = keyOf(build, target);
              spent.set(key, spent.get(key)! + treeCpuMs(build.dashboard.pid) - before);
            }
          }
        }
        for (const [key, ms] of spent) perView.get(key)!.push(ms / views);
      }
      for (const build of builds) {
        const floor = perView.get(keyOf(build, targets[0]!))!;
        const floorFigure = fromRuns(`${build.prefix}${FLOOR_PAGE} (the floor) CPU per view`, floor, "ms");
        figures.push(floorFigure);
        for (const target of targets.slice(1)) {
          const label = labelOf(target);
          const runs = perView.get(keyOf(build, target))!;
          figures.push(
            fromRuns(`${build.prefix}${label} CPU per view`, runs, "ms", {
              versus: { label: FLOOR_PAGE, value: floorFigure.value! },
            }),
          );
          // Round by round: each page against its build's floor measured in the same round.
          const ratios = runs.map((ms, round) => ms / floor[round]!);
          const goal = RATIO_GOALS[label];
          figures.push(
            fromRuns(
              `${build.prefix}${label} cost / ${FLOOR_PAGE} cost`,
              ratios,
              "×",
              goal ? { goal: atMost(goal) } : {},
            ),
          );
        }
      }
      figures.push(
        ...weights,
        { label: "idle CPU of the dashboard (counted in each view)", value: idle, unit: "ms/s" },
        { label: "RSS after the views", value: treeRssBytes(main!.dashboard.pid) / 2 ** 20, unit: "MB" },
      );
    } finally {
      for (const dashboard of running) await dashboard.stop();
      if (versusRoot && !keptDir) rmSync(versusDir, { recursive: true, force: true });
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

/** A checkout's name in the figures: its folder and commit. */
function buildName(root: string): string {
  try {
    return `${path.basename(root)} (${execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()})`;
  } catch {
    return path.basename(root);
  }
}
