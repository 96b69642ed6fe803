import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DRIFT_KINDS, DRIFT_KINDS, decimalForm, type DriftKind } from "./drift";
import { parseSandboxEnv } from "./env";
import { startReceiver, verifyDelivery, type ReceivedWebhook, type WebhookReceiver } from "./test-receiver";
import { expectError, first, fixtures, startSandbox, type Fixtures, type TestSandbox } from "./test-support";
import { linkShape, transactionsPageShape, transactionShape } from "./wire-shapes";
import { categoryOf, PRE_2025_PAIRS, PRODUCTS } from "./wire-vocabulary";

// Drift mode (drift.ts): what the real service may send and today's lists do not hold, served deterministically, on
// a share of objects, and only where objects are written to the wire.

type Json = Record<string, unknown>;
interface Transaction {
  transaction_id: string;
  amount?: unknown;
  type: unknown;
  date: unknown;
  datetime: unknown;
  description: unknown;
  raw_description: unknown;
  original_id: unknown;
  enrichment: {
    category: { value: string; confidence: number };
    subcategory: { value: string } | null;
    merchant: unknown;
    processor: unknown;
    recurrence: unknown;
  } & Json;
}
interface Page extends Json {
  transactions: Transaction[];
  accounts: (Json & { account_id: string; balances: Json })[];
  link: Json;
}

async function setDrift(t: TestSandbox, change: Json): Promise<Json> {
  const response = await t.raw("POST", "/_sandbox/drift", { body: JSON.stringify(change) });
  expect(response.status).toBe(200);
  return response.json as Json;
}

async function carrying(t: TestSandbox, kind: DriftKind): Promise<string[]> {
  const response = await t.raw("GET", `/_sandbox/drift/links?kind=${kind}`);
  expect(response.status).toBe(200);
  return (response.json as { link_ids: string[] }).link_ids;
}

async function read<T = Json>(t: TestSandbox, path: string): Promise<T> {
  const response = await t.api("GET", path);
  expect(response.status, path).toBe(200);
  return response.json as T;
}

const everything = (linkId: string) => `/links/${linkId}/transactions?start_date=1900-01-01&size=1000`;

/** Logos are absolute on each sandbox's own address: two sandboxes' answers compare without it. */
const portless = (value: unknown) =>
  JSON.parse(JSON.stringify(value).replace(/127\.0\.0\.1:\d+/g, "sandbox")) as unknown;

