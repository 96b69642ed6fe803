import "server-only";
import { z } from "zod";
import { budgetGate } from "../budget";
import { getEnv } from "../env";
import type { LinkSource } from "../db/schema";
import { logger } from "../logger";
import { type BudgetWait, type CallMode, UpstreamClient } from "./client";
import type { ReadNotice } from "./reading";
import {
  accountResponseSchema,
  accountsResponseSchema,
  correctEnrichmentResponseSchema,
  emptyResponseSchema,
  exchangeTokenResponseSchema,
  institutionSchema,
  institutionsPageSchema,
  linkSchema,
  linkSessionRequestSchema,
  linkSessionResponseSchema,
  linksPageSchema,
  testWebhookResponseSchema,
  transactionsPageSchema,
  userAccountsResponseSchema,
  userLinksResponseSchema,
  userTransactionsPageSchema,
  webhookKeysSchema,
  type Product,
  type WireCorrectEnrichmentRequest,
  type WireTestWebhookRequest,
  type WireLinkSessionRequest,
  type WireUpdateLinkRequest,
  type WireLink,
  type WireImportLinkRequest,
  type WireImportTransaction,
} from "./schemas";

// Per-resource verbs over the one client. Each names the spec endpoint it calls; options carry the correlation id
// that ties an audit row to the server log line of the call.

export interface CallOptions {
  correlationId?: string;
  /** Interactive (default): refused when the rate budget has no room soon. Queued: waits its turn. */
  mode?: CallMode;
  /** Stops a queued call's wait for its budget slot (never a request in flight). */
  signal?: AbortSignal;
  /** A queued call hears each time it waits for a budget slot: on which limit, and until when (a job's page says so). */
  onWait?: (wait: BudgetWait) => void;
  /** Runs right before the request goes out, after its budget slot is reserved (see UpstreamRequest.beforeSend). */
  beforeSend?: () => Promise<void>;
  /** Where the links in the answer count as learned from, for a link new to the read model (default: an answer). */
  learnedFrom?: LinkSource;
}

/**
 * An id as one path segment. "." and ".." would name another resource once the URL is resolved, and an empty id
 * another route: none is an id, so none is sent (callers check input first; this is the door's own guard).
 */
function id(value: string): string {
  if (value === "" || value === "." || value === "..") throw new RangeError(`Not an id: "${value}".`);
  return encodeURIComponent(value);
}

/** Told of every Link object an upstream answer carries, e.g. to keep the read model current. */
export type LinkObserver = (links: WireLink[], learnedFrom?: LinkSource) => Promise<void>;

// The door only calls: what must happen with an answer is an observer, wired where the app starts (lib/startup.ts).
// On globalThis: Next.js may evaluate this module more than once in one process, and start-up wires them once.
const linkObservers: Map<string, LinkObserver> = ((globalThis as { [key: symbol]: Map<string, LinkObserver> })[
  Symbol.for("linkdesk.upstream-link-observers")
] ??= new Map());

/** Has `observer` told of the Link objects in every answer of the dashboard's upstream; a second one by `name` replaces it. */
export function observeLinkAnswers(name: string, observer: LinkObserver): void {
  linkObservers.set(name, observer);
}

async function tellLinkObservers(links: WireLink[], learnedFrom?: LinkSource): Promise<void> {
  await Promise.all([...linkObservers.values()].map((observer) => observer(links, learnedFrom)));
}

/** Told what reading an answer noticed (lib/upstream/reading.ts), e.g. to count it for the Status page. */
export type ReadNoticeObserver = (notices: ReadNotice[], call: { endpoint: string; correlationId: string }) => void;

const readNoticeObservers: Map<string, ReadNoticeObserver> = ((
  globalThis as { [key: symbol]: Map<string, ReadNoticeObserver> }
)[Symbol.for("linkdesk.upstream-read-notice-observers")] ??= new Map());

