import { eq, inArray, isNotNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSandbox, type TestSandbox } from "../../sandbox/test-support";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import type { Db } from "../db/client";
import { linkSnapshots, links, syncState } from "../db/schema";
import { registerLinkIds } from "../links/discovery";
import { withTestDatabases } from "../testing/databases";
import { UpstreamClient } from "../upstream/client";
import { UpstreamError } from "../upstream/errors";
import { UpstreamApi } from "../upstream/index";
import { HEARTBEAT_MS, LEASE_TTL_MS } from "../leases/timing";
import { SYNC_DEFAULTS, type SyncDeps, type SyncLog, readLearnedLinks, runSync } from "./engine";
import type { SyncBackoff } from "./backoff";
import { requestSync } from "./lease";
import { getSyncStatus } from "./status";

// The sync against the sandbox, without its rate limits (that is sync-rate-limits.test.ts) and at a pace far above
// the real one, so each run takes a second: what is read, in which order, what is kept, and how runs take turns. The
// sandbox lists active links only, as the upstream does; the others reach the read model by registration (the
// product's back end knows every link id) and the sync reads them all the same.

const databases = withTestDatabases();
let upstream: TestSandbox;

beforeAll(async () => {
  // Two cycles of the seeds (every state, error code and fixture, twice): each test syncs every link on each database.
  upstream = await startSandbox({ links: 128 });
});
afterAll(async () => {
  await upstream?.close();
});

/** Far above the real pace: these tests are about what is read, not how fast. */
const UNPACED = { limit: 1_000_000, windowMs: 1000 };