describe("the drift switch", () => {
  it("is read from SANDBOX_DRIFT, SANDBOX_DRIFT_KINDS and SANDBOX_DRIFT_SHARE, and names each bad value", () => {
    const unset = parseSandboxEnv({});
    expect(unset.ok && unset.config.options.drift).toBeUndefined();
    const on = parseSandboxEnv({
      SANDBOX_DRIFT: "on",
      SANDBOX_DRIFT_KINDS: "null_product, malformed_item",
      SANDBOX_DRIFT_SHARE: "0.5",
    });
    expect(on.ok && on.config.options.drift).toEqual({
      enabled: true,
      kinds: ["null_product", "malformed_item"],
      share: 0.5,
    });
    const bad = parseSandboxEnv({
      SANDBOX_DRIFT: "sometimes",
      SANDBOX_DRIFT_KINDS: "nulls,typo",
      SANDBOX_DRIFT_SHARE: "2",
    });
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors;
    expect(errors).toHaveLength(3);
    expect(errors[0]).toBe('SANDBOX_DRIFT must be on or off (got "sometimes")');
    expect(errors.find((error) => error.startsWith("SANDBOX_DRIFT_KINDS"))).toContain("null_product");
    expect(errors.find((error) => error.startsWith("SANDBOX_DRIFT_SHARE"))).toContain("from 0 to 1");
  });

  describe("at run time", () => {
    let t: TestSandbox;
    beforeAll(async () => {
      t = await startSandbox({ links: 64, drift: { share: 0.25 } });
    });
    afterAll(() => t.close());

    it("shows its settings and every kind it can send, with what each targets", async () => {
      const view = (await t.raw("GET", "/_sandbox/drift")).json as {
        enabled: boolean;
        share: number;
        kinds: string[];
        available: { kind: string; target: string; description: string }[];
      };
      expect(view).toMatchObject({ enabled: false, share: 0.25, kinds: [...DEFAULT_DRIFT_KINDS] });
      expect(view.kinds).not.toContain("malformed_item");
      expect(view.available.map((entry) => entry.kind)).toEqual(DRIFT_KINDS);
      for (const entry of view.available) {
        expect(["link", "transaction", "account", "webhook", "any"]).toContain(entry.target);
        expect(entry.description.length).toBeGreaterThan(10);
      }
    });

    it("is changed by POST, a change validated, switched off by DELETE, and put back by a reset", async () => {
      expect(await setDrift(t, { enabled: true, kinds: ["nulls", "unknown_provider"] })).toMatchObject({
        enabled: true,
        share: 0.25,
        kinds: ["unknown_provider", "nulls"],
      });
      for (const body of [{ kinds: ["typo"] }, { kinds: [] }, { share: 1.5 }, { enabled: "yes" }, { extra: 1 }]) {
        const response = await t.raw("POST", "/_sandbox/drift", { body: JSON.stringify(body) });
        expectError(response, 422, "api_error.request.validation_failed");
      }
      const typo = await t.raw("POST", "/_sandbox/drift", { body: JSON.stringify({ kinds: ["typo"] }) });
      expect(JSON.stringify(typo.json)).toContain("null_product");
      const off = await t.raw("DELETE", "/_sandbox/drift");
      expect(off.json).toMatchObject({ enabled: false, kinds: ["unknown_provider", "nulls"] });
      await setDrift(t, { enabled: true, share: 1 });
      expect((await t.raw("POST", "/_sandbox/reset")).status).toBe(200);
      expect((await t.raw("GET", "/_sandbox/drift")).json).toMatchObject({
        enabled: false,
        share: 0.25,
        kinds: [...DEFAULT_DRIFT_KINDS],
      });
    });

    it("finds no drifted links while off, and refuses a kind it does not know", async () => {
      expect(await carrying(t, "null_product")).toEqual([]);
      expectError(await t.raw("GET", "/_sandbox/drift/links?kind=nope"), 422, "api_error.request.validation_failed");
    });
  });
});

describe("with drift off", () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startSandbox({ links: 64, drift: { enabled: true, share: 1 } });
  });
  afterAll(() => t.close());

  it("serves today's clean shapes, the same as a sandbox that never drifted", async () => {
    const never = await startSandbox({ links: 64 });
    try {
      const ids = ((await t.raw("GET", "/_sandbox/back-end/link-ids")).json as { link_ids: string[] }).link_ids;
      let differ = 0;
      for (const id of ids.slice(0, 10))
        if (
          JSON.stringify(portless(await read(t, `/links/${id}`))) !==
          JSON.stringify(portless(await read(never, `/links/${id}`)))
        )
          differ++;
      expect(differ).toBeGreaterThan(0);
      expect((await t.raw("DELETE", "/_sandbox/drift")).status).toBe(200);
      for (const id of ids) {
        const link = await read(t, `/links/${id}`);
        linkShape.parse(link);
        expect(portless(link)).toEqual(portless(await read(never, `/links/${id}`)));
        if (link.state !== "connected" || !(link.products as Json).transactions) continue;
        const page = await read(t, everything(id));
        transactionsPageShape.parse(page);
        expect(portless(page)).toEqual(portless(await read(never, everything(id))));
      }
    } finally {
      await never.close();
    }
  });
});