/** Has `observer` told of what every answer's reading noticed; a second one by `name` replaces it. */
export function observeReadNotices(name: string, observer: ReadNoticeObserver): void {
  readNoticeObservers.set(name, observer);
}

/** Each odd value or unreadable field is logged once per process, not once per read: at most this many kept. */
const LOGGED_NOTICES_MAX = 1_000;
// On globalThis like the observers: the server loads this module more than once (the sync's copy, started from
// instrumentation, and the pages' copy), and a set per copy logged each value once per copy.
const loggedNotices: Set<string> = ((globalThis as { [key: symbol]: Set<string> })[
  Symbol.for("linkdesk.upstream-logged-read-notices")
] ??= new Set());

/** Logs a notice the first time it is seen, with the endpoint and the field's path (never the body), then tells observers. */
function tellReadNotices(
  log: ReturnType<typeof logger>,
  notices: ReadNotice[],
  call: { endpoint: string; correlationId: string },
): void {
  for (const notice of notices) {
    const key = `${notice.kind}\u0000${notice.field}\u0000${notice.value}`;
    if (loggedNotices.has(key) || loggedNotices.size >= LOGGED_NOTICES_MAX) continue;
    loggedNotices.add(key);
    log.warn(
      { ...call, field: notice.field, value: notice.value, itemId: notice.itemId },
      notice.kind === "unknown_value"
        ? "upstream sent a value this version of Linkdesk does not know (kept and shown as sent; logged once)"
        : "upstream sent something Linkdesk could not read (set aside; logged once)",
    );
  }
  for (const observer of readNoticeObservers.values()) observer(notices, call);
}

export class UpstreamApi {
  constructor(
    readonly client: UpstreamClient,
    private readonly importTimeoutMs = 30_000,
    private readonly onLinks?: LinkObserver,
  ) {}

  private async observe<T>(
    result: T,
    links: (r: T) => WireLink | WireLink[] | null,
    learnedFrom?: LinkSource,
  ): Promise<T> {
    const seen = [links(result) ?? []].flat();
    if (this.onLinks && seen.length > 0) {
      // The read model is a copy: failing to update it must not fail the person's action.
      await this.onLinks(seen, learnedFrom).catch((error: unknown) => {
        try {
          logger().warn({ err: error }, "read model update failed");
        } catch {
          // No logger without configuration (tests, scripts): the call's own result matters more.
        }
      });
    }
    return result;
  }

  listLinks(params: { cursor?: string; limit?: number } = {}, opts: CallOptions = {}) {
    return this.client.request({
      method: "GET",
      endpoint: "GET /links",
      path: "/links",
      query: { cursor: params.cursor || undefined, limit: params.limit },
      schema: linksPageSchema,
      ...opts,
    });
  }