function budgetOf(): Budget {
  const { clientId } = upstream.sandbox.state.options;
  return new Budget({
    store: createMemoryStore(),
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
}

/** The upstream through a fresh budget, remembering the order of detail reads. */
function upstreamApi(base = upstream.base) {
  const { clientId, clientSecret } = upstream.sandbox.state.options;
  const budget = budgetOf();
  const api = new UpstreamApi(new UpstreamClient({ baseUrl: base, clientId, clientSecret, gate: budget }));
  const reads: string[] = [];
  return {
    budget,
    reads,
    api: {
      listLinks: api.listLinks.bind(api),
      getLink: (linkId: string, opts?: Parameters<UpstreamApi["getLink"]>[1]) => {
        reads.push(linkId);
        return api.getLink(linkId, opts);
      },
    },
  };
}

function depsFor(db: Db, more: Partial<SyncDeps> & { base?: string } = {}) {
  const { base, ...rest } = more;
  const { api, budget, reads } = upstreamApi(base);
  const deps: SyncDeps = { db, api, budget, share: 0.8, pace: UNPACED, pageSize: 500, ...rest };
  return { deps, reads };
}

interface Stats {
  byEndpoint: Record<string, { requests: number; rateLimited: number; statuses: Record<string, number> } | undefined>;
  rateLimited: number;
}
async function statsOf(t: TestSandbox = upstream): Promise<Stats> {
  return (await t.raw("GET", "/_sandbox/stats")).json as Stats;
}
const requestsTo = (stats: Stats, endpoint: string) => stats.byEndpoint[endpoint]?.requests ?? 0;

/** Every link id the product's back end knows (the sandbox's stand-in for its database). */
async function backEndIds(t: TestSandbox = upstream): Promise<string[]> {
  return ((await t.raw("GET", "/_sandbox/back-end/link-ids")).json as { link_ids: string[] }).link_ids;
}

async function listedIds(t: TestSandbox = upstream): Promise<string[]> {
  const ids: string[] = [];
  let cursor = "";
  do {
    const page = (await t.api("GET", `/links?limit=5000${cursor ? `&cursor=${cursor}` : ""}`)).json as {
      links: { link_id: string }[];
      next_cursor: string;
    };
    ids.push(...page.links.map((l) => l.link_id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

/** Waits far shorter than the real ones (seconds to minutes), so an outage of fifty reads takes a second. */
const QUICK_BACKOFF: SyncBackoff = { afterFailures: 3, firstDelayMs: 2, maxDelayMs: 16 };

/** Log lines, kept for a test to read. */
function recordingLog() {
  const lines: { level: "info" | "warn" | "error"; msg: string; obj: Record<string, unknown> }[] = [];
  const log: SyncLog = {
    info: (obj, msg) => void lines.push({ level: "info", msg, obj: obj as Record<string, unknown> }),
    warn: (obj, msg) => void lines.push({ level: "warn", msg, obj: obj as Record<string, unknown> }),
    error: (obj, msg) => void lines.push({ level: "error", msg, obj: obj as Record<string, unknown> }),
  };
  return { log, lines };
}

/** Makes every link read before `minutes` ago, as if the last run was that long ago. */
async function age(db: Db, minutes: number, ids?: string[]) {
  const set = { seenAt: sql`now() - (${minutes}::int * interval '1 minute')` };
  await (ids
    ? db.update(links).set(set).where(inArray(links.linkId, ids))
    : db.update(links).set(set).where(isNotNull(links.seenAt)));
}

describe.each(databases)("links sync on $kind", (target) => {
  const db = () => target.database.db;
  let listed: string[] = [];

  beforeEach(async () => {
    await upstream.raw("POST", "/_sandbox/reset");
    await db().delete(links);
    await db().delete(syncState);
    await db().delete(linkSnapshots);
    listed = await listedIds();
    await upstream.raw("POST", "/_sandbox/reset");
  });

  it("reads every listed link's details, records when, and keeps a snapshot of the counts", async () => {
    const { deps, reads } = depsFor(db());
    const result = await runSync(deps);
    expect(result).toMatchObject({
      outcome: "completed",
      resumed: false,
      listed: listed.length,
      fetched: listed.length,
      failed: 0,
      notFound: 0,
      purged: 0,
    });

    const rows = await db().select().from(links);
    expect(rows.map((r) => r.linkId).sort()).toEqual([...listed].sort());
    for (const row of rows) {
      expect(row.seenAt).not.toBeNull();
      expect(row.listedAt).not.toBeNull();
      expect(row.createdAt).not.toBeNull();
      expect(row.learnedFrom).toBe("listing");
      // The listing holds active links only.
      expect(row.state).toBe("connected");
      expect(row.raw).toMatchObject({ link_id: row.linkId });
    }
    expect(new Set(reads).size).toBe(reads.length);

    const stats = await statsOf();
    expect(requestsTo(stats, "GET /links")).toBe(1);
    expect(requestsTo(stats, "GET /links/{id}")).toBe(listed.length);

    const [snapshot] = await db().select().from(linkSnapshots);
    expect(snapshot).toMatchObject({ total: listed.length, byState: { connected: listed.length }, byErrorCode: {} });
    const status = await getSyncStatus(db(), { pace: UNPACED });
    expect(status).toMatchObject({
      phase: "idle",
      running: false,
      done: listed.length,
      total: listed.length,
      etaSeconds: null,
      lastError: null,
    });
  });

  it("reads the links the listing leaves out once the back end has registered them, and keeps where each was learned", async () => {
    const known = await backEndIds();
    expect(known.length).toBeGreaterThan(listed.length);
    const at = new Date();
    expect(await registerLinkIds(db(), known, "registration", at)).toEqual({
      registered: known.length,
      alreadyKnown: 0,
    });
    const { deps, reads } = depsFor(db());
    const result = await runSync(deps);
    expect(result).toMatchObject({
      outcome: "completed",
      resumed: false,
      listed: listed.length,
      fetched: known.length,
      failed: 0,
      notFound: 0,
    });

    const rows = await db().select().from(links);
    expect(rows.map((r) => r.linkId).sort()).toEqual([...known].sort());
    const listedSet = new Set(listed);
    for (const row of rows) {
      expect(row.seenAt).not.toBeNull();
      expect(row.state).not.toBeNull();
      expect(row.raw).toMatchObject({ link_id: row.linkId });
      // Registered first: the listing names some of them later, which changes neither source nor time.
      expect(row).toMatchObject({ learnedFrom: "registration", learnedAt: at });
      expect(row.listedAt !== null).toBe(listedSet.has(row.linkId));
    }
    expect(new Set(reads).size).toBe(reads.length);
    const stats = await statsOf();
    expect(requestsTo(stats, "GET /links/{id}")).toBe(known.length);

    const [snapshot] = await db().select().from(linkSnapshots);
    const byState: Record<string, number> = {};
    for (const row of rows) byState[row.state!] = (byState[row.state!] ?? 0) + 1;
    expect(snapshot).toMatchObject({ total: known.length, byState });
    expect(Object.values(snapshot!.byErrorCode).reduce((a, b) => a + b, 0)).toBe(
      rows.filter((r) => r.errorCode).length,
    );
    expect(byState.error).toBeGreaterThan(0);
    expect(byState.connecting).toBeGreaterThan(0);

    const status = await getSyncStatus(db(), { pace: UNPACED });
    expect(status).toMatchObject({
      phase: "idle",
      running: false,
      done: known.length,
      total: known.length,
      etaSeconds: null,
      lastError: null,
    });
    expect(status.runFinishedAt!.getTime()).toBeGreaterThanOrEqual(status.runStartedAt!.getTime());
  });

  it("reads links registered while it runs next, in the same run, and counts them in its progress", async () => {
    const late = (await backEndIds()).filter((id) => !listed.includes(id));
    expect(late.length).toBeGreaterThan(10);
    const { deps, reads } = depsFor(db(), { concurrency: 1, newLinksLookMs: 0 });
    const getLink = deps.api.getLink;
    // The back end registers its ids while the run reads its eleventh link.
    deps.api = {
      ...deps.api,
      getLink: async (linkId, opts) => {
        if (reads.length === 10) await registerLinkIds(db(), late, "registration");
        return getLink(linkId, opts);
      },
    };
    const totals: number[] = [];
    deps.onProgress = (p) => void (p.phase === "details" && p.total > 0 && totals.push(p.total));
    expect(await runSync(deps)).toMatchObject({
      outcome: "completed",
      listed: listed.length,
      fetched: listed.length + late.length,
    });
    // The eleventh read was under way when they came; the next reads are theirs, then the rest of the queue.
    expect(reads.slice(0, 11).every((id) => listed.includes(id))).toBe(true);
    expect([...reads.slice(11, 11 + late.length)].sort()).toEqual([...late].sort());
    expect(reads.slice(11 + late.length).every((id) => listed.includes(id))).toBe(true);
    expect(totals[0]).toBe(listed.length);
    expect(totals.at(-1)).toBe(listed.length + late.length);
    expect(await getSyncStatus(db(), { pace: UNPACED })).toMatchObject({
      done: listed.length + late.length,
      total: listed.length + late.length,
    });
  });

  it("reads again next, in the same run, a link a webhook asked for after the run read it, unless read in the last 10 s", async () => {
    const { deps, reads } = depsFor(db(), { concurrency: 1, newLinksLookMs: 0 });
    const getLink = deps.api.getLink;
    let asked: string | undefined;
    let recent: string | undefined;
    deps.api = {
      ...deps.api,
      getLink: async (linkId, opts) => {
        if (reads.length === 20 && asked === undefined) {
          // Webhooks (a late retry, an unknown kind) ask for two links the run has read: one a minute ago, as far as
          // the read model can tell, and one a second ago.
          [asked, recent] = [reads[0]!, reads[1]!];
          await db()
            .update(links)
            .set({ seenAt: sql`now() - interval '1 minute'`, readRequestedAt: sql`now()` })
            .where(eq(links.linkId, asked));
          await db()
            .update(links)
            .set({ seenAt: sql`now() - interval '1 second'`, readRequestedAt: sql`now()` })
            .where(eq(links.linkId, recent));
        }
        return getLink(linkId, opts);
      },
    };
    expect(await runSync(deps)).toMatchObject({ outcome: "completed", fetched: listed.length + 1 });
    // The twenty-first read was under way; the next one is the link asked for.
    expect(reads[21]).toBe(asked);
    expect(reads.filter((id) => id === asked)).toHaveLength(2);
    expect(reads.filter((id) => id === recent)).toHaveLength(1);
  });

  it("between runs, reads the links learned since the last run under the sync's lease, leaving the run's progress as it was", async () => {
    await runSync(depsFor(db()).deps);
    const late = (await backEndIds()).filter((id) => !listed.includes(id));
    const unknown = "mk_notUpstreamAtAll00000000";
    await registerLinkIds(db(), [...late, unknown], "registration");
    const [before] = await db().select().from(syncState);

    const { deps, reads } = depsFor(db());
    const result = await readLearnedLinks(deps, { limit: 10_000 });
    expect(result).toEqual({ outcome: "read", fetched: late.length, failed: [unknown] });
    expect([...reads].sort()).toEqual([...late, unknown].sort());
    const rows = await db().select().from(links).where(inArray(links.linkId, late));
    expect(rows.every((row) => row.seenAt !== null && row.state !== null && row.learnedFrom === "registration")).toBe(
      true,
    );
    const [after] = await db().select().from(syncState);
    expect(after).toEqual({ ...before!, owner: null, heartbeatAt: null });

    // Nothing left but the link the upstream does not know, which the next run tries again.
    const again = depsFor(db());
    expect(await readLearnedLinks(again.deps, { skip: new Set([unknown]) })).toEqual({ outcome: "nothing" });
    expect(again.reads).toEqual([]);
    // A few at a time: the next look reads the next ones.
    await db().update(links).set({ seenAt: null }).where(inArray(links.linkId, late));
    const few = depsFor(db());
    expect(await readLearnedLinks(few.deps, { skip: new Set([unknown]), limit: 5 })).toMatchObject({
      outcome: "read",
      fetched: 5,
    });
    expect(few.reads).toHaveLength(5);
    // While another instance holds the lease (a run, or its own look), it reads nothing.
    await db()
      .update(syncState)
      .set({ owner: "instance-b", heartbeatAt: sql`now()` });
    const held = depsFor(db());
    expect(await readLearnedLinks(held.deps)).toEqual({ outcome: "declined" });
    expect(held.reads).toEqual([]);
  });

  it("removes links first seen deleted more than 90 days ago at the end of a run, as the upstream purges them", async () => {
    const [old, recent] = ["mk_purgedLongAgo000000000", "mk_deletedRecently0000000"];
    const seenDeleted = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
    await db()
      .insert(links)
      .values([
        { linkId: old, state: "deleted", seenAt: seenDeleted(91), deletedSeenAt: seenDeleted(91) },
        { linkId: recent, state: "deleted", seenAt: seenDeleted(89), deletedSeenAt: seenDeleted(89) },
      ]);
    const result = await runSync(depsFor(db()).deps);
    expect(result).toMatchObject({ outcome: "completed", purged: 1 });
    const left = (
      await db()
        .select({ linkId: links.linkId })
        .from(links)
        .where(inArray(links.linkId, [old, recent]))
    ).map((r) => r.linkId);
    expect(left).toEqual([recent]);
    // The snapshot counts the read model after the purge.
    const [snapshot] = await db().select().from(linkSnapshots);
    expect(snapshot).toMatchObject({ total: listed.length + 1, byState: { connected: listed.length, deleted: 1 } });
  });

  it("reads error-state links first, then links never read (those the listing never named first), then the newest", async () => {
    await registerLinkIds(db(), await backEndIds(), "registration");
    await runSync(depsFor(db()).deps);
    await age(db(), 60);
    // Three links whose details were never read (e.g. listed just before the last run was stopped).
    const unread = (
      await db().select({ linkId: links.linkId }).from(links).where(eq(links.state, "connected")).limit(3)
    ).map((r) => r.linkId);
    await db().update(links).set({ seenAt: null }).where(inArray(links.linkId, unread));
    // Two registered links never read and never listed (say their first read failed).
    const unlisted = (
      await db()
        .select({ linkId: links.linkId })
        .from(links)
        .where(sql`${links.listedAt} is null and ${links.state} = 'connecting'`)
        .limit(2)
    ).map((r) => r.linkId);
    expect(unlisted).toHaveLength(2);
    await db().update(links).set({ seenAt: null }).where(inArray(links.linkId, unlisted));
    const before = (await db().select().from(links)).filter((r) => r.state !== "deleted");

    const { deps, reads } = depsFor(db());
    expect(await runSync(deps)).toMatchObject({ outcome: "completed", fetched: before.length });
    // Links without created_at (known only by registration) tie on it, and their tie-break is the database's order of
    // ids (its collation): the order is checked by rank, the set in full.
    const rankOf = new Map(
      before.map((r) => [
        r.linkId,
        `${r.state === "error" ? 0 : 1}${r.seenAt === null ? 0 : 1}${r.seenAt === null && r.listedAt === null ? 0 : 1}:${r.createdAt ? 9e15 - r.createdAt.getTime() : "~"}`,
      ]),
    );
    expect([...reads].sort()).toEqual(before.map((r) => r.linkId).sort());
    const ranks = reads.map((id) => rankOf.get(id)!);
    expect(ranks).toEqual([...ranks].sort());
    const errors = before.filter((r) => r.state === "error").length;
    expect(errors).toBeGreaterThan(0);
    expect(reads.slice(errors, errors + 2).sort()).toEqual([...unlisted].sort());
    expect(reads.slice(errors + 2, errors + 5).sort()).toEqual([...unread].sort());
  });

  it("a second run reads only what is stale", async () => {
    await runSync(depsFor(db()).deps);
    const again = depsFor(db());
    // Everything was read moments ago: only the listing is walked (for new and vanished links).
    expect(await runSync(again.deps)).toMatchObject({ outcome: "completed", listed: listed.length, fetched: 0 });
    expect(again.reads).toEqual([]);

    const stale = listed.slice(50, 60);
    await age(db(), 60, stale);
    const third = depsFor(db());
    expect(await runSync(third.deps)).toMatchObject({ outcome: "completed", fetched: 10 });
    expect([...third.reads].sort()).toEqual([...stale].sort());
    expect(await db().select().from(linkSnapshots)).toHaveLength(3);
  });

  it("learns that a link was deleted, and stops reading it", async () => {
    await runSync(depsFor(db()).deps);
    const gone = listed[5]!;
    expect((await upstream.api("DELETE", `/links/${gone}`)).status).toBe(204);
    await age(db(), 60);

    const second = depsFor(db());
    expect(await runSync(second.deps)).toMatchObject({
      outcome: "completed",
      listed: listed.length - 1,
      fetched: listed.length,
    });
    const [row] = await db().select().from(links).where(eq(links.linkId, gone));
    expect(row).toMatchObject({ state: "deleted" });
    expect(row!.deletedSeenAt).not.toBeNull();
    // No longer listed: its listed_at is from before this run.
    expect(row!.listedAt!.getTime()).toBeLessThan(row!.seenAt!.getTime() - 1);

    await age(db(), 60);
    const third = depsFor(db());
    await runSync(third.deps);
    expect(third.reads).not.toContain(gone);
    expect(third.reads).toHaveLength(listed.length - 1);
  });

  it("keeps a link the upstream does not know (404) with a note, and finishes the run", async () => {
    await db()
      .insert(links)
      .values({ linkId: "mk_not_upstream", state: "connected", seenAt: new Date(Date.now() - 3_600_000) });
    const result = await runSync(depsFor(db()).deps);
    expect(result).toMatchObject({ outcome: "completed", notFound: 1, fetched: listed.length });
    const [row] = await db().select().from(links).where(eq(links.linkId, "mk_not_upstream"));
    expect(row).toMatchObject({ state: "connected" });
    const status = await getSyncStatus(db(), { pace: UNPACED });
    expect(status.lastError).toMatch(/mk_not_upstream is not found upstream \(404\)/);
  });

  it("resumes after the listing phase without listing again", async () => {
    const stopper = new AbortController();
    const first = depsFor(db(), {
      signal: stopper.signal,
      concurrency: 2,
      onProgress: (p) => {
        if (p.phase === "details" && p.done >= 40) stopper.abort(new Error("server shutting down"));
      },
    });
    expect(await runSync(first.deps)).toMatchObject({ outcome: "stopped" });
    const [paused] = await db().select().from(syncState);
    expect(paused).toMatchObject({ phase: "details", owner: null, total: listed.length });
    expect(paused!.done).toBeGreaterThanOrEqual(40);
    expect((await getSyncStatus(db(), { pace: UNPACED })).running).toBe(false);

    const second = depsFor(db());
    expect(await runSync(second.deps)).toMatchObject({ outcome: "completed", resumed: true, listed: 0 });
    const stats = await statsOf();
    expect(requestsTo(stats, "GET /links")).toBe(1);
    // Every link read once over both runs: the second run took up where the first stopped.
    expect(requestsTo(stats, "GET /links/{id}")).toBe(listed.length);
    expect(new Set([...first.reads, ...second.reads]).size).toBe(listed.length);
    const [done] = await db().select().from(syncState);
    expect(done).toMatchObject({ phase: "idle", done: listed.length, total: listed.length });
  });

  it("resumes the listing from the saved cursor", async () => {
    const bigger = await startSandbox({ links: 1100 });
    try {
      const all = await listedIds(bigger);
      await bigger.raw("POST", "/_sandbox/reset");
      const stopper = new AbortController();
      const first = depsFor(db(), {
        base: bigger.base,
        signal: stopper.signal,
        onProgress: (p) => {
          if (p.phase === "listing" && p.done >= 500) stopper.abort(new Error("restart"));
        },
      });
      expect(await runSync(first.deps)).toMatchObject({ outcome: "stopped", listed: 500 });
      const [paused] = await db().select().from(syncState);
      expect(paused).toMatchObject({ phase: "listing", done: 500 });
      expect(paused!.listCursor).toBeTruthy();

      const later = new AbortController();
      const second = depsFor(db(), {
        base: bigger.base,
        signal: later.signal,
        onProgress: (p) => {
          if (p.phase === "details") later.abort(new Error("enough"));
        },
      });
      expect(await runSync(second.deps)).toMatchObject({ outcome: "stopped", resumed: true, listed: all.length - 500 });
      expect(requestsTo(await statsOf(bigger), "GET /links")).toBe(Math.ceil(all.length / 500));
      const rows = await db().select({ linkId: links.linkId }).from(links);
      expect(rows.map((r) => r.linkId).sort()).toEqual([...all].sort());
    } finally {
      await bigger.close();
    }
  });

  it("runs one sync at a time: of two at once, one works and the other declines, naming the holder", async () => {
    const lines: { msg: string; obj: object }[] = [];
    const log: SyncLog = {
      info: (obj, msg) => lines.push({ obj, msg }),
      warn: () => undefined,
      error: () => undefined,
    };
    const [a, b] = await Promise.all([
      runSync(depsFor(db(), { owner: "instance-a", log }).deps),
      runSync(depsFor(db(), { owner: "instance-b", log }).deps),
    ]);
    expect([a.outcome, b.outcome].sort()).toEqual(["completed", "declined"]);
    const declined = a.outcome === "declined" ? a : b;
    const holder = a.outcome === "declined" ? "instance-b" : "instance-a";
    expect(declined).toMatchObject({ outcome: "declined", holder });
    // Only the holder says it took the lease.
    expect(lines.filter((line) => line.msg === "sync lease taken")).toEqual([
      { msg: "sync lease taken", obj: { owner: holder, resumed: false } },
    ]);
    expect(requestsTo(await statsOf(), "GET /links/{id}")).toBe(listed.length);
  });

  it("keeps its heartbeat within the lease's TTL while it waits for the upstream or a budget slot", async () => {
    expect(SYNC_DEFAULTS.progressIntervalMs).toBeLessThanOrEqual(HEARTBEAT_MS);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { deps } = depsFor(db(), { concurrency: 1 });
    const getLink = deps.api.getLink;
    let waiting = false;
    // The first detail read waits, as a read does for a slot of a full budget; nothing else moves meanwhile.
    deps.api = {
      ...deps.api,
      getLink: async (linkId, opts) => {
        if (!waiting) {
          waiting = true;
          await held;
        }
        return getLink(linkId, opts);
      },
    };
    const run = runSync(deps);
    const heartbeats = new Set<number>();
    const deadline = Date.now() + 4 * HEARTBEAT_MS;
    while (heartbeats.size < 3 && Date.now() < deadline) {
      const [row] = await db().select().from(syncState);
      if (waiting && row?.heartbeatAt) heartbeats.add(row.heartbeatAt.getTime());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    release();
    expect(await run).toMatchObject({ outcome: "completed" });
    // Three distinct heartbeats while one read was held: the lease was renewed during the wait.
    expect(heartbeats.size).toBe(3);
  });

  it("takes over from a holder whose heartbeat stopped, not from a live one", async () => {
    const stopper = new AbortController();
    await runSync(
      depsFor(db(), {
        signal: stopper.signal,
        onProgress: (p) => {
          if (p.phase === "details" && p.done >= 20) stopper.abort(new Error("crash"));
        },
      }).deps,
    );
    // Another instance holds the unfinished run and is alive.
    await db()
      .update(syncState)
      .set({ owner: "instance-b", heartbeatAt: sql`now()` });
    expect(await runSync(depsFor(db()).deps)).toMatchObject({ outcome: "declined" });
    expect(await requestSync(db())).toEqual({ requested: false, running: true });
    expect((await getSyncStatus(db(), { pace: UNPACED })).running).toBe(true);

    // It crashed: no heartbeat for two minutes.
    await db()
      .update(syncState)
      .set({ heartbeatAt: sql`now() - interval '2 minutes'` });
    expect((await getSyncStatus(db(), { pace: UNPACED })).running).toBe(false);
    expect(await runSync(depsFor(db()).deps)).toMatchObject({ outcome: "completed", resumed: true });
    expect(requestsTo(await statsOf(), "GET /links")).toBe(1);
    const [state] = await db().select().from(syncState);
    expect(state).toMatchObject({ owner: null, phase: "idle" });
  });

  it("counts progress one way: a run taken over from a dead holder keeps its total", async () => {
    const stopper = new AbortController();
    await runSync(
      depsFor(db(), {
        signal: stopper.signal,
        concurrency: 2,
        onProgress: (p) => {
          if (p.phase === "details" && p.done >= 40) stopper.abort(new Error("crash"));
        },
      }).deps,
    );
    const [paused] = await db().select().from(syncState);
    expect(paused).toMatchObject({ phase: "details", total: listed.length });
    // The holder died: its last heartbeat, a second before, had written fewer reads than it had made, and a person
    // opened a few links meanwhile (their details are fresh now).
    const lagging = paused!.done - 12;
    await db()
      .update(syncState)
      .set({ owner: "dead-instance", heartbeatAt: sql`now() - interval '1 minute'`, done: lagging });
    const unread = await db()
      .select({ linkId: links.linkId })
      .from(links)
      .where(sql`${links.seenAt} is null`)
      .limit(5);
    await db()
      .update(links)
      .set({ seenAt: new Date() })
      .where(
        inArray(
          links.linkId,
          unread.map((r) => r.linkId),
        ),
      );

    const seen: { done: number; total: number }[] = [];
    const taker = depsFor(db(), {
      onProgress: (p) => p.phase === "details" && seen.push({ done: p.done, total: p.total }),
    });
    expect(await runSync(taker.deps)).toMatchObject({ outcome: "completed", resumed: true });
    // It starts from what was stored, then counts from the database: every link read, by the dead holder or a person.
    expect(seen.slice(0, 2)).toEqual([
      { done: lagging, total: listed.length },
      { done: paused!.done + 5, total: listed.length },
    ]);
    expect(seen.every((p) => p.total === listed.length)).toBe(true);
    expect(seen.at(-1)).toEqual({ done: listed.length, total: listed.length });
  });

  it("takes over a dead holder's run once its heartbeat is older than the lease's TTL", async () => {
    await db()
      .insert(syncState)
      .values({
        id: "current",
        owner: "dead-instance",
        phase: "details",
        runStartedAt: new Date(),
        heartbeatAt: sql`now() - (${LEASE_TTL_MS - 3_000}::int * interval '1 millisecond')`,
      });
    expect(await runSync(depsFor(db()).deps)).toMatchObject({ outcome: "declined", holder: "dead-instance" });
    await db()
      .update(syncState)
      .set({ heartbeatAt: sql`now() - (${LEASE_TTL_MS + 1_000}::int * interval '1 millisecond')` });
    expect((await getSyncStatus(db(), { pace: UNPACED })).running).toBe(false);
    expect(await runSync(depsFor(db()).deps)).toMatchObject({ outcome: "completed", resumed: true });
  });

  it("rides out fifty failed reads in a row: one try at a time, waiting longer up to a ceiling, then every link read at full pace", async () => {
    const { log, lines } = recordingLog();
    const { deps, reads } = depsFor(db(), { backoff: QUICK_BACKOFF, concurrency: 4, log });
    const getLink = deps.api.getLink;
    let inFlight = 0;
    const inFlightAtStart: number[] = [];
    let seenFailing: Awaited<ReturnType<typeof getSyncStatus>>["failing"] = null;
    deps.api = {
      ...deps.api,
      getLink: async (linkId, opts) => {
        // Well into the outage, the stored status says so, for every instance's pages.
        if (reads.length === 40) {
          await expect
            .poll(async () => (await getSyncStatus(db(), { pace: UNPACED })).failing?.retryMs, { timeout: 5_000 })
            .toBe(QUICK_BACKOFF.maxDelayMs);
          seenFailing = (await getSyncStatus(db(), { pace: UNPACED })).failing;
        }
        inFlightAtStart.push(++inFlight);
        try {
          return await getLink(linkId, opts);
        } finally {
          inFlight--;
        }
      },
    };
    // The upstream answers the next fifty link reads 503, then recovers.
    upstream.sandbox.state.faults.set({ status: 503, paths: ["/links/"], count: 50 });
    const started = new Date();
    try {
      expect(await runSync(deps)).toMatchObject({
        outcome: "completed",
        listed: listed.length,
        fetched: listed.length,
        failed: 0,
      });
    } finally {
      upstream.sandbox.state.faults.clear();
    }

    // Every link read once the upstream answered again: the fifty that failed were tried again, not left behind.
    const rows = await db().select().from(links);
    expect(rows.every((row) => row.seenAt !== null && row.state === "connected")).toBe(true);
    expect(requestsTo(await statsOf(), "GET /links/{id}")).toBe(listed.length + 50);
    expect(new Set(reads)).toEqual(new Set(listed));

    // The wait doubled from the first to the ceiling, and stayed there until a read succeeded.
    const waits = lines.filter((l) => l.msg === "links sync failing; one try at a time").map((l) => l.obj.retryMs);
    expect(waits).toEqual([2, 4, 8, 16]);
    expect(seenFailing).toMatchObject({ failure: "the upstream answers 503", retryMs: 16 });
    expect(seenFailing!.since.getTime()).toBeGreaterThanOrEqual(started.getTime() - 1000);
    expect(lines.filter((l) => l.msg === "links sync recovered; full pace again")).toHaveLength(1);
    // Once failing, one try at a time (the first few reads were under way before the third failure); after the
    // outage, several at once again.
    expect(inFlightAtStart.slice(16, 50).every((n) => n === 1)).toBe(true);
    expect(Math.max(...inFlightAtStart.slice(50))).toBeGreaterThan(1);
    // Recovered: nothing of the outage is left in the stored status.
    expect(await getSyncStatus(db(), { pace: UNPACED })).toMatchObject({
      phase: "idle",
      failing: null,
      lastError: null,
    });
  });

  it("keeps listing through failed pages of GET /links instead of stopping", async () => {
    const { deps } = depsFor(db(), { backoff: QUICK_BACKOFF });
    upstream.sandbox.state.faults.set({ status: 502, paths: ["/links"], count: 5 });
    try {
      expect(await runSync(deps)).toMatchObject({
        outcome: "completed",
        listed: listed.length,
        fetched: listed.length,
      });
    } finally {
      upstream.sandbox.state.faults.clear();
    }
    expect(requestsTo(await statsOf(), "GET /links")).toBe(6);
    expect((await getSyncStatus(db(), { pace: UNPACED })).failing).toBeNull();
  });

  it("leaves a link that fails on its own to the next run after a few tries, without slowing the others", async () => {
    const { log, lines } = recordingLog();
    const { deps, reads } = depsFor(db(), { backoff: QUICK_BACKOFF, log });
    const broken = listed[7]!;
    const getLink = deps.api.getLink;
    deps.api = {
      ...deps.api,
      getLink: async (linkId, opts) => {
        if (linkId === broken) {
          reads.push(linkId);
          throw new UpstreamError({ kind: "http", endpoint: "GET /links/{id}", status: 500 });
        }
        return getLink(linkId, opts);
      },
    };
    expect(await runSync(deps)).toMatchObject({ outcome: "completed", fetched: listed.length - 1, failed: 1 });
    expect(reads.filter((id) => id === broken)).toHaveLength(SYNC_DEFAULTS.maxTriesPerLink);
    expect(lines.some((l) => l.msg === "links sync failing; one try at a time")).toBe(false);
    const status = await getSyncStatus(db(), { pace: UNPACED });
    expect(status.failing).toBeNull();
    expect(status.lastError).toBe(
      `1 of ${listed.length} links could not be read (last: link ${broken} could not be read (HTTP 500))`,
    );
  });

  it("carries on a failing streak another run stored, and clears it with the first read that succeeds", async () => {
    const since = new Date(Date.now() - 10 * 60_000);
    await db()
      .insert(syncState)
      .values({ id: "current", failingSince: since, failure: "the upstream cannot be reached", retryMs: 8 });
    expect((await getSyncStatus(db(), { pace: UNPACED })).failing).toEqual({
      since,
      failure: "the upstream cannot be reached",
      retryMs: 8,
    });
    const { log, lines } = recordingLog();
    expect(await runSync(depsFor(db(), { backoff: QUICK_BACKOFF, log }).deps)).toMatchObject({
      outcome: "completed",
      fetched: listed.length,
    });
    expect(lines.find((l) => l.msg === "links sync recovered; full pace again")?.obj).toEqual({
      failingSince: since,
      lastFailure: "the upstream cannot be reached",
    });
    expect((await getSyncStatus(db(), { pace: UNPACED })).failing).toBeNull();
  });

  it("shows progress with an ETA while running, and answers a refresh-all request", async () => {
    expect(await getSyncStatus(db(), { pace: UNPACED })).toMatchObject({
      phase: "idle",
      running: false,
      runFinishedAt: null,
      requestedAt: null,
    });
    expect(await requestSync(db())).toEqual({ requested: true, running: false });
    expect((await getSyncStatus(db(), { pace: UNPACED })).requestedAt).not.toBeNull();

    const pace = { limit: 600, windowMs: 60_000 };
    let during: Promise<Awaited<ReturnType<typeof getSyncStatus>>> | undefined;
    const { deps } = depsFor(db(), {
      onProgress: (p) => {
        if (p.phase === "details" && p.done === 10) during = getSyncStatus(db(), { pace });
      },
    });
    await runSync(deps);
    const seen = await during!;
    expect(seen).toMatchObject({ phase: "details", running: true, total: listed.length });
    // At 600 a minute, ten a second: the links left take a tenth of their number in seconds.
    expect(seen.etaSeconds).toBe(Math.ceil((listed.length - seen.done) / 10));

    const after = await getSyncStatus(db(), { pace });
    expect(after).toMatchObject({ phase: "idle", running: false, requestedAt: null });
  });
});