describe("each kind", () => {
  let t: TestSandbox;
  let seeded: Fixtures;
  beforeAll(async () => {
    t = await startSandbox({ links: 128, refreshDelayMs: 0 });
    seeded = await fixtures(t);
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await t.raw("POST", "/_sandbox/reset");
  });

  /** Every link the kind applies to carries it (share 1), and so does every answer that carries the link. */
  const only = (kind: DriftKind) => setDrift(t, { enabled: true, kinds: [kind], share: 1 });

  it("null_product: every product the link lacks is null in `products`; the ones it has keep their status", async () => {
    const linkId = first(seeded, "no_transactions_product");
    const clean = await read(t, `/links/${linkId}`);
    await only("null_product");
    const link = await read(t, `/links/${linkId}`);
    const products = link.products as Json;
    expect(Object.keys(products).sort()).toEqual([...PRODUCTS].sort());
    for (const product of PRODUCTS) {
      const before = (clean.products as Json)[product];
      expect(products[product]).toEqual(before ?? null);
    }
    expect(link.available_products).toEqual(clean.available_products);
  });

  it("unknown_link_error: a link in error carries consent_revoked, in every answer and webhook that carries it", async () => {
    const receiver = await startReceiver();
    try {
      const linkId = first(seeded, "error:auth_expired");
      const webhook = receiver.url("/errors");
      expect((await t.api("PATCH", `/links/${linkId}`, { body: { webhook } })).status).toBe(200);
      await only("unknown_link_error");
      expect(await read(t, `/links/${linkId}`)).toMatchObject({ state: "error", error_code: "consent_revoked" });
      expect((await read(t, everything(linkId))).link).toMatchObject({ error_code: "consent_revoked" });
      expect((await read(t, `/links/${linkId}/accounts`)).link).toMatchObject({ error_code: "consent_revoked" });
      const patched = await t.api("PATCH", `/links/${linkId}`, { body: { link_tags: ["team:ops"] } });
      expect(patched.json).toMatchObject({ error_code: "consent_revoked" });
      // The webhook says what the answers say.
      await t.api("POST", `/webhooks/test/link/${linkId}`, {
        body: { webhook_event: "link.state_changed", webhook_idempotency_key: "drift-error" },
      });
      const [heard] = await receiver.waitFor(1, "/errors");
      expect(heard!.body).toMatchObject({
        state: "error",
        error: "consent_revoked",
        error_message: expect.any(String),
      });
      // Only links in error: a connected link keeps its state.
      expect(await read(t, `/links/${first(seeded, "plain")}`)).toMatchObject({ state: "connected", error_code: null });
    } finally {
      await receiver.close();
    }
  });

  it("unknown_link_state: a link stored as connecting is sent as relinking until a control route changes its state", async () => {
    const linkId = first(seeded, "connecting");
    await only("unknown_link_state");
    expect(await read(t, `/links/${linkId}`)).toMatchObject({ state: "relinking", error_code: null });
    // Its data is still not ready, as a connecting link's is.
    expectError(await t.api("GET", `/links/${linkId}/transactions`), 422, "link_error.bad_state");
    const changed = await t.raw("POST", `/_sandbox/links/${linkId}/state`, {
      body: JSON.stringify({ state: "error", error_code: "user_error" }),
    });
    expect(changed.status).toBe(200);
    expect(await read(t, `/links/${linkId}`)).toMatchObject({ state: "error", error_code: "user_error" });
    expect(await read(t, `/links/${first(seeded, "plain")}`)).toMatchObject({ state: "connected" });
  });

  it("unknown_product: a seventh product with a status, and in available_products", async () => {
    const linkId = first(seeded, "plain");
    await only("unknown_product");
    const link = await read(t, `/links/${linkId}`);
    expect((link.products as Json).payment_initiation).toEqual({
      refreshed_at: expect.any(String),
      last_attempted_at: expect.any(String),
    });
    expect(link.available_products).toContain("payment_initiation");
  });

  it("unknown_product_error: the first product status carries consent_expired", async () => {
    const linkId = first(seeded, "plain");
    await only("unknown_product_error");
    const products = (await read(t, `/links/${linkId}`)).products as Record<string, Json>;
    const firstProduct = PRODUCTS.find((product) => products[product])!;
    expect(products[firstProduct]).toMatchObject({ error_code: "consent_expired", error_message: expect.any(String) });
    expect(
      Object.entries(products)
        .filter(([, status]) => status.error_code === "consent_expired")
        .map(([name]) => name),
    ).toEqual([firstProduct]);
  });

  it("unknown_provider: truelayer, in GET /users/{id}/links as in GET /links/{id}", async () => {
    const linkId = first(seeded, "plain");
    const { customerUserId } = t.sandbox.state.store.getLink(linkId)!;
    await only("unknown_provider");
    expect(await read(t, `/links/${linkId}`)).toMatchObject({ provider: "truelayer" });
    const links = (await read(t, `/users/${customerUserId}/links`)).links as Record<string, Json>;
    expect(links[linkId]).toMatchObject({ provider: "truelayer" });
  });

  it("old_category: the pre-2025-01-13 pairs; a correction still applies and is sent as corrected", async () => {
    const linkId = first(seeded, "plain");
    await only("old_category");
    const page = await read<Page>(t, everything(linkId));
    const pairs = new Set(PRE_2025_PAIRS.map((pair) => `${pair.category}/${pair.subcategory}`));
    const seen = page.transactions.map(
      (row) => `${row.enrichment.category.value}/${row.enrichment.subcategory?.value}`,
    );
    expect(seen.every((pair) => pairs.has(pair))).toBe(true);
    expect(new Set(seen)).toEqual(pairs);
    const [row] = page.transactions;
    const corrected = await t.api("POST", `/links/${linkId}/transactions/${row!.transaction_id}/enrichment`, {
      body: { category: "charity" },
    });
    expect(corrected.status).toBe(200);
    const after = (await read<Page>(t, everything(linkId))).transactions.find(
      (other) => other.transaction_id === row!.transaction_id,
    );
    expect(after!.enrichment.category).toEqual({ value: "charity", confidence: 100 });
    // The old values cannot be written back: drift changes what is sent, not what is accepted.
    const refused = await t.api("POST", `/links/${linkId}/transactions/${row!.transaction_id}/enrichment`, {
      body: { category: "banking", subcategory: "overdraft_fees" },
    });
    expectError(refused, 422, "api_error.request.validation_failed");
  });

  it("future_category: a category and subcategory outside today's lists", async () => {
    await only("future_category");
    const page = await read<Page>(t, everything(first(seeded, "plain")));
    for (const row of page.transactions) {
      expect(row.enrichment.category.value).toBe("subscriptions");
      expect(row.enrichment.subcategory?.value).toBe("software_subscriptions");
      expect(categoryOf("software_subscriptions")).toBeUndefined();
    }
  });

  it("string_amount: amounts and balances as decimal strings in every form, each of the same value", async () => {
    const linkId = first(seeded, "plain");
    const clean = await read<Page>(t, everything(linkId));
    await only("string_amount");
    const page = await read<Page>(t, everything(linkId));
    page.transactions.forEach((row, i) => {
      expect(row.amount).toMatch(/^\d+(\.\d+)?(E[+-]\d+)?$/);
      expect(Number(row.amount)).toBe(clean.transactions[i]!.amount);
    });
    const eightPlaces = page.transactions.filter((row) => /\.\d{8}$/.test(String(row.amount)));
    expect(eightPlaces.length).toBeGreaterThan(0);
    expect(eightPlaces.length).toBeLessThan(page.transactions.length);
    page.accounts.forEach((account, i) => {
      for (const field of ["available", "current", "limit"]) {
        const before = clean.accounts[i]!.balances[field];
        if (before === null) expect(account.balances[field]).toBeNull();
        else expect(Number(account.balances[field])).toBe(before);
      }
      expect(typeof account.balances.current).toBe("string");
    });
    // The forms a Decimal prints, chosen by id: Python prints 120 normalised as 1.2E+2, a zero of 8 places as 0E-8.
    const ids = Array.from({ length: 40 }, (_, i) => `id-${i}`);
    expect(new Set(ids.map((id) => decimalForm(120, id)))).toEqual(new Set(["120.00", "1.2E+2", "120.00000000"]));
    expect(new Set(ids.map((id) => decimalForm(12.5, id)))).toEqual(new Set(["12.50", "12.5", "12.50000000"]));
    expect(new Set(ids.map((id) => decimalForm(100, id)))).toContain("1E+2");
    expect(new Set(ids.map((id) => decimalForm(0, id)))).toEqual(new Set(["0E-8"]));
    const imported = await t.api("POST", "/links/import", {
      body: {
        customer_user: { id: "drift_zero" },
        institution_id: "chase",
        accounts: [{ account_id: "a", name: "Checking", type: "checking", balances: { current: 0 } }],
        transactions: [{ account_id: "a", amount: "0.00", date: "2026-10-01" }],
      },
    });
    const importedId = (imported.json as { link_id: string }).link_id;
    const zero = await read<Page>(t, everything(importedId));
    expect(zero.transactions[0]!.amount).toBe("0E-8");
    expect(zero.accounts[0]!.balances.current).toBe("0E-8");
  });

  it("extra_fields: unknown fields on the envelope, the link and its product statuses, transactions, enrichment and accounts", async () => {
    const linkId = first(seeded, "plain");
    const clean = await read<Page>(t, everything(linkId));
    await only("extra_fields");
    const page = await read<Page>(t, everything(linkId));
    const added = (before: object, after: object) => Object.keys(after).filter((key) => !(key in before));
    expect(added(clean, page)).toEqual(["request_id", "warnings"]);
    expect(added(clean.link, page.link)).toEqual(["created_at", "consent"]);
    for (const [product, status] of Object.entries(page.link.products as Record<string, Json>))
      expect(added((clean.link.products as Record<string, Json>)[product]!, status)).toContain("settings");
    page.transactions.forEach((row, i) => {
      expect(added(clean.transactions[i]!, row)).toEqual(["category", "merchant_category_code"]);
      expect(added(clean.transactions[i]!.enrichment, row.enrichment)).toEqual(["model_version", "labels"]);
      // Today's fields are as they were.
      expect(row).toMatchObject(JSON.parse(JSON.stringify(clean.transactions[i])) as Json);
    });
    page.accounts.forEach((account, i) =>
      expect(added(clean.accounts[i]!, account)).toEqual(["raw_provider_data", "status"]),
    );
  });

  it("nulls: explicit null for the optional fields of links, transactions, enrichment and accounts", async () => {
    const linkId = first(seeded, "plain");
    await only("nulls");
    const page = await read<Page>(t, everything(linkId));
    expect(page.link).toMatchObject({ webhook: null, link_tags: null, auth_expired_at: null, last_synced_at: null });
    for (const row of page.transactions) {
      expect(row).toMatchObject({ datetime: null, description: null, raw_description: null, original_id: null });
      expect(row.enrichment).toMatchObject({ subcategory: null, merchant: null, processor: null, recurrence: null });
      expect(row.enrichment.category.value).toBeTruthy();
    }
    for (const account of page.accounts) expect(account).toMatchObject({ nickname: null, account_mask: null });
  });

  it("unknown_transaction_type: adjustment", async () => {
    await only("unknown_transaction_type");
    const page = await read<Page>(t, everything(first(seeded, "plain")));
    expect(new Set(page.transactions.map((row) => row.type))).toEqual(new Set(["adjustment"]));
  });

  it("malformed_item (named only): one transaction of each listing lacks amount and has an unreadable date", async () => {
    const linkId = first(seeded, "plain");
    await setDrift(t, { enabled: true, share: 1 });
    const defaults = await read<Page>(t, everything(linkId));
    expect(defaults.transactions.every((row) => "amount" in row)).toBe(true);
    await only("malformed_item");
    const page = await read<Page>(t, everything(linkId));
    const unreadable = page.transactions.filter((row) => !("amount" in row));
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]).toMatchObject({ date: "not-a-date", transaction_id: expect.any(String) });
    for (const row of page.transactions.filter((other) => other !== unreadable[0])) transactionShape.parse(row);
    // The same one in the sync listing, and on the page that holds it when paged.
    const sync = await read<{ transactions: { created: Transaction[] } }>(
      t,
      `/links/${linkId}/transactions/sync?size=500`,
    );
    expect(sync.transactions.created.filter((row) => !("amount" in row)).map((row) => row.transaction_id)).toEqual([
      unreadable[0]!.transaction_id,
    ]);
    const index = page.transactions.indexOf(unreadable[0]!);
    const paged = await read<Page>(t, `/links/${linkId}/transactions?start_date=1900-01-01&size=1&page=${index + 1}`);
    expect(paged.transactions[0]).toEqual(unreadable[0]);
  });
});