  async getLink(linkId: string, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "GET",
      endpoint: "GET /links/{id}",
      scopes: { linkId },
      path: `/links/${id(linkId)}`,
      schema: linkSchema,
      ...opts,
    });
    return this.observe(result, (r) => r, opts.learnedFrom);
  }

  /**
   * Every link made for one customer user (the `customer_user.id` given at link session or import), in any state,
   * deleted ones included until the upstream purges them. Not in the spec: upstream-facts §2 (GET /users/{id}/links).
   */
  async getUserLinks(customerUserId: string, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "GET",
      endpoint: "GET /users/{id}/links",
      scopes: { userId: customerUserId },
      path: `/users/${id(customerUserId)}/links`,
      schema: userLinksResponseSchema,
      ...opts,
    });
    return this.observe(result, (r) => Object.values(r.links), opts.learnedFrom);
  }

  /**
   * One customer user's accounts across their links, by link id, optionally only some accounts (the upstream ignores
   * the deprecated `institution_ids`, so it is never sent). Only links the upstream has data of are in the map. Not
   * in the spec: upstream-facts §9 (GET /users/{id}/accounts). The answer carries no link objects.
   */
  async getUserAccounts(customerUserId: string, params: { accountIds?: string[] } = {}, opts: CallOptions = {}) {
    return this.client.request({
      method: "GET",
      endpoint: "GET /users/{id}/accounts",
      scopes: { userId: customerUserId },
      path: `/users/${id(customerUserId)}/accounts`,
      query: { account_ids: params.accountIds },
      schema: userAccountsResponseSchema,
      ...opts,
    });
  }

  /**
   * A page of one customer user's transactions across their links, newest first, with the accounts the page names.
   * The filter is `account_id` on this route (`account_ids` on the link's own). Not in the spec: upstream-facts §4.3
   * (GET /users/{id}/transactions). The answer carries no link objects.
   */
  async getUserTransactions(
    customerUserId: string,
    params: { page?: number; size?: number; startDate?: string; endDate?: string; accountIds?: string[] } = {},
    opts: CallOptions = {},
  ) {
    return this.client.request({
      method: "GET",
      endpoint: "GET /users/{id}/transactions",
      scopes: { userId: customerUserId },
      path: `/users/${id(customerUserId)}/transactions`,
      // Without start_date the upstream returns only the last 90 days; staff expect the whole history.
      query: {
        page: params.page,
        size: params.size,
        start_date: params.startDate ?? "1900-01-01",
        end_date: params.endDate,
        account_id: params.accountIds,
      },
      schema: userTransactionsPageSchema,
      ...opts,
    });
  }

  /**
   * The keys that sign the upstream's webhooks (upstream-facts §11; not in the spec). Public and unlimited upstream;
   * the webhook receiver caches them (lib/webhooks/keys.ts).
   */
  getWebhookKeys(opts: CallOptions = {}) {
    return this.client.request({
      method: "GET",
      endpoint: "GET /.well-known/jwks.json",
      path: "/.well-known/jwks.json",
      schema: webhookKeysSchema,
      ...opts,
    });
  }

  /**
   * Changes a link's webhook (null removes it) and tags (the whole list); a field left out stays as it is
   * (upstream-facts §3.5). 4 a minute per link upstream.
   */
  async updateLink(linkId: string, body: WireUpdateLinkRequest, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "PATCH",
      endpoint: "PATCH /links/{id}",
      scopes: { linkId },
      path: `/links/${id(linkId)}`,
      body,
      schema: linkSchema,
      ...opts,
    });
    return this.observe(result, (r) => r, opts.learnedFrom);
  }

  /**
   * Asks the upstream to refresh products of a link from the institution (upstream-facts §3.5). It answers 202 with the
   * link as the refresh starts, and 429 for a product refreshed too recently (once an hour for accounts, once a day for
   * the rest) or outside the institution's refresh hours. Each product's refresh holds its own budget key for that
   * interval (lib/budget/rules.ts refreshKeysFor); a declined refresh gives it back.
   */
  async refreshProducts(linkId: string, products: readonly Product[], opts: CallOptions = {}) {
    const asked = [...new Set(products)];
    const result = await this.client.request({
      method: "POST",
      endpoint: "POST /links/{id}/products",
      scopes: { linkId, products: asked },
      path: `/links/${id(linkId)}/products`,
      body: { products: asked },
      schema: linkSchema,
      ...opts,
    });
    return this.observe(result, (r) => r, opts.learnedFrom);
  }

  /**
   * Has the upstream send the link's webhook an example event (upstream-facts §11): 200 with the delivery's token, 400
   * link_error.bad_config when the link has no webhook, 403 for a live (non-sandbox) link.
   */
  sendTestWebhook(linkId: string, body: WireTestWebhookRequest, opts: CallOptions = {}) {
    return this.client.request({
      method: "POST",
      endpoint: "POST /webhooks/test/link/{id}",
      scopes: { linkId },
      path: `/webhooks/test/link/${id(linkId)}`,
      body,
      schema: testWebhookResponseSchema,
      ...opts,
    });
  }

  /**
   * Deletes a link. The upstream answers 2xx with an empty body; the link stays readable as `deleted` until purged
   * (90 days), and link-scoped calls on it answer 410 from then on.
   */
  async deleteLink(linkId: string, opts: CallOptions = {}): Promise<void> {
    await this.client.request({
      method: "DELETE",
      endpoint: "DELETE /links/{id}",
      scopes: { linkId },
      path: `/links/${id(linkId)}`,
      schema: emptyResponseSchema,
      ...opts,
    });
  }

  async getTransactions(
    linkId: string,
    params: { page?: number; size?: number; startDate?: string; endDate?: string; accountIds?: string[] } = {},
    opts: CallOptions = {},
  ) {
    const result = await this.client.request({
      method: "GET",
      endpoint: "GET /links/{id}/transactions",
      scopes: { linkId },
      path: `/links/${id(linkId)}/transactions`,
      // Without start_date the upstream returns only the last 90 days; staff expect the whole history.
      query: {
        page: params.page,
        size: params.size,
        start_date: params.startDate ?? "1900-01-01",
        end_date: params.endDate,
        account_ids: params.accountIds,
      },
      schema: transactionsPageSchema,
      ...opts,
    });
    return this.observe(result, (r) => r.link, opts.learnedFrom);
  }

  /** The link's accounts (names, types, masks, balances), optionally only some of them. */
  async getAccounts(linkId: string, params: { accountIds?: string[] } = {}, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "GET",
      endpoint: "GET /links/{id}/accounts",
      scopes: { linkId },
      path: `/links/${id(linkId)}/accounts`,
      query: { account_ids: params.accountIds },
      schema: accountsResponseSchema,
      ...opts,
    });
    return this.observe(result, (r) => r.link, opts.learnedFrom);
  }

  async getAccount(linkId: string, accountId: string, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "GET",
      endpoint: "GET /links/{id}/accounts/{account_id}",
      scopes: { linkId },
      path: `/links/${id(linkId)}/accounts/${id(accountId)}`,
      schema: accountResponseSchema,
      ...opts,
    });
    return this.observe(result, (r) => r.link, opts.learnedFrom);
  }

  /** A page of institutions; `name` matches the whole name or its start. */
  listInstitutions(
    params: { name?: string; featured?: boolean; cursor?: string; limit?: number } = {},
    opts: CallOptions = {},
  ) {
    return this.client.request({
      method: "GET",
      endpoint: "GET /institutions",
      path: "/institutions",
      query: {
        name: params.name || undefined,
        featured: params.featured === undefined ? undefined : String(params.featured),
        cursor: params.cursor || undefined,
        limit: params.limit,
      },
      schema: institutionsPageSchema,
      ...opts,
    });
  }

  /** One institution by its id (or a `<provider>.<id>` alias, which the upstream resolves). */
  getInstitution(institutionId: string, opts: CallOptions = {}) {
    return this.client.request({
      method: "GET",
      endpoint: "GET /institutions/{institution_id}",
      path: `/institutions/${id(institutionId)}`,
      schema: institutionSchema,
      ...opts,
    });
  }

  async correctEnrichment(
    linkId: string,
    transactionId: string,
    body: WireCorrectEnrichmentRequest,
    opts: CallOptions = {},
  ) {
    const result = await this.client.request({
      method: "POST",
      endpoint: "POST /links/{id}/transactions/{txn_id}/enrichment",
      scopes: { linkId },
      path: `/links/${id(linkId)}/transactions/${id(transactionId)}/enrichment`,
      body,
      schema: correctEnrichmentResponseSchema,
      ...opts,
    });
    return this.observe(result, (r) => r.link, opts.learnedFrom);
  }

  async exchangeToken(exchangeableToken: string, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "POST",
      endpoint: "POST /link-session/exchange-token",
      path: "/link-session/exchange-token",
      body: { exchangeable_token: exchangeableToken },
      schema: exchangeTokenResponseSchema,
      ...opts,
    });
    return this.observe(result, (r) => r.link, opts.learnedFrom);
  }

  async importLink(body: WireImportLinkRequest, opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "POST",
      endpoint: "POST /links/import",
      path: "/links/import",
      body: { ...body, transactions: body.transactions?.map(withDecimalAmount) },
      schema: linkSchema,
      timeoutMs: this.importTimeoutMs,
      ...opts,
    });
    return this.observe(result, (r) => r, opts.learnedFrom);
  }

  async importTransactions(linkId: string, transactions: WireImportTransaction[], opts: CallOptions = {}) {
    const result = await this.client.request({
      method: "POST",
      endpoint: "POST /links/{id}/import/transactions",
      scopes: { linkId },
      path: `/links/${id(linkId)}/import/transactions`,
      body: { transactions: transactions.map(withDecimalAmount) },
      schema: linkSchema,
      timeoutMs: this.importTimeoutMs,
      ...opts,
    });
    return this.observe(result, (r) => r, opts.learnedFrom);
  }

  /**
   * Creates a link session (upstream-facts §7.1): 201 with its `link_session_token`. With `existing_link_id` it relinks
   * that link, and the link's webhook and tags become the session's (see linkSessionRequestSchema). The body is checked
   * against the facts' limits before it leaves: a RangeError names what is wrong, and nothing is sent.
   */
  createLinkSession(body: WireLinkSessionRequest, opts: CallOptions = {}) {
    const checked = linkSessionRequestSchema.safeParse(body);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new RangeError(`Not a link session request: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`);
    }
    return this.client.request({
      method: "POST",
      endpoint: "POST /link-session",
      path: "/link-session",
      scopes: {
        userId: body.customer_user.id,
        linkId: body.existing_link_id,
        relink: body.existing_link_id !== undefined,
      },
      body,
      schema: linkSessionResponseSchema,
      ...opts,
    });
  }

  /**
   * Sandbox only: plays the end user finishing a link session (POST /_sandbox/link-sessions/{token}/complete), so
   * demo mode can offer a real exchangeable token. The real upstream has no such route.
   */
  completeSandboxSession(linkSessionToken: string, opts: CallOptions = {}) {
    return this.client.request({
      method: "POST",
      endpoint: "POST /_sandbox/link-sessions/{token}/complete",
      path: `/_sandbox/link-sessions/${id(linkSessionToken)}/complete`,
      body: {},
      schema: sandboxCompletionSchema,
      ...opts,
    });
  }
}

