import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../sandbox/server";
import { Budget } from "../budget/budget";
import { createMemoryStore } from "../budget/memory-store";
import { createPostgresStore } from "../budget/postgres-store";
import type { BudgetStore } from "../budget/types";
import type { Db } from "../db/client";
import { jobItems } from "../db/schema";
import { withTestDatabases } from "../testing/databases";
import { HEARTBEAT_MS, LEASE_TTL_MS, TAKEOVER_POLL_MS } from "../leases/timing";
import { UpstreamApi, UpstreamClient } from "../upstream";
import { CORRECTION_ENDPOINT, CORRECTION_KIND, createCorrectionKind } from "./correction";
import { JobRunner } from "./engine";
import type { JobKind } from "./kind-contract";
import { expectWords } from "../testing/expect-words";
import {
  type Actor,
  type NewJobItem,
  applyControl,
  claimItems,
  claimWork,
  insertJob,
  markSent,
  releaseItem,
} from "./store";
import { readJobView } from "./view";

// A killed instance's calls whose outcome is unknown are checked by the survivor as soon as their leases lapse, even
// while every call the survivor holds waits for a rate-limit slot: two engines on one database and one budget, the
// link's minute of corrections used up, one engine killed (its database and its upstream go silent, its leases are
// never released). The engines run with the production lease timings (lib/leases/timing.ts).

const databases = withTestDatabases();
const sandbox = createSandbox({ links: 6, transactionsPerLink: 30, rateLimits: false, importDelayMs: 0 });
let baseUrl = "";
let plainLinks: string[] = [];
const actor: Actor = { id: randomUUID(), email: "support@takeover.test", role: "support" };
const runners: JobRunner[] = [];
const cleanups: (() => void)[] = [];

/** The promise: a killed instance's work moves on within this long of the kill, whatever the budget does. */
const TAKEOVER_GOAL_MS = 20_000;
/** Items of the job one engine works on at once. */
const CONCURRENCY = 3;

beforeAll(async () => {
  baseUrl = await sandbox.listen(0, "127.0.0.1");
  const store = sandbox.state.store;
  plainLinks = store
    .listLinks(null, 1000)
    .links.map((l) => store.getLink(l.link_id)!)
    .filter(
      (l) =>
        l.state === "connected" &&
        l.products.transactions &&
        l.products.enrichment &&
        store.dataOf(l).transactions.length === 30,
    )
    .map((l) => l.link_id);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(runners.splice(0).map((r) => r.stop(1_000)));
});

afterAll(() => sandbox.close());