describe("webhook kinds", () => {
  let t: TestSandbox;
  let seeded: Fixtures;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startSandbox({ links: 64, webhookRetryBaseMs: 20, clock: true });
    seeded = await fixtures(t);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    receiver.answer = () => 200;
    await t.raw("DELETE", "/_sandbox/drift");
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function failThreeTimes(linkId: string, path: string): Promise<ReceivedWebhook[]> {
    expect((await t.api("PATCH", `/links/${linkId}`, { body: { webhook: receiver.url(path) } })).status).toBe(200);
    let calls = 0;
    receiver.answer = (request) => {
      if (request.path !== path) return 200;
      // Ten minutes of back-off between attempts, on the sandbox's clock.
      t.clock.advance(600_000);
      return ++calls <= 3 ? 503 : 200;
    };
    await t.raw("POST", `/_sandbox/links/${linkId}/state`, { body: JSON.stringify({ state: "connected" }) });
    return receiver.waitFor(4, path);
  }

  it("a retry keeps the first webhook_timestamp and webhook_idempotency_key, and is signed afresh", async () => {
    const requests = await failThreeTimes(seeded.plain![0]!, "/fresh");
    expect(new Set(requests.map((request) => request.body.webhook_timestamp)).size).toBe(1);
    expect(new Set(requests.map((request) => request.body.webhook_idempotency_key)).size).toBe(1);
    const keys = (await t.raw("GET", "/.well-known/jwks.json")).json as { keys: [] };
    const iats = requests.map((request) => verifyDelivery(request, keys).claims.iat);
    expect(iats.slice(1).map((iat, i) => iat - iats[i]!)).toEqual([600, 600, 600]);
  });

  it("stale_webhook_retry: a retry re-sends the first attempt's signature, so its iat is as old as the first", async () => {
    await setDrift(t, { enabled: true, kinds: ["stale_webhook_retry"], share: 1 });
    const requests = await failThreeTimes(seeded.plain![1]!, "/stale");
    expect(new Set(requests.map((request) => request.headers["moneykit-signature"])).size).toBe(1);
    expect(requests.map((request) => request.headers["moneykit-delivery-attempt"])).toEqual(["1", "2", "3", "4"]);
    const keys = (await t.raw("GET", "/.well-known/jwks.json")).json as { keys: [] };
    const iats = requests.map((request) => verifyDelivery(request, keys).claims.iat);
    expect(new Set(iats).size).toBe(1);
    expect(t.clock.now / 1000 - iats[0]!).toBeGreaterThanOrEqual(1800);
  });

  it("unknown_webhook_event: after each event, a link.products_changed with only the common fields", async () => {
    await setDrift(t, { enabled: true, kinds: ["unknown_webhook_event"], share: 1 });
    const linkId = seeded.plain![2]!;
    expect((await t.api("PATCH", `/links/${linkId}`, { body: { webhook: receiver.url("/unknown") } })).status).toBe(
      200,
    );
    await t.api("POST", `/webhooks/test/link/${linkId}`, {
      body: { webhook_event: "transactions.updates_available", webhook_idempotency_key: "known" },
    });
    const [known, unknown] = await receiver.waitFor(2, "/unknown");
    expect(known!.body.webhook_event).toBe("transactions.updates_available");
    expect(unknown!.body).toEqual({
      webhook_major_version: 1,
      webhook_minor_version: 0,
      webhook_idempotency_key: expect.any(String),
      webhook_timestamp: expect.any(String),
      link_id: linkId,
      link_tags: expect.any(Array),
      webhook_event: "link.products_changed",
    });
    expect(unknown!.body.webhook_idempotency_key).not.toBe("known");
    verifyDelivery(unknown!, (await t.raw("GET", "/.well-known/jwks.json")).json as { keys: [] });
  });

  it("extra_fields: a drifted link's webhooks carry fields no webhook carries today", async () => {
    await setDrift(t, { enabled: true, kinds: ["extra_fields"], share: 1 });
    const linkId = seeded.plain![3]!;
    expect((await t.api("PATCH", `/links/${linkId}`, { body: { webhook: receiver.url("/extra") } })).status).toBe(200);
    await t.api("POST", `/webhooks/test/link/${linkId}`, {
      body: { webhook_event: "link.state_changed", webhook_idempotency_key: "extra" },
    });
    const [heard] = await receiver.waitFor(1, "/extra");
    expect(heard!.body).toMatchObject({
      webhook_event: "link.state_changed",
      state: "connected",
      environment: "sandbox",
    });
  });
});

