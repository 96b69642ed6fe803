// Linkdesk against an upstream that drifts (issue 34's measure): the number of drift kinds the sandbox can send, and
// for each kind what Linkdesk failed to read and which of the data its pages show failed; then the links sync's pass
// time with drift on beside drift off, in one run. Figures, not assertions.
//
// Kinds. A sandbox of KIND_LINKS links in this process, rate limits off, its seeded links' webhooks pointed at a
// receiver here. For each kind GET /_sandbox/drift lists, with only that kind on at share 1 (every object that can
// carry it does), Linkdesk's own client (UpstreamApi over UpstreamClient, onRead collecting what the reading noticed)
// reads every link GET /_sandbox/drift/links?kind= names: GET /links/{id}, GET /users/{id}/links for their customers
// (the sandbox's back end knows them), the GET /links listing, the transactions pages and accounts of each link that
// has them, and a correction of one transaction (one carrying the kind where transactions carry it) to a pair of
// today's taxonomy. Every answer that carries a link is written into an embedded read model, as the dashboard's
// observer does. "Reads lost": a link, a customer's link, a listing page, a transactions page or an accounts answer
// that could not be read (invalid_response), an account set aside, a link an answer carried set aside, a correction
// not applied, and for the webhook kinds an event not stored, not processed or whose change did not land. Transactions
// set aside as unreadable are counted apart: malformed_item sends them on purpose, and the desk must show them.
// "Page data failing" is measured at the route level, without a dashboard (a build and a signed-in browser cost more
// than this suite's two minutes; rendering the pages in drift mode is the end-to-end specs' part of issue 34): the
// functions the pages and routes call, over the read model and the answers read above: the links list (filtered by
// the drifted value where it has a filter), its CSV export, the filter dropdowns, Health's counts, the Status page's
// notices, each link page's stored copy and each link's correction desk view.
// Webhooks (the kinds a webhook carries, and unknown_link_error, whose event carries the code): links change state
// through the sandbox's control route, the sandbox signs and delivers their events to the receiver here
// (lib/webhooks receiveWebhook, verified with the keys Linkdesk reads from GET /.well-known/jwks.json), the processor
// applies them and the sync's reader reads the links they ask to read again. A stale retry needs a signature older
// than the receiver's window: the receiver answers every first attempt 503, the sandbox retries after
// WEBHOOK_RETRY_MS with the first signature, and the window is WEBHOOK_MAX_AGE_S (300 s and minutes of back-off in
// production, scaled down here alike).
//
// Sync. A full runSync over FLEET links (rate limits on, over a 1 s window in the sandbox and the budget alike, so a
// pass is bound by Linkdesk's work, not the minute), each pass on a fresh embedded database, drift off, on (the
// default kinds, share 0.125) and on at share 1 (the worst case), in ROUNDS rounds whose order turns each round so
// the machine's noise falls on all three, after one pass not counted (the first runs colder). The sandbox runs in a
// process of its own (drift-sandbox.ts): this process's CPU time per pass is Linkdesk's alone. Beside the passes, the
// CPU time the door spends reading one GET /links/{id} answer in each mode, in short blocks taking turns: the part of a
// pass drift can change, without a whole pass's noise.
import path from "node:path";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { eq, inArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { Budget } from "../../lib/budget/budget";
import { createMemoryStore } from "../../lib/budget/memory-store";
import { WINDOW_MARGIN_MS } from "../../lib/budget/rules";
import { type Db, createDatabase } from "../../lib/db/client";
import { migrateDatabase } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import { links, syncState, upstreamReadNotices, webhookEvents } from "../../lib/db/schema";
import { registerLinkIds } from "../../lib/links/discovery";
import { healthSummary } from "../../lib/links/health-summary";
import { streamLinksCsv } from "../../lib/links/list-csv";
import { facetOptions } from "../../lib/links/list-facets";
import { parseLinkListParams } from "../../lib/links/list-params";
import { listLinks } from "../../lib/links/list-query";
import { recordLinks } from "../../lib/links/read-model";
import { storedLink } from "../../lib/links/stored-link";
import { ReadNoticeRecorder, listReadNotices, recordReadNotices } from "../../lib/read-notices/store";
import { type SyncPace } from "../../lib/sync/pacer";
import { readLearnedLinks, runSync } from "../../lib/sync/engine";
import { parseTransactionFilters } from "../../lib/transactions/filters";
import { type TransactionHistory, readTransactionHistory } from "../../lib/transactions/read";
import { transactionsPage } from "../../lib/transactions/view";
import { type UpstreamCallLog, UpstreamClient } from "../../lib/upstream/client";
import { isUpstreamError } from "../../lib/upstream/errors";
import { type ReadNotice, UpstreamApi } from "../../lib/upstream/index";
import { RATE_LIMIT_WINDOW_MS } from "../../lib/upstream/rate-limits";
import { noticing } from "../../lib/upstream/reading";
import { type WireLink, correctEnrichmentRequestSchema, linkSchema } from "../../lib/upstream/schemas";
import { WebhookKeySource } from "../../lib/webhooks/keys";
import { processWebhookBatch } from "../../lib/webhooks/processor";
import { receiveWebhook } from "../../lib/webhooks/receive";
import { SANDBOX_DEFAULTS } from "../../sandbox/defaults";
import { DEFAULT_DRIFT_KINDS, type DriftTarget } from "../../sandbox/drift";
import { type Sandbox, createSandbox } from "../../sandbox/server";
import { ROOT, startSandbox } from "../processes";
import { treeCpuMs } from "./proc";
import { type Figure, type SuiteResult, atMost, exactly, fromRuns } from "./report";
import { median } from "./stats";

/** Links of the kinds' sandbox: all are read for each kind, and among them are links in every state. */
const KIND_LINKS = 64;
/** Links each webhook kind changes the state of. */
const WEBHOOK_LINKS = 12;
/** The receiver's signature window and the sandbox's first retry, scaled down from 300 s and minutes of back-off. */
const WEBHOOK_MAX_AGE_S = 2;
const WEBHOOK_RETRY_MS = 4_000;
/** Kinds a webhook carries (and unknown_link_error, whose link.state_changed carries the unknown code). */
const WEBHOOK_KINDS = new Set(["unknown_webhook_event", "stale_webhook_retry", "extra_fields", "unknown_link_error"]);

const FLEET = 2_000;
const ROUNDS = 4;
/** With LINKDESK_BENCH_FULL=1: steadier medians on a busy machine, about a minute more. */
const FULL_ROUNDS = 8;
/** The sandbox's rate-limit window for the sync passes, and the budget's (its margin scaled alike). */
const FAST_WINDOW_MS = 1_000;
const FAST_BUDGET_WINDOW_MS = Math.round(FAST_WINDOW_MS + (FAST_WINDOW_MS * WINDOW_MARGIN_MS) / RATE_LIMIT_WINDOW_MS);
/** For the reads around the webhooks: no pacing, the sandbox's limits are off. */
const UNPACED: SyncPace = { limit: 1_000_000, windowMs: 1000 };
const ALL_SHARES = { app: 1, link: 1, user: 1, client: 1 };
/** A pair of today's taxonomy to correct to; another when the transaction is in that category already. */
const CORRECTION_PAIRS = [
  { category: "banking", subcategory: "nsf_and_overdraft_fees" },
  { category: "charity", subcategory: "other_charity" },
] as const;

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function benchDrift({
  sandboxPort,
  kindLinks = KIND_LINKS,
  fleet = FLEET,
  // A bench script, not the app: its switch is read here, as sync.ts reads it.
  rounds = process.env.LINKDESK_BENCH_FULL === "1" ? FULL_ROUNDS : ROUNDS,
  only,
  log = (line: string) => console.log(`  [drift] ${line}`),
}: {
  sandboxPort: number;
  kindLinks?: number;
  fleet?: number;
  rounds?: number;
  /** Only these kinds (while working on the suite); the count of kinds is still the sandbox's. */
  only?: string[];
  log?: (line: string) => void;
}): Promise<SuiteResult> {
  const template = await databaseTemplate();
  const kinds = await measureKinds(template, kindLinks, log, only);
  const sync = await measureSyncPasses(template, { sandboxPort, fleet, rounds, log });
  return {
    name: `Linkdesk against a drifting upstream: ${kinds.count} drift kinds read one at a time (${kindLinks} links, share 1), and the sync of ${fleet} links with drift off and on`,
    figures: [...kinds.figures, ...sync],
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Databases: a fresh embedded one per use, loaded from one migrated dump (a fresh cluster and every migration cost
// several seconds each; loading the dump is a fraction of that and gives the same database).

async function databaseTemplate(): Promise<Blob> {
  const seed = await createDatabase({ dataDir: "memory" });
  try {
    if (seed.kind !== "pglite") throw new Error("expected an embedded database");
    return await seed.client.dumpDataDir("none");
  } finally {
    await seed.close();
  }
}

async function freshDatabase(template: Blob): Promise<{ db: Db; close: () => Promise<void> }> {
  const client = await PGlite.create({ loadDataDir: template });
  await migrateDatabase({ kind: "pglite", client });
  return { db: drizzle({ client, schema }) as unknown as Db, close: () => client.close() };
}

// ---------------------------------------------------------------------------------------------------------------------
// The webhook receiver: lib/webhooks' receiveWebhook behind a plain HTTP server on loopback, as the dashboard's door
// hands it each request.

interface Receiver {
  url: string;
  /** Answer every first delivery attempt 503 without reading it (a receiver down), so the upstream retries. */
  failFirstAttempts: boolean;
  /** Answers receiveWebhook gave that were not 2xx (not counting the 503s above). */
  refused: number;
  deliberate: number;
  errors: number;
  set(deps: { db: Db; keys: WebhookKeySource }): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  let deps: { db: Db; keys: WebhookKeySource } | null = null;
  const receiver: Receiver = {
    url: "",
    failFirstAttempts: false,
    refused: 0,
    deliberate: 0,
    errors: 0,
    set: (d) => (deps = d),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        if (receiver.failFirstAttempts && req.headers["moneykit-delivery-attempt"] === "1") {
          receiver.deliberate++;
          res.writeHead(503).end();
          return;
        }
        try {
          if (!deps) throw new Error("no database yet");
          const headers = new Headers();
          for (const [name, value] of Object.entries(req.headers))
            if (typeof value === "string") headers.set(name, value);
          const answer = await receiveWebhook(
            {
              body: new Uint8Array(Buffer.concat(chunks)),
              overLimit: false,
              headers,
              sourceAddress: req.socket.remoteAddress ?? null,
              receivedAt: new Date(),
            },
            { ...deps, maxAgeS: WEBHOOK_MAX_AGE_S, ratePerSecond: 100_000 },
          );
          if (answer.status >= 300) receiver.refused++;
          res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
          res.end(JSON.stringify(answer.body));
        } catch {
          receiver.errors++;
          res.writeHead(500).end();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return receiver;
}

// ---------------------------------------------------------------------------------------------------------------------
// Kinds

interface KindResult {
  kind: string;
  target: DriftTarget;
  drifted: number;
  /** Each kind of read: tried, and lost (could not be read, or set aside when it should not be). */
  reads: Record<string, { tried: number; lost: number }>;
  transactionsRead: number;
  /** Transactions carrying the kind among those read (the sandbox says which). */
  transactionsCarrying: number;
  setAside: number;
  /** Set aside and shown on the desk as unreadable, with an id and a reason. */
  setAsideShown: number;
  /** Values outside today's lists noted (each time), distinct ones, and notices of something unreadable set aside. */
  notices: { unknown: number; distinct: Set<string>; unreadable: number };
  correction: string;
  pageChecks: { run: number; failed: string[] };
  observations: string[];
  webhooks?: string;
}

const sumLost = (r: KindResult) => Object.values(r.reads).reduce((sum, x) => sum + x.lost, 0);

async function measureKinds(
  template: Blob,
  linkCount: number,
  log: (line: string) => void,
  only: string[] | undefined,
): Promise<{ count: number; figures: Figure[] }> {
  const database = await freshDatabase(template);
  const receiver = await startReceiver();
  const sandbox = createSandbox({
    links: linkCount,
    rateLimits: false,
    importDelayMs: 0,
    seedWebhookUrl: receiver.url,
    webhookRetryBaseMs: WEBHOOK_RETRY_MS,
    webhookMaxAttempts: 3,
  });
  const url = await sandbox.listen(0, "127.0.0.1");
  try {
    const { available } = (await getJson(`${url}/_sandbox/drift`)) as {
      available: { kind: string; target: DriftTarget }[];
    };
    const results: KindResult[] = [];
    for (const { kind, target } of available) {
      if (only && !only.includes(kind)) continue;
      const started = performance.now();
      const result = await measureKind({ sandbox, url, db: database.db, receiver }, kind, target);
      results.push(result);
      log(
        `${kind}: ${result.drifted} links, ${sumLost(result)} reads lost, ${result.setAside} set aside, ${result.notices.unknown} notices, ${result.pageChecks.failed.length} of ${result.pageChecks.run} page checks failed (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
    return { count: available.length, figures: kindFigures(available.length, results) };
  } finally {
    await sandbox.close();
    await receiver.close();
    await database.close();
  }
}

interface KindContext {
  sandbox: Sandbox;
  url: string;
  db: Db;
  receiver: Receiver;
}

async function measureKind(ctx: KindContext, kind: string, target: DriftTarget): Promise<KindResult> {
  const { sandbox, url, db } = ctx;
  await wipe(db);
  await postJson(`${url}/_sandbox/drift`, { enabled: true, share: 1, kinds: [kind] });
  const { link_ids: drifted } = (await getJson(`${url}/_sandbox/drift/links?kind=${kind}`)) as { link_ids: string[] };

  const result: KindResult = {
    kind,
    target,
    drifted: drifted.length,
    reads: {},
    transactionsRead: 0,
    transactionsCarrying: 0,
    setAside: 0,
    setAsideShown: 0,
    notices: { unknown: 0, distinct: new Set(), unreadable: 0 },
    correction: "",
    pageChecks: { run: 0, failed: [] },
    observations: [],
  };
  const read = (what: string, lost = false, times = 1) => {
    const entry = (result.reads[what] ??= { tried: 0, lost: 0 });
    entry.tried += times;
    if (lost) entry.lost += times;
  };

  // What the Status page counts, as the dashboard's recorder writes it.
  const recorder = new ReadNoticeRecorder((entries) => recordReadNotices(db, entries), { flushMs: 3_600_000 });
  const onRead = (notices: ReadNotice[], call: { endpoint: string; correlationId: string }) => {
    for (const notice of notices) {
      if (notice.kind === "unknown_value") {
        result.notices.unknown++;
        result.notices.distinct.add(`${notice.field}=${notice.value}`);
      } else result.notices.unreadable++;
    }
    recorder.note(notices, call);
  };
  const calls: UpstreamCallLog[] = [];
  const { clientId, clientSecret } = sandbox.state.options;
  const client = new UpstreamClient({ baseUrl: url, clientId, clientSecret, onRead, onCall: (c) => calls.push(c) });
  // Every answer that carries a link is written into the read model, as the dashboard's observer does.
  const api = new UpstreamApi(client, undefined, (wireLinks) => recordLinks(db, wireLinks, new Date()));
  const invalid = (error: unknown) => isUpstreamError(error) && error.kind === "invalid_response";

  // Each drifted link, its transactions and its accounts.
  const readLinks = new Map<string, WireLink>();
  const histories = new Map<string, TransactionHistory>();
  for (const linkId of drifted) {
    let link: WireLink | null = null;
    try {
      link = await api.getLink(linkId);
      readLinks.set(linkId, link);
      read("link");
    } catch (error) {
      // An answer of the upstream's own (410 for a deleted link) is read; only an answer Linkdesk could not read is lost.
      read("link", invalid(error) || !isUpstreamError(error));
    }
    const listable = !link || (["connected", "error"].includes(link.state) && Boolean(link.products.transactions));
    if (listable) {
      const pagesBefore = calls.filter((c) => c.endpoint === "GET /links/{id}/transactions").length;
      try {
        const history = await readTransactionHistory(api, linkId);
        histories.set(linkId, history);
        const pages = calls.filter((c) => c.endpoint === "GET /links/{id}/transactions").length - pagesBefore;
        read("transactions page", false, pages);
        if (history.link === null) read("link carried by a transactions page", true);
        result.transactionsRead += history.transactions.length;
        result.setAside += history.unreadable.length;
        result.transactionsCarrying += history.transactions.filter(
          (t) => sandbox.state.drift.kindOfTransaction(t.transaction_id) === kind,
        ).length;
      } catch (error) {
        read("transactions page", invalid(error) || !isUpstreamError(error));
      }
    }
    const hasAccounts = !link || (["connected", "error"].includes(link.state) && Boolean(link.products.accounts));
    if (hasAccounts) {
      try {
        const answer = await api.getAccounts(linkId);
        read("accounts answer");
        read("account", true, answer.unreadableAccounts.length);
        read("account", false, answer.accounts.length);
        if (answer.link === null) read("link carried by an accounts answer", true);
      } catch (error) {
        read("accounts answer", invalid(error) || !isUpstreamError(error));
      }
    }
  }

  // Their customers' links, whole maps (GET /users/{id}/links), as the customer lookup reads them.
  const byCustomer = new Map<string, string[]>();
  for (const linkId of drifted) {
    const customer = sandbox.state.store.getLink(linkId)?.customerUserId;
    if (customer) byCustomer.set(customer, [...(byCustomer.get(customer) ?? []), linkId]);
  }
  for (const [customer, ids] of byCustomer) {
    try {
      const answer = await api.getUserLinks(customer);
      for (const id of ids) read("link in its customer's map", !Object.hasOwn(answer.links, id));
    } catch (error) {
      read("link in its customer's map", invalid(error) || !isUpstreamError(error), ids.length);
    }
  }

  // The listing, whole.
  let cursor: string | undefined;
  for (;;) {
    try {
      const page = await api.listLinks({ cursor, limit: 5000 });
      read("listing page");
      read("listed link", true, page.unreadableLinks.length);
      read("listed link", false, page.links.length);
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    } catch (error) {
      read("listing page", true);
      if (!isUpstreamError(error)) throw error;
      break;
    }
  }

  result.correction = await correctOne(api, sandbox, kind, histories, read);
  await recorder.flush();

  result.pageChecks = await checkPageData(db, kind, readLinks, histories, result);
  // The sync's reader records what it reads itself: no observer, so the check of each row after is not written first.
  if (WEBHOOK_KINDS.has(kind)) result.webhooks = await measureWebhooks(ctx, new UpstreamApi(client), kind, read);
  // Back to the seeded links as they were (states changed, corrections made), drift as configured (off).
  await postJson(`${url}/_sandbox/reset`, {});
  return result;
}

/** One correction, to a pair of today's taxonomy, of a transaction carrying the kind (else of a drifted link's). */
async function correctOne(
  api: UpstreamApi,
  sandbox: Sandbox,
  kind: string,
  histories: Map<string, TransactionHistory>,
  read: (what: string, lost?: boolean, times?: number) => void,
): Promise<string> {
  const candidates = [...histories].flatMap(([linkId, history]) =>
    history.transactions.map((transaction) => ({ linkId, transaction })),
  );
  const target =
    candidates.find(({ transaction }) => sandbox.state.drift.kindOfTransaction(transaction.transaction_id) === kind) ??
    candidates[0];
  if (!target) return "none: no drifted link has transactions";
  const current = target.transaction.enrichment?.category.value;
  const pair = CORRECTION_PAIRS.find((p) => p.category !== current)!;
  // The strict writer: what leaves is checked against the taxonomy first, as the correction action does.
  const body = correctEnrichmentRequestSchema.parse(pair);
  const from = `${current ?? "none"}/${target.transaction.enrichment?.subcategory?.value ?? "none"}`;
  try {
    const answer = await api.correctEnrichment(target.linkId, target.transaction.transaction_id, body);
    const updated = answer.transactions.find((t) => t.transaction_id === target.transaction.transaction_id);
    // The kind `nulls` sends a transaction's subcategory as null, a corrected one's too: the category says it applied.
    const subcategory = updated?.enrichment?.subcategory?.value ?? null;
    const applied =
      updated?.enrichment?.category.value === pair.category &&
      (subcategory === pair.subcategory || subcategory === null);
    read("correction", !applied);
    if (answer.link === null) read("link carried by a correction's answer", true);
    const outcome = !applied
      ? "NOT applied"
      : subcategory === null
        ? "applied (its subcategory sent as null)"
        : "applied";
    return `${from} → ${pair.category}/${pair.subcategory} ${outcome}${answer.unreadableTransactions.length > 0 ? `, ${answer.unreadableTransactions.length} similar set aside` : ""}`;
  } catch (error) {
    read("correction", true);
    return `${from} → ${pair.category}/${pair.subcategory} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The value a kind's link sends that the links list and its CSV export must show as sent. */
const SHOWN: Record<string, string> = {
  unknown_link_error: "consent_revoked",
  unknown_link_state: "relinking",
  unknown_provider: "truelayer",
  unknown_product_error: "consent_expired",
  unknown_product: "payment_initiation",
};

/** The filter of the links list that finds a kind's links by the value it sends, where the list has one. */
function filterOf(kind: string): { param: string; value: string; of: (link: WireLink) => boolean } | null {
  switch (kind) {
    case "unknown_link_error":
      return { param: "error_code", value: "consent_revoked", of: (l) => l.error_code === "consent_revoked" };
    case "unknown_link_state":
      return { param: "state", value: "relinking", of: (l) => l.state === "relinking" };
    case "unknown_provider":
      return { param: "provider", value: "truelayer", of: (l) => l.provider === "truelayer" };
    case "unknown_product_error":
      return {
        param: "product_error",
        value: "consent_expired",
        of: (l) => Object.values(l.products).some((p) => p?.error_code === "consent_expired"),
      };
    default:
      return null;
  }
}

/**
 * The data the pages show, from the functions their routes call: what a page would fail on or lose. Returns how many
 * checks ran and those that failed, in words.
 */
async function checkPageData(
  db: Db,
  kind: string,
  readLinks: Map<string, WireLink>,
  histories: Map<string, TransactionHistory>,
  result: KindResult,
): Promise<{ run: number; failed: string[] }> {
  const failed: string[] = [];
  let run = 0;
  const check = async (what: string, test: () => Promise<string | null>) => {
    run++;
    try {
      const problem = await test();
      if (problem) failed.push(`${what}: ${problem}`);
    } catch (error) {
      failed.push(`${what}: threw ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const filter = filterOf(kind);
  const expected = filter
    ? new Set([...readLinks].filter(([, link]) => filter.of(link)).map(([id]) => id))
    : new Set(readLinks.keys());
  const query = new URLSearchParams(filter ? { [filter.param]: filter.value } : {});

  // The Links page and its CSV export, as their URL gives them.
  await check(`/links?${query}`, async () => {
    const { params, dropped } = parseLinkListParams(query);
    if (dropped.length > 0) return `parameter dropped (${dropped.map((d) => `${d.param}: ${d.reason}`).join(", ")})`;
    const page = await listLinks(db, params);
    if (filter && page.total !== expected.size) return `${page.total} links, expected ${expected.size}`;
    if (!filter && page.total < expected.size) return `${page.total} links, fewer than the ${expected.size} read`;
    return null;
  });
  await check(`/links/export?${query}`, async () => {
    const { params } = parseLinkListParams(query);
    let text = "";
    for await (const chunk of streamLinksCsv(db, params)) text += chunk;
    const rows = new Map(
      text
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => [line.split(",")[0]!, line]),
    );
    const missing = [...expected].filter((id) => !rows.has(id));
    if (missing.length > 0) return `${missing.length} of ${expected.size} links missing`;
    if (filter && rows.size !== expected.size) return `${rows.size} rows, expected ${expected.size}`;
    const value = SHOWN[kind];
    const without = value ? [...expected].filter((id) => !rows.get(id)!.includes(value)).length : 0;
    if (without > 0) return `${without} of ${expected.size} rows without ${value}`;
    return null;
  });
  if (filter && filter.param !== "product_error") {
    await check("the filter dropdowns", async () => {
      const facets = await facetOptions(db);
      const options =
        filter.param === "state"
          ? facets.otherStates
          : filter.param === "error_code"
            ? facets.otherErrorCodes
            : facets.providers;
      const option = options.find((o) => o.value === filter.value);
      return option?.count === expected.size
        ? null
        : `${filter.value} offered for ${option?.count ?? 0} links, expected ${expected.size}`;
    });
  }
  if (filter?.param === "product_error") {
    await check("the filter dropdowns", async () => {
      const facets = await facetOptions(db);
      const option = facets.productErrors.find((o) => o.value === filter.value);
      return option?.count === expected.size
        ? null
        : `${filter.value} offered for ${option?.count ?? 0} links, expected ${expected.size}`;
    });
  }
  await check("/health", async () => {
    const health = await healthSummary(db);
    if (filter?.param === "state") {
      const n = health.otherStates.find((s) => s.value === filter.value)?.count ?? 0;
      if (n !== expected.size) return `state ${filter.value} counted for ${n} links, expected ${expected.size}`;
    }
    if (filter?.param === "error_code") {
      const n = health.otherErrorCodes.find((s) => s.value === filter.value)?.count ?? 0;
      if (n !== expected.size) return `error code ${filter.value} counted for ${n} links, expected ${expected.size}`;
    }
    if (filter?.param === "product_error") {
      const n = health.productErrors.find((s) => s.code === filter.value)?.count ?? 0;
      if (n !== expected.size) return `product error ${filter.value} counted for ${n} links, expected ${expected.size}`;
    }
    return null;
  });
  // The Status page: each value outside today's lists that the reading noted, counted.
  await check("/status", async () => {
    const rows = await listReadNotices(db, { limit: 1000 });
    const listed = new Set(rows.filter((r) => r.kind === "unknown_value").map((r) => `${r.field}=${r.value}`));
    const missing = [...result.notices.distinct].filter((n) => !listed.has(n));
    return missing.length > 0 ? `not listed: ${missing.join(", ")}` : null;
  });
  // Each link's page: the read model's copy (what the page shows when the upstream cannot be read right then) and the
  // correction desk's view of its transactions (every readable row on its page, every unreadable one said).
  let stored = 0;
  await check("link pages' stored copies", async () => {
    for (const linkId of readLinks.keys()) if ((await storedLink(db, linkId))?.link) stored++;
    return stored === readLinks.size ? null : `${readLinks.size - stored} of ${readLinks.size} unreadable`;
  });
  const { filters } = parseTransactionFilters({});
  for (const [linkId, history] of histories) {
    await check(`/api/links/${linkId}/transactions`, async () => {
      const view = await transactionsPage(db, linkId, { ...history, readAt: Date.now() }, { filters, page: 1 });
      const rows = Math.min(history.transactions.length, view.pageSize);
      result.setAsideShown += view.unreadable.filter((u) => u.reason.length > 0).length;
      if (view.rows.length !== rows) return `${view.rows.length} rows, expected ${rows}`;
      if (view.unreadable.length !== history.unreadable.length)
        return `${view.unreadable.length} unreadable shown, ${history.unreadable.length} set aside`;
      return null;
    });
  }
  // Not a failing page, an observation: can the desk filter by the value the transactions carry?
  if (kind === "old_category" || kind === "future_category") {
    const sample = [...histories.values()].flatMap((h) => h.transactions).find((t) => t.enrichment);
    const category = sample?.enrichment?.category.value;
    const subcategory = sample?.enrichment?.subcategory?.value;
    if (category && subcategory) {
      const { dropped } = parseTransactionFilters({ category, subcategory });
      if (dropped.length > 0)
        result.observations.push(
          `the desk's filter drops ${dropped.map((d) => `${d.param}=${d.value} (${d.reason})`).join(", ")}`,
        );
    }
  }
  return { run, failed };
}

/**
 * A kind a webhook carries: links change state, the sandbox delivers their events to the receiver here, the processor
 * applies them, the sync's reader reads the links they ask to read again; then each link's row must say what the
 * upstream says. Returns a line of figures; lost events count as reads lost.
 */
async function measureWebhooks(
  ctx: KindContext,
  api: UpstreamApi,
  kind: string,
  read: (what: string, lost?: boolean, times?: number) => void,
): Promise<string> {
  const { sandbox, url, db, receiver } = ctx;
  // The read model as the sync leaves it: every link the back end knows, read.
  await wipe(db);
  const backEnd = (await getJson(`${url}/_sandbox/back-end/link-ids`)) as { link_ids: string[] };
  await registerLinkIds(db, backEnd.link_ids, "registration");
  const budget = new Budget({
    store: createMemoryStore(),
    clientId: sandbox.state.options.clientId,
    appId: sandbox.state.options.clientId,
    shares: ALL_SHARES,
    interactiveMaxWaitMs: 0,
  });
  const deps = { db, api, budget, share: 1, pace: UNPACED, pageSize: 500, log: quiet };
  const synced = await runSync(deps);
  if (synced.outcome !== "completed") return `not measured: the sync before ${synced.outcome}`;
  // As the sync left it an hour ago (as lib/webhooks/late-retries.test.ts does): a link read in the last 10 s is not
  // read again for a webhook's asking (READ_REQUEST_GAP_MS), and here the events come seconds after the sync.
  await db.update(links).set({ seenAt: sql`now() - interval '1 hour'` });
  receiver.set({ db, keys: new WebhookKeySource({ fetchKeys: async () => api.getWebhookKeys() }) });
  receiver.failFirstAttempts = kind === "stale_webhook_retry";
  const before = { refused: receiver.refused, errors: receiver.errors, deliberate: receiver.deliberate };

  // Connected links with a webhook (a link in error carries unknown_link_error once it is in error).
  const chosen = sandbox.state.store
    .allLinkIds()
    .map((id) => sandbox.state.store.getLink(id)!)
    .filter((l) => l.state === "connected" && l.webhook === receiver.url)
    .filter((l) => kind === "unknown_link_error" || sandbox.state.drift.kindOfLink(l) === kind)
    .slice(0, WEBHOOK_LINKS)
    .map((l) => l.link_id);
  for (const linkId of chosen)
    await postJson(`${url}/_sandbox/links/${linkId}/state`, { state: "error", error_code: "institution_error" });
  const deadline = performance.now() + 30_000;
  while (sandbox.state.webhooks.outstanding > 0 && performance.now() < deadline) await sleep(50);
  while ((await processWebhookBatch(db)).claimed > 0);
  const learned = await readLearnedLinks(deps);

  const deliveries = sandbox.state.webhooks.list().filter((d) => chosen.includes(d.link_id));
  const keys = deliveries.map((d) => d.webhook_idempotency_key);
  const events =
    keys.length > 0
      ? await db
          .select({
            key: webhookEvents.idempotencyKey,
            verification: webhookEvents.verification,
            outcome: webhookEvents.outcome,
            event: webhookEvents.event,
          })
          .from(webhookEvents)
          .where(inArray(webhookEvents.idempotencyKey, keys))
      : [];
  const byKey = new Map(events.map((e) => [e.key, e]));
  let lost = 0;
  for (const delivery of deliveries) {
    const event = byKey.get(delivery.webhook_idempotency_key);
    const landed =
      delivery.state === "delivered" && event !== undefined && !["failed", "pending"].includes(event.outcome);
    read("webhook event", !landed);
    if (!landed) lost++;
  }
  // Each link's row against what the upstream says now.
  let stale = 0;
  for (const linkId of chosen) {
    const upstream = await api.getLink(linkId);
    const [row] = await db
      .select({ state: links.state, errorCode: links.errorCode })
      .from(links)
      .where(eq(links.linkId, linkId));
    const current = row?.state === upstream.state && (row?.errorCode ?? null) === (upstream.error_code ?? null);
    read("link's change, by webhook", !current);
    if (!current) stale++;
  }
  receiver.failFirstAttempts = false;
  const count = (test: (e: (typeof events)[number]) => boolean) => events.filter(test).length;
  const outcomes = [...new Set(events.map((e) => e.outcome))]
    .map((o) => `${count((e) => e.outcome === o)} ${o}`)
    .join(", ");
  return (
    `${chosen.length} links changed state: ${deliveries.length} deliveries (${deliveries.filter((d) => d.state === "delivered").length} delivered` +
    `${receiver.deliberate > before.deliberate ? `, ${receiver.deliberate - before.deliberate} first attempts answered 503 on purpose` : ""}), ` +
    `${receiver.refused - before.refused} refused, ${events.length} stored (${count((e) => e.verification === "late")} late, ` +
    `${count((e) => e.event !== null && !["link.state_changed", "link.product_refresh", "transactions.updates_available"].includes(e.event))} of an unknown kind); ` +
    `${outcomes || "none processed"}; ${learned.outcome === "read" ? `${learned.fetched} links read again` : `no link read again (${learned.outcome})`}; ` +
    `${lost} events lost, ${stale} links not as the upstream says`
  );
}

async function wipe(db: Db): Promise<void> {
  await db.delete(webhookEvents);
  await db.delete(upstreamReadNotices);
  await db.delete(syncState);
  await db.delete(links);
}

/** Why a kind notes no value outside today's lists. */
const NOTHING_NOTED: Record<string, string> = {
  null_product: "a null product entry is allowed (both SDKs type it nullable): left out, as a product without status",
  old_category: "the pairs from before 2025-01-13 are known history, read as such",
  string_amount: "decimal strings are a form the SDKs send; read as numbers",
  extra_fields: "fields no schema names are left aside unnoted",
  nulls: "null is allowed in each of those optional fields",
  unknown_webhook_event: "the answers carry nothing odd; the webhook's event is counted under reads",
  stale_webhook_retry: "the answers carry nothing odd; the webhook's retry is counted under reads",
  malformed_item: "the items are unreadable, not odd values",
};

function kindFigures(count: number, results: KindResult[]): Figure[] {
  const figures: Figure[] = [
    {
      label: "drift kinds the sandbox can send",
      value: count,
      unit: "",
      note: results.map((r) => r.kind).join(", "),
    },
  ];
  for (const r of results) {
    const reads = Object.entries(r.reads)
      .map(([what, n]) => `${n.tried} ${what}${n.lost > 0 ? ` (${n.lost} lost)` : ""}`)
      .join(", ");
    figures.push({
      label: `${r.kind}: reads lost`,
      value: sumLost(r),
      unit: "",
      goal: exactly(0),
      note: `${r.drifted} links carry it; read: ${reads}; correction ${r.correction}${r.webhooks ? `; webhooks: ${r.webhooks}` : ""}`,
    });
    const malformed = r.kind === "malformed_item";
    figures.push({
      label: `${r.kind}: transactions set aside as unreadable`,
      value: r.setAside,
      unit: "",
      ...(malformed ? {} : { goal: exactly(0) }),
      note: malformed
        ? `expected: one per drifted link with transactions, sent on purpose without an amount; ${r.setAsideShown} shown on the desk as unreadable with the reason; ${r.transactionsRead} others read`
        : `of ${r.transactionsRead + r.setAside} transactions, ${r.transactionsCarrying} of them carrying the kind`,
    });
    figures.push({
      label: `${r.kind}: values outside today's lists noted`,
      value: r.notices.unknown,
      unit: "",
      note: `${
        r.notices.distinct.size > 0
          ? `${r.notices.distinct.size} distinct: ${[...r.notices.distinct].join(", ")}`
          : `none: ${NOTHING_NOTED[r.kind] ?? "nothing it sends is outside a list"}`
      }${r.notices.unreadable > 0 ? `; and ${r.notices.unreadable} notices of an item set aside as unreadable` : ""}`,
    });
    figures.push({
      label: `${r.kind}: page data failing (route level, no dashboard)`,
      value: r.pageChecks.failed.length,
      unit: "",
      goal: exactly(0),
      note: `${r.pageChecks.run} checks${r.pageChecks.failed.length > 0 ? `; failed: ${r.pageChecks.failed.join("; ")}` : ""}${r.observations.length > 0 ? `; observed: ${r.observations.join("; ")}` : ""}`,
    });
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------------
// Sync passes

interface Pass {
  mode: "off" | "on" | "worst";
  wallMs: number;
  cpuMs: number;
  /** The sandbox's process over the same pass (/proc). */
  sandboxCpuMs: number;
  /** 429s the sandbox answered during the pass. */
  rateLimited: number;
  fetched: number;
  notices: number;
}

async function measureSyncPasses(
  template: Blob,
  {
    sandboxPort,
    fleet,
    rounds,
    log,
  }: { sandboxPort: number; fleet: number; rounds: number; log: (line: string) => void },
): Promise<Figure[]> {
  const sandbox = await startSandbox({
    port: sandboxPort,
    quiet: true,
    entry: [
      path.join(ROOT, "scripts/bench/drift-sandbox.ts"),
      JSON.stringify({ links: fleet, importDelayMs: 0, rateLimitWindowMs: FAST_WINDOW_MS }),
    ],
  });
  try {
    const url = sandbox.url;
    const { link_ids: ids } = (await getJson(`${url}/_sandbox/back-end/link-ids`)) as { link_ids: string[] };
    const modes: Pass["mode"][] = ["off", "on", "worst"];
    const reader = await readerCost(url, ids, modes);
    // One pass first, not counted: the first pass of a process runs colder (JIT, PGlite's first statements) than the
    // rest, and would fall on drift off every time.
    const warm = await syncPass(template, url, ids, "worst", sandbox.child.pid!);
    log(`warm-up pass (not counted): ${(warm.wallMs / 1000).toFixed(2)} s`);
    const passes: Pass[] = [];
    for (let round = 0; round < rounds; round++) {
      // The order turns each round: off first, then on first, then worst first.
      const order = modes.map((_, i) => modes[(i + round) % modes.length]!);
      for (const mode of order) {
        const pass = await syncPass(template, url, ids, mode, sandbox.child.pid!);
        passes.push(pass);
        log(
          `round ${round + 1}, drift ${mode}: ${(pass.wallMs / 1000).toFixed(2)} s, CPU ${(pass.cpuMs / 1000).toFixed(2)} s (the sandbox's ${(pass.sandboxCpuMs / 1000).toFixed(2)} s), ${pass.fetched} links read, ${pass.notices} notices, ${pass.rateLimited} 429s`,
        );
      }
    }
    return [...syncFigures(passes, fleet), ...reader];
  } finally {
    await sandbox.stop();
  }
}

/** Links whose answers the reader's cost is timed over, and how many times in turn. */
const READER_LINKS = 400;
const READER_BLOCKS = 60;

/**
 * What reading one GET /links/{id} answer costs Linkdesk with drift off and on: the body as the sandbox sends it, parsed
 * and read with the door's schema (lib/upstream/client.ts's validate: JSON, linkSchema, what it noticed), the modes
 * taking turns block by block. Where a pass's time would grow with drift, without the noise of a whole pass.
 */
async function readerCost(url: string, ids: string[], modes: Pass["mode"][]): Promise<Figure[]> {
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: SANDBOX_DEFAULTS.clientId,
    client_secret: SANDBOX_DEFAULTS.clientSecret,
  });
  const { access_token: token } = (await (await fetch(`${url}/auth/token`, { method: "POST", body: form })).json()) as {
    access_token: string;
  };
  const headers = {
    Authorization: `Bearer ${token}`,
    "X-Client-Id": SANDBOX_DEFAULTS.clientId,
    "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
  };
  const bodies = new Map<Pass["mode"], string[]>();
  for (const mode of modes) {
    await setDrift(url, mode);
    const texts: string[] = [];
    for (const id of ids.slice(0, READER_LINKS)) {
      let response = await fetch(`${url}/links/${id}`, { headers });
      // The sandbox's limits are on (over a second): a 429 waits the second out.
      while (response.status === 429) {
        await sleep(1000 * Number(response.headers.get("retry-after") ?? 1));
        response = await fetch(`${url}/links/${id}`, { headers });
      }
      if (!response.ok) throw new Error(`GET /links/${id}: HTTP ${response.status}`);
      texts.push(await response.text());
    }
    bodies.set(mode, texts);
  }
  const readAll = (texts: string[]) => {
    for (const text of texts) {
      const { result } = noticing(() => linkSchema.safeParse(JSON.parse(text), { reportInput: true }));
      if (!result.success) throw new Error("a link answer could not be read");
    }
  };
  for (const mode of modes) for (let i = 0; i < 3; i++) readAll(bodies.get(mode)!);
  const samples = new Map<Pass["mode"], number[]>(modes.map((m) => [m, []]));
  for (let block = 0; block < READER_BLOCKS; block++) {
    for (let i = 0; i < modes.length; i++) {
      const mode = modes[(i + block) % modes.length]!;
      const texts = bodies.get(mode)!;
      // CPU time, not the clock: on a shared machine a block is often paused while others run.
      const started = process.cpuUsage();
      readAll(texts);
      const used = process.cpuUsage(started);
      samples.get(mode)!.push((used.user + used.system) / texts.length);
    }
  }
  const off = median(samples.get("off")!);
  const bytes = (mode: Pass["mode"]) => Math.round(median(bodies.get(mode)!.map((t) => t.length)));
  return modes.map((mode) =>
    fromRuns(
      `CPU to read a GET /links/{id} answer (JSON and the door's schema), drift ${mode === "off" ? "off" : mode === "on" ? "on, share 0.125" : "on, share 1"}`,
      samples.get(mode)!,
      "µs",
      {
        ...(mode === "off" ? {} : { versus: { label: "drift off", value: off } }),
        note: `${READER_LINKS} answers, ${READER_BLOCKS} blocks in turn; median body ${bytes(mode)} bytes${mode === "off" ? "" : `; ${overAPass(median(samples.get(mode)!) - off, ids.length)}`}`,
      },
    ),
  );
}

/** A difference in µs an answer, over a pass of `links` reads, in words. */
function overAPass(differenceUs: number, links: number): string {
  const ms = (Math.abs(differenceUs) * links) / 1000;
  return `${ms.toFixed(1)} ms ${differenceUs >= 0 ? "more" : "less"} over a pass of ${links} links`;
}

async function setDrift(url: string, mode: Pass["mode"]): Promise<void> {
  if (mode === "off") await fetch(`${url}/_sandbox/drift`, { method: "DELETE" });
  else
    await postJson(`${url}/_sandbox/drift`, {
      enabled: true,
      share: mode === "worst" ? 1 : 0.125,
      kinds: [...DEFAULT_DRIFT_KINDS],
    });
}

async function syncPass(
  template: Blob,
  url: string,
  ids: string[],
  mode: Pass["mode"],
  sandboxPid: number,
): Promise<Pass> {
  await setDrift(url, mode);
  const database = await freshDatabase(template);
  try {
    await registerLinkIds(database.db, ids, "registration");
    const budget = new Budget({
      store: createMemoryStore(),
      clientId: SANDBOX_DEFAULTS.clientId,
      appId: SANDBOX_DEFAULTS.clientId,
      shares: ALL_SHARES,
      interactiveMaxWaitMs: 0,
      windowMs: FAST_BUDGET_WINDOW_MS,
    });
    let notices = 0;
    const api = new UpstreamApi(
      new UpstreamClient({
        baseUrl: url,
        clientId: SANDBOX_DEFAULTS.clientId,
        clientSecret: SANDBOX_DEFAULTS.clientSecret,
        gate: budget,
        onRead: (seen) => (notices += seen.length),
      }),
    );
    const limitedBefore = ((await getJson(`${url}/_sandbox/stats`)) as { rateLimited: number }).rateLimited;
    const cpu = process.cpuUsage();
    const sandboxCpu = treeCpuMs(sandboxPid);
    const started = performance.now();
    const result = await runSync({ db: database.db, api, budget, share: 1, log: quiet });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const sandboxCpuMs = treeCpuMs(sandboxPid) - sandboxCpu;
    if (result.outcome !== "completed") throw new Error(`a sync pass ended ${result.outcome}`);
    const rateLimited =
      ((await getJson(`${url}/_sandbox/stats`)) as { rateLimited: number }).rateLimited - limitedBefore;
    return {
      mode,
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      sandboxCpuMs,
      fetched: result.fetched,
      notices,
      rateLimited,
    };
  } finally {
    await database.close();
  }
}

function syncFigures(passes: Pass[], fleet: number): Figure[] {
  const of = (mode: Pass["mode"]) => passes.filter((p) => p.mode === mode);
  const seconds = (ms: number[]) => ms.map((x) => x / 1000);
  const off = of("off");
  const offWall = median(seconds(off.map((p) => p.wallMs)));
  const offCpu = median(seconds(off.map((p) => p.cpuMs)));
  const perSecond = (p: Pass[]) => Math.round(median(p.map((x) => x.fetched / (x.wallMs / 1000))));
  const paceCap = Math.round((1000 * 1000) / FAST_BUDGET_WINDOW_MS);
  const figures: Figure[] = [
    fromRuns(`sync pass of ${fleet} links, drift off`, seconds(off.map((p) => p.wallMs)), "s", {
      note: `${perSecond(off)} links/s; the budget allows ${paceCap}/s (1,000 a ${FAST_BUDGET_WINDOW_MS} ms window): bound by Linkdesk's work`,
    }),
    fromRuns("Linkdesk's CPU a pass, drift off", seconds(off.map((p) => p.cpuMs)), "s", {
      note: `this process: client, sync, embedded database; the sandbox's own process ${median(seconds(off.map((p) => p.sandboxCpuMs))).toFixed(2)} s`,
    }),
  ];
  for (const [mode, words] of [
    ["on", "drift on (default kinds, share 0.125)"],
    ["worst", "drift on at share 1 (every object drifts)"],
  ] as const) {
    const on = of(mode);
    const wall = seconds(on.map((p) => p.wallMs));
    const cpu = seconds(on.map((p) => p.cpuMs));
    const notices = Math.round(median(on.map((p) => p.notices)));
    // Round by round: the pass beside the drift-off pass of the same round.
    const ratios = on.map((p, i) => p.wallMs / off[i]!.wallMs);
    figures.push(
      fromRuns(`sync pass, ${words}`, wall, "s", {
        versus: { label: "drift off", value: offWall },
        note: `${perSecond(on)} links/s; ${notices} notices a pass`,
      }),
      {
        label: `sync pass time, ${words} ÷ drift off`,
        value: median(wall) / offWall,
        unit: "×",
        goal: atMost(1.1),
        note: `medians; round by round ${ratios.map((r) => r.toFixed(2)).join(", ")}`,
      },
      fromRuns(`Linkdesk's CPU a pass, ${words}`, cpu, "s", {
        versus: { label: "drift off", value: offCpu },
        note: `the sandbox's own process ${median(seconds(on.map((p) => p.sandboxCpuMs))).toFixed(2)} s`,
      }),
    );
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------------

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response.json();
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${url}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