async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a killed instance reaches of its database and its budget: nothing, once `death.dead` is set. */
function killable<T extends object>(inner: T, death: { dead: boolean }): T {
  return new Proxy(inner, {
    get(target, prop) {
      if (death.dead) throw new Error("this instance was killed");
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const isCorrection = (method: string, url: URL) => method === "POST" && url.pathname.endsWith("/enrichment");
const transactionOf = (url: URL) => decodeURIComponent(url.pathname.split("/").at(-2)!);

/**
 * The doomed instance's way to the upstream: its first correction reaches the upstream (applied) but the answer never
 * comes back; its second never reaches the upstream at all. Both stay "sent", their outcome unknown, when it dies.
 */
function doomedFetch(): { fetch: typeof fetch; applied: string[]; lost: string[]; cut(): void } {
  const applied: string[] = [];
  const lost: string[] = [];
  const hung: (() => void)[] = [];
  const hang = () => new Promise<never>((_, reject) => hung.push(() => reject(new TypeError("fetch failed"))));
  return {
    applied,
    lost,
    cut: () => hung.splice(0).forEach((reject) => reject()),
    async fetch(input, init) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (!isCorrection(init?.method ?? "GET", url)) return fetch(input, init);
      if (applied.length === 0) {
        applied.push(transactionOf(url));
        await fetch(input, init);
        return hang();
      }
      lost.push(transactionOf(url));
      return hang();
    },
  };
}

/** A fetch that counts the corrections it sends. */
function countingFetch(sent: string[]): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (isCorrection(init?.method ?? "GET", url)) sent.push(transactionOf(url));
    return fetch(input, init);
  };
}

function engine(
  db: Db,
  store: BudgetStore,
  fetchImpl: typeof fetch,
  timeoutMs: number,
  opts: Partial<ConstructorParameters<typeof JobRunner>[0]> = {},
): JobRunner {
  const { clientId, clientSecret } = sandbox.state.options;
  const budget = new Budget({
    store,
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
  const api = new UpstreamApi(
    new UpstreamClient({ baseUrl, clientId, clientSecret, timeoutMs, gate: budget, fetch: fetchImpl }),
  );
  const kind = createCorrectionKind({ settleMs: 0 });
  const runner = new JobRunner({ db, api, kinds: new Map([[kind.kind, kind as JobKind]]), ...opts });
  runners.push(runner);
  return runner;
}

/** Uses up the link's corrections of this minute, but for `leave` of them. */
async function fillLinkBudget(store: BudgetStore, linkId: string, leave: number): Promise<number> {
  const { clientId } = sandbox.state.options;
  const budget = new Budget({
    store,
    clientId,
    appId: clientId,
    shares: { app: 1, link: 1, user: 1, client: 1 },
    interactiveMaxWaitMs: 0,
  });
  const limit = budget.keys(CORRECTION_ENDPOINT, { linkId }).find((k) => k.scope === "link")!.limit;
  for (let i = 0; i < limit - leave; i++)
    await budget.reserve(CORRECTION_ENDPOINT, { linkId }, { mode: "interactive" });
  return limit;
}

function corrections(linkId: string, count: number): NewJobItem[] {
  const store = sandbox.state.store;
  return store
    .dataOf(store.getLink(linkId)!)
    .transactions.filter((t) => t.enrichment?.category.value !== "taxes")
    .slice(0, count)
    .map((t) => ({
      input: { transactionId: t.transaction_id, date: t.date, before: null, after: { category: "taxes" } },
      targetId: t.transaction_id,
    }));
}

function appliedOf(linkId: string, transactionId: string): number {
  return sandbox.state.stats.snapshot().applied[`POST /links/${linkId}/transactions/${transactionId}/enrichment`] ?? 0;
}

const dbNow = async (db: Db) =>
  new Date((await db.execute<{ now: string | Date }>(sql`select now() as now`)).rows[0]!.now);

async function auditOf(db: Db, jobId: string) {
  const { rows } = await db.execute<{ target: string; outcome: string; verified: string | null; at: string | Date }>(
    sql`select target_id as target, outcome, input ->> 'verified' as verified, at from audit_log where input ->> 'job' = ${jobId} order by id`,
  );
  return rows.map((r) => ({ ...r, at: new Date(r.at) }));
}

let nextLink = 0;

describe.each(databases)("$kind", (target) => {
  it(
    "a killed instance's sent items are checked within 20 s of the kill while the survivor's own calls wait for per-link slots",
    async () => {
      const db = target.database.db;
      const linkId = plainLinks[nextLink++]!;
      const death = { dead: false };
      const doomedDb = killable(db, death);
      // One budget for both instances: in the database on PostgreSQL (as in production), shared memory on PGlite.
      const shared = target.kind === "postgres" ? undefined : createMemoryStore();
      const storeOf = (handle: Db) => shared ?? createPostgresStore(handle);
      const items = corrections(linkId, 10);
      const job = await insertJob(db, {
        kind: CORRECTION_KIND,
        title: "takeover under a full budget",
        linkId,
        createdBy: actor,
        concurrency: CONCURRENCY,
        items,
      });

      // Someone used all but two of the link's corrections this minute: the doomed instance's first two calls get the
      // last slots, and every later call waits about a minute for one.
      await fillLinkBudget(storeOf(db), linkId, 2);
      const wire = doomedFetch();
      cleanups.push(wire.cut);
      // Its client waits long for answers: nothing of it times out during the test.
      const doomed = engine(doomedDb, killable(storeOf(doomedDb), death), wire.fetch, 120_000);
      doomed.start();
      const held = await waitFor(
        "the doomed instance to hold two calls in flight and one waiting for its slot",
        async () =>
          (await db.select().from(jobItems).where(eq(jobItems.jobId, job.id))).filter(
            (i) => i.leaseOwner === doomed.owner,
          ),
        (rows) =>
          rows.length === CONCURRENCY && rows.filter((i) => i.state === "sent").length === 2 && wire.lost.length === 1,
      );
      const sentByDoomed = held.filter((i) => i.state === "sent");

      const survivorSent: string[] = [];
      const survivor = engine(db, storeOf(db), countingFetch(survivorSent), 2_000);
      survivor.start();
      await waitFor(
        "the survivor to hold its share of the job",
        async () => survivor.busy,
        (busy) => busy === CONCURRENCY,
      );
      const parked = survivor.heldItemIds();

      // Killed right after a heartbeat, the worst moment: its leases lapse a whole TTL later.
      const claimedUntil = Math.max(...held.map((i) => i.leaseUntil!.getTime()));
      const renewed = await waitFor(
        "a heartbeat of the doomed instance",
        async () =>
          (await db.select().from(jobItems).where(eq(jobItems.jobId, job.id))).filter(
            (i) => i.leaseOwner === doomed.owner,
          ),
        (rows) => rows.length === CONCURRENCY && rows.every((i) => i.leaseUntil!.getTime() > claimedUntil),
        3 * HEARTBEAT_MS,
      );
      death.dead = true;
      const killedAt = await dbNow(db);
      const lapsesAt = new Date(Math.max(...renewed.map((i) => i.leaseUntil!.getTime())));

      // The survivor checks both unknown calls (a read of the transaction each), recorded with the database's clock.
      const checks = await waitFor(
        "the survivor to check the dead instance's sent items",
        async () => (await auditOf(db, job.id)).filter((r) => r.verified !== null),
        (rows) => rows.length === 2,
        LEASE_TTL_MS + TAKEOVER_POLL_MS + 30_000,
      );
      const [applied, lost] = [wire.applied[0]!, wire.lost[0]!];
      // A check is recorded, then its item is settled or released: two writes, which a loaded machine holds apart.
      const afterChecks = await waitFor(
        "the checked items to be settled or released",
        () => db.select().from(jobItems).where(eq(jobItems.jobId, job.id)),
        (rows) =>
          rows.filter((i) => (i.targetId === applied || i.targetId === lost) && i.state === "sent").length === 0,
        10_000,
      );
      const byTarget = new Map(afterChecks.map((i) => [i.targetId!, i]));

      for (const check of checks) {
        console.log(
          `${target.kind}: ${check.target} checked ${check.at.getTime() - killedAt.getTime()} ms after the kill, ${check.at.getTime() - lapsesAt.getTime()} ms after its lease lapsed`,
        );
        // Not before the dead instance's lease lapsed (leases fence), and within the goal of the kill.
        expect(check.at.getTime()).toBeGreaterThanOrEqual(lapsesAt.getTime());
        expect(check.at.getTime() - killedAt.getTime()).toBeLessThanOrEqual(TAKEOVER_GOAL_MS);
      }
      expect(checks.map((c) => c.target).sort()).toEqual(sentByDoomed.map((i) => i.targetId).sort());
      // The call that reached the upstream is found applied and not sent again; the lost one is found not applied and
      // waits for a slot like any call.
      expect(checks.find((c) => c.target === applied)).toMatchObject({
        outcome: "ok",
        verified: expect.stringMatching(/^applied: confirmed/),
      });
      expect(checks.find((c) => c.target === lost)).toMatchObject({
        outcome: "error",
        verified: expect.stringMatching(/^not applied/),
      });
      expect(byTarget.get(applied)).toMatchObject({ state: "done", leaseOwner: survivor.owner, attempts: 1 });
      expect(byTarget.get(lost)).toMatchObject({ state: "pending", attempts: 1 });
      // Meanwhile the survivor's own calls were still waiting for their slots: held, never sent.
      for (const id of parked) {
        expect(afterChecks.find((i) => i.id === id)).toMatchObject({
          state: "pending",
          attempts: 0,
          sentAt: null,
          leaseOwner: survivor.owner,
        });
      }
      expect(survivor.heldItemIds()).toEqual(expect.arrayContaining(parked));
      expect(survivorSent).toEqual([]);
      expect(appliedOf(linkId, applied)).toBe(1);
      expect(appliedOf(linkId, lost)).toBe(0);

      // Both stop (the dead one's leases stay until they lapse); a third instance, with slots, finishes the job.
      wire.cut();
      await Promise.all([survivor.stop(1_000), doomed.stop(1_000)]);
      const finisher = engine(db, createMemoryStore(), fetch, 2_000, { pollMs: 50 });
      finisher.start();
      const done = await waitFor(
        "the job to finish",
        () => readJobView(db, job.id, { budget: null }),
        (v) => v?.state === "done",
      );
      expect(done!.counts).toMatchObject({ done: 10, failed: 0, pending: 0, sent: 0 });
      // Every call applied exactly once; one audit row per call, and one for the check that found the lost call missing.
      expect(items.map((i) => appliedOf(linkId, i.targetId!))).toEqual(items.map(() => 1));
      const rows = await auditOf(db, job.id);
      expect(rows.filter((r) => r.outcome === "ok")).toHaveLength(10);
      expect(rows.filter((r) => r.outcome !== "ok")).toEqual([
        expect.objectContaining({ target: lost, verified: expect.stringMatching(/^not applied/) }),
      ]);
    },
    HEARTBEAT_MS + LEASE_TTL_MS + TAKEOVER_POLL_MS + 60_000,
  );

  it("claims in two lanes: a dead holder's sent items to check beside pending items to call, each up to its own limit", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "lanes",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      concurrency: 2,
      items: unsent(6),
    });
    // A dead instance marked two calls sent; a live one holds two items waiting for their slots. The dead leases are
    // long enough to outlast the statements below on a busy machine (at 200 ms they once lapsed before the check).
    const deadLeaseMs = 1_500;
    const dead = await claimItems(db, job.id, "dead-instance", 2, deadLeaseMs);
    // The leases were set before this, so they lapse by claimedAt + deadLeaseMs.
    const claimedAt = Date.now();
    for (const item of dead) expect(await markSent(db, item.id, "dead-instance", randomUUID())).toBe(true);
    const waiting = await claimItems(db, job.id, "live-instance", 2);
    expect(waiting.map((i) => i.seq)).toEqual([2, 3]);
    // Before the dead leases lapse, only never-claimed pending items are workable.
    expect((await claimWork(db, job.id, "survivor", { checks: 2, calls: 0 })).map((i) => i.seq)).toEqual([]);
    await new Promise((r) => setTimeout(r, Math.max(0, claimedAt + deadLeaseMs + 100 - Date.now())));

    const first = await claimWork(db, job.id, "survivor", { checks: 1, calls: 1 });
    expect(first.map((i) => [i.seq, i.state])).toEqual([
      [0, "sent"],
      [4, "pending"],
    ]);
    // A lane with no room claims nothing, however much the other has; held items stay with their holders.
    expect((await claimWork(db, job.id, "survivor", { checks: 0, calls: 5 })).map((i) => i.seq)).toEqual([5]);
    expect((await claimWork(db, job.id, "survivor", { checks: 5, calls: 0 })).map((i) => i.seq)).toEqual([1]);
    expect(await claimWork(db, job.id, "survivor", { checks: 5, calls: 5 })).toEqual([]);

    // A cancelled job's unknown calls are still checked; its pending items are never called.
    await db.update(jobItems).set({ leaseOwner: null, leaseUntil: null }).where(eq(jobItems.jobId, job.id));
    expect(await applyControl(db, job.id, "cancel", actor.email)).toBe("cancelled");
    expect((await claimWork(db, job.id, "survivor", { checks: 5, calls: 5 })).map((i) => i.seq)).toEqual([0, 1]);
  });

  it("an item whose check finds it not applied in a job cancelled meanwhile is cancelled, and the job ends", async () => {
    const db = target.database.db;
    // The check itself is where the person cancels: after the engine read the job as running, before the item goes back.
    const cancelling: JobKind<{ transactionId: string }, string> = {
      ...(createCorrectionKind({ settleMs: 0 }) as unknown as JobKind<{ transactionId: string }, string>),
      async verify(_input, ctx) {
        expect(await applyControl(db, ctx.job.id, "cancel", actor.email)).toBe("cancelled");
        return { applied: false };
      },
      async execute() {
        throw new Error("a cancelled item must not be called");
      },
    };
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "cancelled while checked",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: unsent(1),
    });
    const [lost] = await claimItems(db, job.id, "dead-instance", 1, 100);
    expect(await markSent(db, lost!.id, "dead-instance", randomUUID())).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    const { clientId, clientSecret } = sandbox.state.options;
    const api = new UpstreamApi(new UpstreamClient({ baseUrl, clientId, clientSecret, timeoutMs: 2_000 }));
    const runner = new JobRunner({
      db,
      api,
      kinds: new Map([[CORRECTION_KIND, cancelling as JobKind]]),
      pollMs: 50,
      heartbeatMs: 200,
    });
    runners.push(runner);
    runner.start();
    // Before, the item went back to pending in the cancelled job: never worked again, and the job never ended.
    const view = await waitFor(
      "the job to end",
      () => readJobView(db, job.id, { budget: null }),
      (v) => Boolean(v?.finishedAt),
      10_000,
    );
    expect(view).toMatchObject({ state: "cancelled", counts: { cancelled: 1, pending: 0, sent: 0 } });
    const [item] = await db.select().from(jobItems).where(eq(jobItems.jobId, job.id));
    expect(item).toMatchObject({ state: "cancelled", attempts: 1 });
    expectWords(item!.reason!);
    const rows = await auditOf(db, job.id);
    expect(rows.map((r) => [r.outcome, r.verified?.split(":")[0]])).toEqual([["error", "not applied"]]);
  });

  it("gives an item back as pending in a cancelled job as cancelled; one still sent stays to be checked", async () => {
    const db = target.database.db;
    const job = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "given back",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: unsent(2),
    });
    const [checked, unknown] = await claimItems(db, job.id, "holder", 2);
    for (const item of [checked!, unknown!]) expect(await markSent(db, item.id, "holder", randomUUID())).toBe(true);
    expect(await applyControl(db, job.id, "cancel", actor.email)).toBe("cancelled");
    expect(await releaseItem(db, checked!.id, "holder", { state: "pending", retryInMs: 5_000 })).toBe("cancelled");
    expect(await releaseItem(db, unknown!.id, "holder", { state: "sent", retryInMs: 0 })).toBe("sent");
    expect(await releaseItem(db, unknown!.id, "someone-else", { state: "pending" })).toBeNull();
    const items = await db.select().from(jobItems).where(eq(jobItems.jobId, job.id)).orderBy(jobItems.seq);
    expect(items[0]).toMatchObject({
      state: "cancelled",
      leaseOwner: "holder",
      leaseUntil: null,
      notBefore: null,
      reason: "Cancelled with the job; its call was not made.",
    });
    expect(items[0]!.finishedAt).not.toBeNull();
    expect(items[1]).toMatchObject({ state: "sent", leaseOwner: null, finishedAt: null });
    // In a running job, pending is pending.
    const running = await insertJob(db, {
      kind: CORRECTION_KIND,
      title: "running",
      linkId: `mk_${randomUUID()}`,
      createdBy: actor,
      items: unsent(1),
    });
    const [item] = await claimItems(db, running.id, "holder", 1);
    expect(
      await releaseItem(db, item!.id, "holder", {
        state: "pending",
        retryInMs: 1_000,
        reason: "Not sent: the budget's store is away.",
      }),
    ).toBe("pending");
  });
});

/** Correction items for transactions that need not exist: these tests never reach the upstream with them. */
function unsent(count: number): NewJobItem[] {
  return Array.from({ length: count }, (_, i) => ({
    input: { transactionId: `txn_${i}`, before: null, after: { category: "taxes" } },
    targetId: `txn_${i}`,
  }));
}