describe("at the default share", () => {
  let t: TestSandbox;
  let other: TestSandbox;
  beforeAll(async () => {
    [t, other] = await Promise.all([
      startSandbox({ links: 512, drift: { enabled: true } }),
      startSandbox({ links: 512, drift: { enabled: true } }),
    ]);
  });
  afterAll(() => Promise.all([t.close(), other.close()]));

  const linkKinds: DriftKind[] = [
    "null_product",
    "unknown_link_error",
    "unknown_link_state",
    "unknown_product",
    "unknown_product_error",
    "unknown_provider",
    "extra_fields",
    "nulls",
    "unknown_webhook_event",
    "stale_webhook_retry",
  ];

  it("about one link in eight drifts, each with one kind, and every default kind is found on some link", async () => {
    const byKind = new Map<DriftKind, string[]>();
    for (const kind of DEFAULT_DRIFT_KINDS) byKind.set(kind, await carrying(t, kind));
    for (const kind of DEFAULT_DRIFT_KINDS) expect(byKind.get(kind)!.length, kind).toBeGreaterThan(0);
    const drifted = linkKinds.flatMap((kind) => byKind.get(kind)!);
    expect(new Set(drifted).size).toBe(drifted.length);
    expect(drifted.length / 512).toBeGreaterThan(0.08);
    expect(drifted.length / 512).toBeLessThan(0.17);
  });

  it("a link found for a kind is served with it", async () => {
    const [errorLink] = await carrying(t, "unknown_link_error");
    expect(await read(t, `/links/${errorLink}`)).toMatchObject({ error_code: "consent_revoked" });
    const [providerLink] = await carrying(t, "unknown_provider");
    expect(await read(t, `/links/${providerLink}`)).toMatchObject({ provider: "truelayer" });
    const [categoryLink] = await carrying(t, "old_category");
    const pairs = PRE_2025_PAIRS.map((pair) => pair.subcategory);
    const page = await read<Page>(t, everything(categoryLink!));
    expect(page.transactions.some((row) => pairs.includes(row.enrichment.subcategory?.value ?? ""))).toBe(true);
  });

  it("about one transaction in eight drifts, and every other one is today's clean transaction", async () => {
    const ids = (await carrying(t, "string_amount")).slice(0, 20);
    let all = 0;
    let clean = 0;
    for (const id of ids) {
      const page = await read<Page>(t, everything(id));
      for (const row of page.transactions) {
        all++;
        if (transactionShape.safeParse(row).success) clean++;
      }
    }
    expect(1 - clean / all).toBeGreaterThan(0.08);
    expect(1 - clean / all).toBeLessThan(0.17);
  });

  it("is the same on every read and in every sandbox of the same seed", async () => {
    const ids = ((await t.raw("GET", "/_sandbox/back-end/link-ids")).json as { link_ids: string[] }).link_ids;
    for (const id of ids.slice(-40)) {
      const link = await read(t, `/links/${id}`);
      expect(await read(t, `/links/${id}`)).toEqual(link);
      expect(portless(await read(other, `/links/${id}`))).toEqual(portless(link));
    }
    const [transactionsLink] = await carrying(t, "future_category");
    const page = await read(t, everything(transactionsLink!));
    expect(portless(await read(other, everything(transactionsLink!)))).toEqual(portless(page));
    for (const kind of DEFAULT_DRIFT_KINDS) expect(await carrying(other, kind)).toEqual(await carrying(t, kind));
  });
});