/**
 * An imported amount as the upstream takes it: a decimal string (upstream-facts §8.1). Files and job items planned
 * before Linkdesk sent strings may hold numbers; they leave the door as strings all the same.
 */
function withDecimalAmount<T extends { amount: string | number }>(transaction: T): T & { amount: string } {
  return {
    ...transaction,
    amount: typeof transaction.amount === "number" ? String(transaction.amount) : transaction.amount,
  };
}

const sandboxCompletionSchema = z.object({ exchangeable_token: z.string().min(1), link_id: z.string().min(1) });

let instance: UpstreamApi | undefined;

/** The dashboard's upstream, configured from the environment; every call is logged with its correlation id. */
export function upstream(): UpstreamApi {
  if (!instance) {
    const env = getEnv();
    const log = logger().child({ component: "upstream" });
    const client = new UpstreamClient({
      baseUrl: env.UPSTREAM_BASE_URL,
      clientId: env.UPSTREAM_CLIENT_ID,
      clientSecret: env.UPSTREAM_CLIENT_SECRET,
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
      gate: budgetGate,
      onCall: (call) =>
        call.status !== undefined && call.status < 400
          ? log.info(call, "upstream call")
          : log.warn(call, "upstream call failed"),
      onRead: (notices, call) => tellReadNotices(log, notices, call),
    });
    instance = new UpstreamApi(client, env.UPSTREAM_IMPORT_TIMEOUT_MS, tellLinkObservers);
  }
  return instance;
}

export { UpstreamClient } from "./client";
export type { ReadNotice } from "./reading";
export { UpstreamError, describeUpstreamError, isUpstreamError } from "./errors";
