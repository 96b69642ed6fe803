// The built dashboard under 50 signed-in staff sessions, on loopback, with the sandbox's seeded 2,000 links synced
// into the read model: each session browses the links list, a link's page, Health and Jobs with a 1–3 s think time
// (latency percentiles and errors), then the same sessions with no think time, one page at a time (throughput and
// the server's CPU time per view, read from /proc). Also the server's resident memory idle and at its peak under the
// load, and the weight of the links list (HTML, and the RSC payload a client-side navigation fetches). On the embedded
// database, and on PostgreSQL in a scratch database when DATABASE_URL is set: one dashboard, then two on the same
// database as at scale, each session staying with one of them as behind a sticky load balancer. Figures, not assertions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { DEMO_ACCOUNTS } from "../../lib/auth/demo";
import { startBenchDashboard } from "./dashboard";
import { sampleRss, treeCommands, treeCpuMs, treeRssBytes } from "./proc";
import { type Figure, below, exactly, skipped } from "./report";
import { createScratchDatabase } from "./scratch-database";
import { percentile } from "./stats";

const PAGES = ["/links", "/links/{id}", "/health", "/jobs"] as const;
type PageKey = (typeof PAGES)[number];

/** The error boundary's title (app/(dashboard)/error.tsx): a page that failed after its status was sent. */
const ERROR_BOUNDARY = "This page could not be shown";
/** Bounds on what the load sends, whatever the timings: loopback only, never more than this many views a phase. */
const MAX_VIEWS_PER_PHASE = 20_000;
const VIEW_TIMEOUT_MS = 30_000;
const MB = 2 ** 20;

interface Session {
  /** The dashboard instance this session uses. */
  baseUrl: string;
  cookie: string;
  email: string;
}

interface View {
  page: PageKey;
  ms: number;
  ok: boolean;
  why?: string;
}

export interface LoadOptions {
  port?: number;
  sessions?: number;
  thinkSeconds?: number;
  /** Seconds of no-think load on each page. */
  busySecondsPerPage?: number;
}

export async function benchLoad(opts: LoadOptions = {}): Promise<{ name: string; figures: Figure[] }> {
  const { port = 3176, sessions = 50, thinkSeconds = 60, busySecondsPerPage = 5 } = opts;
  const figures: Figure[] = [];
  const embedded = await measure("embedded", { port, sessions, thinkSeconds, busySecondsPerPage });
  figures.push(...embedded);
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    // Side by side: one PostgreSQL dashboard against the embedded database, two against one.
    let before = { label: "embedded" as Setup, figures: embedded };
    for (const [setup, instances] of [
      ["PostgreSQL", 1],
      ["PostgreSQL, two instances", 2],
    ] as const) {
      const scratch = await createScratchDatabase(serverUrl);
      try {
        const measured = await measure(
          setup,
          { port, sessions, thinkSeconds, busySecondsPerPage },
          scratch.url,
          instances,
        );
        for (const figure of measured) {
          const twin = before.figures.find(
            (e) => e.label === `${before.label}:${figure.label.slice(setup.length + 1)}`,
          );
          figures.push(twin?.value ? { ...figure, versus: { label: before.label, value: twin.value } } : figure);
        }
        before = { label: setup, figures: measured };
      } finally {
        await scratch.drop();
      }
    }
  } else {
    figures.push(skipped("PostgreSQL", "DATABASE_URL is not set"));
  }
  return {
    name: `${sessions} signed-in sessions on the built dashboard: latency, throughput, CPU per view, memory, page weight`,
    figures,
  };
}

type Setup = "embedded" | "PostgreSQL" | "PostgreSQL, two instances";