describe("drift changes what is sent, never what is accepted, the rate limits or the stats", () => {
  it("the same calls get the same statuses, stats and rate-limit counters with drift on and off", async () => {
    const [off, on] = await Promise.all([
      startSandbox({ links: 64, rateLimits: true }),
      startSandbox({ links: 64, rateLimits: true, drift: { enabled: true, share: 1 } }),
    ]);
    try {
      const seeded = await fixtures(off);
      const script = async (t: TestSandbox) => {
        const statuses: number[] = [];
        const call = async (method: string, path: string, body?: unknown) =>
          statuses.push((await t.api(method, path, body === undefined ? {} : { body })).status);
        const plain = first(seeded, "plain");
        for (let i = 0; i < 32; i++) await call("GET", `/links/${plain}`);
        const page = (await t.api("GET", `/links/${plain}/transactions?size=1`)).json as Page;
        await call("POST", `/links/${plain}/transactions/${page.transactions[0]!.transaction_id}/enrichment`, {
          category: "charity",
        });
        await call("POST", `/links/${plain}/transactions/${page.transactions[0]!.transaction_id}/enrichment`, {
          category: "banking",
          subcategory: "overdraft_fees",
        });
        await call("GET", `/links/${first(seeded, "connecting")}/transactions`);
        await call("PATCH", `/links/${first(seeded, "error:auth_expired")}`, { link_tags: ["a:b"] });
        const importBody = (amount: unknown, provider: string) => ({
          customer_user: { id: "drift_script" },
          institution_id: "chase",
          provider,
          accounts: [{ account_id: "a", name: "Checking", type: "checking", balances: { current: 1 } }],
          transactions: [{ account_id: "a", amount, date: "2026-10-01" }],
        });
        await call("POST", "/links/import", importBody("-1.00", "plaid"));
        await call("POST", "/links/import", importBody(-1, "plaid"));
        await call("POST", "/links/import", importBody("-1.00", "sophtron"));
        await call("POST", "/links/import", importBody("-1.00", "truelayer"));
        return statuses;
      };
      const [statusesOff, statusesOn] = [await script(off), await script(on)];
      expect(statusesOn).toEqual(statusesOff);
      expect(statusesOff.filter((status) => status === 429)).toHaveLength(2);
      expect(statusesOff.slice(-4)).toEqual([200, 422, 422, 422]);
      const stats = async (t: TestSandbox) => (await t.raw("GET", "/_sandbox/stats")).json as Json;
      expect(await stats(on)).toEqual(await stats(off));
      const counters = async (t: TestSandbox) =>
        ((await t.raw("GET", "/_sandbox/rate-limits")).json as { counters: Json[] }).counters.map((counter) => ({
          ...counter,
          key: String(counter.key).replace(/^mk_\w+$/, "link"),
        }));
      expect(await counters(on)).toEqual(await counters(off));
    } finally {
      await Promise.all([off.close(), on.close()]);
    }
  });
});