async function measure(
  label: Setup,
  { port, sessions, thinkSeconds, busySecondsPerPage }: Required<LoadOptions>,
  databaseUrl?: string,
  instances = 1,
): Promise<Figure[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "linkdesk-bench-load-"));
  const dashboard = await startBenchDashboard({
    port,
    instances,
    dataDir,
    env: {
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      // The first sync reads all 2,000 links at the whole per-app limit (about two minutes), and no other starts
      // during the run: the load measures page views, not a sync in the background.
      BUDGET_APP_SHARE: "1",
      SYNC_SHARE: "1",
      SYNC_INTERVAL_MINUTES: "600",
    },
  });
  const figures: Figure[] = [];
  const name = (text: string) => `${label}: ${text}`;
  const progress = (text: string) => console.log(`  [load, ${label}] ${text}`);
  try {
    const { pids, urls } = dashboard;
    const cpuMs = () => pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
    const linkIds = await linksToBrowse(dashboard.sandboxUrl);
    const signedIn = await Promise.all(
      Array.from({ length: sessions }, (_, i) =>
        signIn(urls[i % urls.length]!, DEMO_ACCOUNTS[i % DEMO_ACCOUNTS.length]!),
      ),
    );
    const first = signedIn[0]!;
    progress(
      `${sessions} sessions signed in on ${instances} instance(s); waiting for the first sync of the sandbox's links`,
    );
    await syncedReadModel(first);
    progress("synced; measuring");

    // Idle: after start-up, the first sync, and a first view of each page on each instance (code loaded, caches warm).
    for (const session of signedIn.slice(0, instances)) {
      for (const page of PAGES) for (let i = 0; i < 3; i++) await view(session, page, pathOf(page, linkIds));
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idle = pids.map((pid) => treeRssBytes(pid) / MB);
    figures.push({
      label: name("resident memory idle, after start and the first views"),
      value: Math.max(...idle),
      unit: "MB",
      goal: below(300),
      note: `${instances > 1 ? `the larger instance; each: ${idle.map((mb) => mb.toFixed(0)).join(" and ")} MB; ` : ""}processes: ${pids.flatMap(treeCommands).join("; ")}`,
    });

    // The weight of the links list at the seeded size: the document, and the RSC payload of a client navigation.
    const html = await bytesOf(first, "/links", {});
    const rsc = await bytesOf(first, "/links", { RSC: "1" });
    figures.push({
      label: name("/links HTML (2,000 links, first page)"),
      value: html.raw / 1024,
      unit: "kB",
      goal: below(120),
      note: `${(html.gzip / 1024).toFixed(1)} kB gzip; the document carries the RSC payload inline`,
    });
    figures.push({
      label: name("/links RSC payload (RSC: 1)"),
      value: rsc.raw / 1024,
      unit: "kB",
      goal: below(120),
      note: `${(rsc.gzip / 1024).toFixed(1)} kB gzip`,
    });

    const memory = pids.map((pid) => sampleRss(pid));
    // Every session asks for a page in the same instant: what the slowest of them waits when a queue forms at once.
    const burst = await Promise.all(
      signedIn.map((session, s) => view(session, PAGES[s % PAGES.length]!, pathOf(PAGES[s % PAGES.length]!, linkIds))),
    );
    const burstMs = burst.map((v) => v.ms);
    const burstFailed = burst.filter((v) => !v.ok);
    figures.push({
      label: name(`${sessions} views at the same instant (one a session), slowest`),
      value: Math.max(...burstMs),
      unit: "ms",
      note: `p50 ${percentile(burstMs, 50).toFixed(0)} ms; ${burstFailed.length} errors${burstFailed.length ? ` (${describeErrors(burstFailed)})` : ""}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // Staff do not all arrive in the same millisecond: each session starts within the first think time.
    const thinking = await browse(
      signedIn,
      linkIds,
      thinkSeconds * 1000,
      () => 1000 + Math.random() * 2000,
      undefined,
      () => Math.random() * 3000,
    );
    const latencies = thinking.views.map((v) => v.ms);
    const errors = [...burstFailed, ...thinking.views.filter((v) => !v.ok)];
    const note = `${thinking.views.length} views in ${thinkSeconds} s by ${sessions} sessions${instances > 1 ? ` on ${instances} instances` : ""}, each starting within 3 s, think time 1–3 s`;
    figures.push({ label: name("think-time load, latency p50"), value: percentile(latencies, 50), unit: "ms", note });
    figures.push({
      label: name("think-time load, latency p95"),
      value: percentile(latencies, 95),
      unit: "ms",
      goal: below(300),
      note,
    });
    figures.push({ label: name("think-time load, latency p99"), value: percentile(latencies, 99), unit: "ms", note });
    figures.push({
      label: name("think-time load, errors"),
      value: errors.length,
      unit: "",
      goal: exactly(0),
      note: describeErrors(errors),
    });
    for (const page of PAGES) {
      const own = thinking.views.filter((v) => v.page === page).map((v) => v.ms);
      figures.push({
        label: name(`think-time load, ${page} p95`),
        value: percentile(own, 95),
        unit: "ms",
        note: `p50 ${percentile(own, 50).toFixed(0)} ms, ${own.length} views`,
      });
    }

    // No think time, one page at a time, so each page's CPU time is its own.
    for (const page of PAGES) {
      const cpuBefore = cpuMs();
      const busy = await browse(signedIn, linkIds, busySecondsPerPage * 1000, () => 0, page);
      const cpu = cpuMs() - cpuBefore;
      const n = busy.views.length;
      const failed = busy.views.filter((v) => !v.ok);
      const own = busy.views.map((v) => v.ms);
      figures.push({
        label: name(`no think time, ${page} throughput`),
        value: n / busy.seconds,
        unit: "views/s",
        note: `${n} views in ${busy.seconds.toFixed(1)} s; p50 ${percentile(own, 50).toFixed(0)} ms, p99 ${percentile(own, 99).toFixed(0)} ms; ${failed.length} errors${failed.length ? ` (${describeErrors(failed)})` : ""}`,
      });
      figures.push({
        label: name(`no think time, ${page} server CPU per view`),
        value: n ? cpu / n : Number.NaN,
        unit: "ms",
        goal: below(10),
        note: `${cpu.toFixed(0)} ms of CPU for ${n} views${instances > 1 ? `, all instances` : ""}`,
      });
    }
    const peaks = memory.map((m) => m.stop() / MB);
    figures.push({
      label: name("resident memory, peak under the load (sampled every 250 ms)"),
      value: Math.max(...peaks),
      unit: "MB",
      goal: below(400),
      ...(instances > 1
        ? { note: `the larger instance; each: ${peaks.map((mb) => mb.toFixed(0)).join(" and ")} MB` }
        : {}),
    });
    return figures;
  } finally {
    await dashboard.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Links with a history to show, from the sandbox's fixtures: a link's page reads its transactions from the upstream. */
async function linksToBrowse(sandboxUrl: string): Promise<string[]> {
  const fixtures = (await (await fetch(`${sandboxUrl}/_sandbox/fixtures`)).json()) as Record<string, string[]>;
  const ids = [...new Set([...(fixtures.plain ?? []), ...Object.values(fixtures).flat()])].slice(0, 20);
  if (ids.length < 3) throw new Error("the sandbox offers too few fixture links to browse");
  return ids;
}

/** Signs a demo account in through Auth.js's credentials route, as a form post would; returns its cookies. */
export async function signIn(baseUrl: string, account: { email: string; password: string }): Promise<Session> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie(), Origin: baseUrl },
    body: new URLSearchParams({
      csrfToken,
      email: account.email,
      password: account.password,
      callbackUrl: `${baseUrl}/links`,
    }),
  });
  keep(response);
  await response.body?.cancel();
  if (![...jar.keys()].some((k) => k.endsWith("session-token"))) {
    throw new Error(
      `signing in ${account.email} set no session cookie (HTTP ${response.status}, ${response.headers.get("location")})`,
    );
  }
  return { baseUrl, cookie: cookie(), email: account.email };
}

/** Waits for the first sync to finish (the links list says "Synced …" and nothing left to read). */
export async function syncedReadModel(session: Session): Promise<void> {
  const deadline = Date.now() + 8 * 60_000;
  let last = "";
  while (Date.now() < deadline) {
    const response = await fetch(`${session.baseUrl}/links`, {
      headers: { Cookie: session.cookie },
      redirect: "manual",
    });
    const text = await response.text();
    last =
      /data-testid="sync-status"[^>]*>\s*<p[^>]*>([^<]*(?:<!-- -->[^<]*)*)/
        .exec(text)?.[1]
        ?.replaceAll("<!-- -->", "") ?? `HTTP ${response.status}`;
    if (/Synced /.test(last) && !/not read yet|listing|refreshing|resumes/.test(last)) return;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  throw new Error(`the first sync did not finish within 8 minutes (last status: ${last})`);
}

function pathOf(page: PageKey, linkIds: string[]): string {
  return page === "/links/{id}" ? `/links/${linkIds[Math.floor(Math.random() * linkIds.length)]}` : page;
}

async function view(session: Session, page: PageKey, target: string): Promise<View> {
  const started = performance.now();
  try {
    const response = await fetch(`${session.baseUrl}${target}`, {
      headers: { Cookie: session.cookie },
      redirect: "manual",
      signal: AbortSignal.timeout(VIEW_TIMEOUT_MS),
    });
    const text = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 200) return { page, ms, ok: false, why: `HTTP ${response.status}` };
    if (text.includes(ERROR_BOUNDARY)) return { page, ms, ok: false, why: "error boundary" };
    return { page, ms, ok: true };
  } catch (error) {
    return { page, ms: performance.now() - started, ok: false, why: error instanceof Error ? error.name : "failed" };
  }
}

/**
 * Every session views pages until `durationMs` has passed, pausing `think()` ms after each view: the pages in turn
 * (each session starting at a different one), or only `only`. With `arrival`, each session waits that many ms first.
 */
async function browse(
  sessions: Session[],
  linkIds: string[],
  durationMs: number,
  think: () => number,
  only?: PageKey,
  arrival?: () => number,
): Promise<{ views: View[]; seconds: number }> {
  const views: View[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    sessions.map(async (session, s) => {
      if (arrival) await new Promise((resolve) => setTimeout(resolve, arrival()));
      for (let i = s; performance.now() < deadline && views.length < MAX_VIEWS_PER_PHASE; i++) {
        const page = only ?? PAGES[i % PAGES.length]!;
        views.push(await view(session, page, pathOf(page, linkIds)));
        const pause = Math.min(think(), deadline - performance.now());
        if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }),
  );
  return { views, seconds: (performance.now() - started) / 1000 };
}

async function bytesOf(
  session: Session,
  target: string,
  headers: Record<string, string>,
): Promise<{ raw: number; gzip: number }> {
  const { baseUrl } = session;
  const get = (url: string) => fetch(url, { headers: { Cookie: session.cookie, ...headers }, redirect: "manual" });
  let response = await get(`${baseUrl}${target}`);
  // Next.js sends an RSC request without its cache-busting `_rsc` parameter to the same address with one.
  const location = response.headers.get("location");
  if (response.status === 307 && location && new URL(location, baseUrl).searchParams.has("_rsc")) {
    await response.body?.cancel();
    response = await get(new URL(location, baseUrl).href);
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200)
    throw new Error(
      `${target} answered HTTP ${response.status} (${response.headers.get("location") ?? "no location"})`,
    );
  return { raw: body.length, gzip: gzipSync(body).length };
}

function describeErrors(errors: View[]): string {
  if (errors.length === 0) return "";
  const counts = new Map<string, number>();
  for (const e of errors) counts.set(`${e.page} ${e.why}`, (counts.get(`${e.page} ${e.why}`) ?? 0) + 1);
  return [...counts].map(([what, n]) => `${n}× ${what}`).join(", ");
}
