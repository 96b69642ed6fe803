import "server-only";
import { randomUUID } from "node:crypto";
import { getBudget } from "../budget";
import { type Budget, isBudgetExceeded } from "../budget/budget";
import { headroomOf } from "../budget/headroom";
import { REFRESH_ENDPOINT, refreshProductOf } from "../budget/rules";
import { brandError, hasErrorBrand } from "../error-brand";
import { getDb } from "../db/client";
import { PRODUCT_LABELS, parseTagLines, type TestWebhookEvent, type UpdateLinkInput } from "../schemas/link-operations";
import type { CallOptions, UpstreamApi } from "../upstream";
import type { UpstreamError } from "../upstream/errors";
import { PRODUCT_REFRESH_INTERVAL_MS } from "../upstream/rate-limits";
import { PRODUCTS, type Product, type WireLink } from "../upstream/schemas";
import { linkErrorInfo, linkStateLabel } from "./error-codes";
import { storedLink } from "./stored-link";

// The link page's three operations on one link: a test webhook, a product refresh, its tags and webhook. Each verb
// calls the door once or twice and says in words why it refused; the door's observer writes the Link it answers into
// the read model. The refresh rule (one hour for accounts, one day for every other product, and some institutions
// only at certain hours) is the upstream's; Linkdesk's budget holds one refresh per product per interval.

/** A refusal before anything was changed upstream, in words meant for the person. */
export class LinkOperationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LinkOperationRefused";
    brandError(this, "LinkOperationRefused");
  }
}

export function isLinkOperationRefused(error: unknown): error is LinkOperationRefused {
  return hasErrorBrand(error, "LinkOperationRefused");
}

/** What a verb learns for the audit row: what it asked, what was there before and after. */
export type OperationReport = (facts: { input?: unknown; before?: unknown; after?: unknown }) => void;

export interface OperationOptions extends Pick<CallOptions, "correlationId"> {
  report?: OperationReport;
}

/** "2026-11-25 14:05 UTC": minutes are what the refresh rule is counted in. */
export function atText(at: Date | string): string {
  const date = at instanceof Date ? at : new Date(at);
  return Number.isNaN(date.getTime()) ? String(at) : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A wait in words: "about 40 s", "about 25 min", "about 23 h". */
export function waitText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 90) return `about ${seconds} s`;
  if (seconds < 90 * 60) return `about ${Math.round(seconds / 60)} min`;
  return `about ${Math.round(seconds / 3600)} h`;
}

// --- when each product may be refreshed ---

/** What holds a product back: its own interval since the last refresh, Linkdesk's budget, or the upstream's Retry-After. */
export type RefreshWait = "interval" | "linkdesk" | "upstream";

export interface ProductRefreshSlot {
  product: Product;
  label: string;
  refreshedAt: string | null;
  lastAttemptedAt: string | null;
  /** When it may be refreshed again; null when it may be now (unless blocked). */
  nextAt: string | null;
  waitFor: RefreshWait | null;
  /** When Linkdesk last asked for a refresh of it, if that is what holds it. */
  askedAt: string | null;
  /** Why it cannot be refreshed at all now, in words (the link's state, or the product's unavailable reason). */
  blocked: string | null;
}

/** Why none of a link's products can be refreshed, or null: the upstream answers 422 for these states. */
export function refreshBlockedBy(link: Pick<WireLink, "state" | "error_code">): string | null {
  switch (link.state) {
    case "connected":
      return null;
    case "connecting":
    case "awaiting_token_exchange":
      return `The link is not connected yet (${linkStateLabel(link.state)}): it has nothing to refresh.`;
    case "deleted":
      return "The link is deleted: its products are no longer refreshed.";
    case "error": {
      const info = link.error_code ? linkErrorInfo(link.error_code) : undefined;
      if (info)
        return `The link is in error (${info.label}): ${info.remedy} Its products can be refreshed once it is connected again.`;
      return link.error_code
        ? `The link is in error, with a code this version of Linkdesk does not know (${link.error_code}): it must be connected again before its products can be refreshed.`
        : "The link is in error: it must be connected again before its products can be refreshed.";
    }
    default:
      // A state the upstream added since: only "connected" is known to refresh, so none is offered.
      return `The link's state is ${linkStateLabel(link.state)}: only a connected link's products can be refreshed.`;
  }
}

const later = (a: number, b: string | null | undefined) => {
  const t = b ? Date.parse(b) : Number.NaN;
  return Number.isNaN(t) ? a : Math.max(a, t);
};

/**
 * When each granted product of `link` may be refreshed: its last refresh (or attempt: one under way or failed counts
 * too) plus its interval, and what Linkdesk's budget holds (its own refresh, or a Retry-After the upstream gave).
 */
export async function refreshSchedule(
  link: WireLink,
  options: { budget?: Budget; now?: number } = {},
): Promise<ProductRefreshSlot[]> {
  const now = options.now ?? Date.now();
  const budget = options.budget ?? (await getBudget());
  const granted = PRODUCTS.filter((product) => link.products[product]);
  const keys = budget.keys(REFRESH_ENDPOINT, { linkId: link.link_id, products: granted });
  // One read of the counts per interval: a key counts over its own window.
  const windows = [...new Set(keys.map((key) => key.windowMs))];
  const usages = new Map(
    await Promise.all(windows.map(async (windowMs) => [windowMs, await budget.store.usage(windowMs)] as const)),
  );
  const linkBlocked = refreshBlockedBy(link);
  return granted.map((product) => {
    const status = link.products[product]!;
    const last = later(later(Number.NEGATIVE_INFINITY, status.refreshed_at), status.last_attempted_at);
    const waits: { until: number; waitFor: RefreshWait; askedAt: string | null }[] = [];
    if (Number.isFinite(last) && last + PRODUCT_REFRESH_INTERVAL_MS[product] > now) {
      waits.push({ until: last + PRODUCT_REFRESH_INTERVAL_MS[product], waitFor: "interval", askedAt: null });
    }
    const key = keys.find((k) => refreshProductOf(k) === product);
    const usage = key ? usages.get(key.windowMs) : undefined;
    if (key && usage) {
      const room = headroomOf(key, usage, now);
      if (room.closedUntil) waits.push({ until: room.closedUntil.getTime(), waitFor: "upstream", askedAt: null });
      else if (room.nextSlotAt && room.nextSlotAt.getTime() > now) {
        const asked =
          usage.used.find((u) => u.key.endpoint === key.endpoint && u.key.scopeId === key.scopeId)?.oldestAt ?? null;
        waits.push({ until: room.nextSlotAt.getTime(), waitFor: "linkdesk", askedAt: asked?.toISOString() ?? null });
      }
    }
    const wait = waits.sort((a, b) => b.until - a.until)[0];
    return {
      product,
      label: PRODUCT_LABELS[product],
      refreshedAt: status.refreshed_at ?? null,
      lastAttemptedAt: status.last_attempted_at ?? null,
      nextAt: wait ? new Date(wait.until).toISOString() : null,
      waitFor: wait?.waitFor ?? null,
      askedAt: wait?.askedAt ?? null,
      blocked: linkBlocked ?? (status.unavailable ? `Unavailable: ${status.unavailable}` : null),
    };
  });
}

/** One sentence on when a product may be refreshed, e.g. "Transactions: may be refreshed again at 14:05 (refreshed 13:05)". */
export function describeSlot(slot: ProductRefreshSlot): string {
  const since = slot.askedAt
    ? `Linkdesk asked for a refresh at ${atText(slot.askedAt)}`
    : slot.lastAttemptedAt && (!slot.refreshedAt || Date.parse(slot.lastAttemptedAt) > Date.parse(slot.refreshedAt))
      ? `last attempt ${atText(slot.lastAttemptedAt)}${slot.refreshedAt ? `, refreshed ${atText(slot.refreshedAt)}` : ""}`
      : slot.refreshedAt
        ? `refreshed ${atText(slot.refreshedAt)}`
        : "never refreshed";
  if (slot.blocked) return `${slot.label}: cannot be refreshed now. ${slot.blocked}`;
  if (!slot.nextAt) return `${slot.label}: may be refreshed now (${since}).`;
  if (slot.waitFor === "upstream")
    return `${slot.label}: the upstream asked Linkdesk to wait; may be tried again at ${atText(slot.nextAt)} (${since}).`;
  return `${slot.label}: may be refreshed again at ${atText(slot.nextAt)} (${since}).`;
}

/** A product's slot with its sentence, as the link page offers it. */
export interface RefreshOffer extends ProductRefreshSlot {
  sentence: string;
}

export async function refreshOffers(
  link: WireLink,
  options: { budget?: Budget; now?: number } = {},
): Promise<RefreshOffer[]> {
  return (await refreshSchedule(link, options)).map((slot) => ({ ...slot, sentence: describeSlot(slot) }));
}

// --- the three verbs ---

/** Has the upstream send the link's webhook a test event under a fresh idempotency key; answers the delivery's token. */
export async function sendLinkTestWebhook(
  api: UpstreamApi,
  linkId: string,
  event: TestWebhookEvent,
  options: OperationOptions = {},
) {
  const idempotencyKey = `linkdesk-test-${randomUUID()}`;
  options.report?.({ input: { event, idempotencyKey } });
  const answer = await api.sendTestWebhook(
    linkId,
    { webhook_event: event, webhook_idempotency_key: idempotencyKey },
    { correlationId: options.correlationId, mode: "interactive" },
  );
  options.report?.({ after: { deliveryToken: answer.delivery_token } });
  return { event, idempotencyKey, deliveryToken: answer.delivery_token };
}

const productList = (products: readonly Product[]) => products.map((product) => PRODUCT_LABELS[product]).join(", ");

/**
 * Refreshes products of a link. Refused without a call when the read model already shows one of them refreshed within
 * its interval, or Linkdesk's budget holds it: the upstream would answer 429.
 */
export async function refreshLinkProducts(
  api: UpstreamApi,
  linkId: string,
  products: readonly Product[],
  options: OperationOptions = {},
) {
  const budget = await getBudget();
  const stored = await storedLink((await getDb()).db, linkId).catch(() => null);
  if (stored?.link) {
    const slots = await refreshSchedule(stored.link, { budget });
    const missing = products.filter((product) => !slots.some((slot) => slot.product === product));
    if (missing.length > 0)
      throw new LinkOperationRefused(`The link has no ${productList(missing)} product to refresh.`);
    const asked = slots.filter((slot) => products.includes(slot.product));
    options.report?.({
      before: Object.fromEntries(
        asked.map((slot) => [slot.product, { refreshedAt: slot.refreshedAt, lastAttemptedAt: slot.lastAttemptedAt }]),
      ),
    });
    const held = asked.filter((slot) => slot.blocked || slot.nextAt);
    if (held.length > 0) throw new LinkOperationRefused(`Not sent. ${held.map(describeSlot).join(" ")}`);
  }
  let link: WireLink;
  try {
    link = await api.refreshProducts(linkId, products, { correlationId: options.correlationId, mode: "interactive" });
  } catch (error) {
    const product = isBudgetExceeded(error) ? refreshProductOf(error.blockedBy) : null;
    if (isBudgetExceeded(error) && product) {
      throw new LinkOperationRefused(
        `Not sent: ${PRODUCT_LABELS[product]} was refreshed through Linkdesk a moment ago; it may be refreshed again at ${atText(error.nextSlotAt)}.`,
      );
    }
    throw error;
  }
  options.report?.({
    after: Object.fromEntries(
      products.map((product) => [
        product,
        {
          refreshedAt: link.products[product]?.refreshed_at ?? null,
          lastAttemptedAt: link.products[product]?.last_attempted_at ?? null,
        },
      ]),
    ),
  });
  return { products: [...products], state: link.state, slots: await refreshOffers(link, { budget }) };
}

export interface LinkSettings {
  webhook: string | null;
  tags: string[];
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * Sets a link's webhook and tags. The link is read first (the audit's "before" comes from the upstream, never the
 * browser); if it no longer has what the person saw, nothing is sent: their change would silently undo someone
 * else's. Only what changed is sent.
 */
export async function updateLinkSettings(api: UpstreamApi, input: UpdateLinkInput, options: OperationOptions = {}) {
  const call = { correlationId: options.correlationId, mode: "interactive" as const };
  const current = await api.getLink(input.linkId, call);
  if (current.state === "deleted")
    throw new LinkOperationRefused("The link is deleted: its tags and webhook can no longer be changed.");
  const before: LinkSettings = { webhook: current.webhook ?? null, tags: current.link_tags ?? [] };
  options.report?.({ before });
  if (before.webhook !== input.seen.webhook || !sameList(before.tags, input.seen.tags)) {
    throw new LinkOperationRefused(
      `The link's tags or webhook changed since the page showed them (webhook now ${before.webhook ? `“${before.webhook}”` : "none"}, tags now ${before.tags.length ? before.tags.map((t) => `“${t}”`).join(", ") : "none"}). Nothing was sent: reload the page and make your change again.`,
    );
  }
  const wanted: LinkSettings = {
    webhook: input.webhook === "" ? null : input.webhook,
    tags: parseTagLines(input.tags),
  };
  const body: { webhook?: string | null; link_tags?: string[] } = {};
  if (wanted.webhook !== before.webhook) body.webhook = wanted.webhook;
  if (!sameList(wanted.tags, before.tags)) body.link_tags = wanted.tags;
  const changed = (["webhook", "tags"] as const).filter((field) =>
    field === "webhook" ? "webhook" in body : "link_tags" in body,
  );
  if (changed.length === 0)
    throw new LinkOperationRefused("Nothing to save: the tags and webhook are already as given.");
  options.report?.({ input: { changed, ...body } });
  const updated = await api.updateLink(input.linkId, body, call);
  const after: LinkSettings = { webhook: updated.webhook ?? null, tags: updated.link_tags ?? [] };
  options.report?.({ after });
  return { before, after, changed };
}

// --- the upstream's refusals, in words ---

export type LinkOperation = "test_webhook" | "refresh_products" | "update";

/**
 * The upstream's answer to one of these operations in words, where Linkdesk knows better words than the generic ones
 * (describeUpstreamError); null otherwise. Upstream text is quoted as text.
 */
export function describeOperationError(
  operation: LinkOperation,
  error: UpstreamError,
  products: readonly Product[] = [],
  now = Date.now(),
): string | null {
  if (error.kind !== "http") return null;
  const retry = error.retryAfter
    ? ` It allows another try at ${atText(error.retryAfter)} (in ${waitText(error.retryAfter.getTime() - now)}).`
    : " Try again later.";
  if (error.status === 429) {
    if (operation === "refresh_products") {
      return `The upstream will not refresh ${productList(products) || "these products"} yet: it refreshes accounts at most once an hour and every other product once a day, and some institutions only at certain hours of the day.${retry}`;
    }
    const what =
      operation === "test_webhook"
        ? "test webhooks (5 a minute per link, 20 per app)"
        : "changes to a link (4 a minute per link)";
    return `The upstream's rate limit for ${what} was reached.${retry}`;
  }
  if (error.status === 400 && error.errorCode === "link_error.bad_config") {
    return "The link has no webhook, so the upstream has nowhere to send a test. Set the link's webhook address first (under Tags and webhook).";
  }
  if (error.status === 403 && operation === "test_webhook") {
    return "The upstream sends test webhooks only for its sandbox's links; this link is a live one.";
  }
  if (error.status === 403 && operation === "refresh_products") {
    return `The end user did not permit ${productList(products) || "this data"} for this link, so the upstream will not refresh it.`;
  }
  if (error.status === 422 && error.errorCode === "link_error.bad_state") {
    const reason = error.linkErrorCode ?? "";
    const info = linkErrorInfo(reason);
    if (info) return `The upstream refused: the link is in error (${info.label}). ${info.remedy}`;
    if (reason === "link_not_ready") return "The upstream refused: the link is not connected yet.";
    return `The upstream refused: the link's state does not allow this${error.errorMessage ? ` (it said: “${error.errorMessage}”)` : ""}.`;
  }
  if (error.status === 422 && operation === "update") {
    return `The upstream refused the webhook or a tag${error.errorMessage ? `: “${error.errorMessage}”` : ""}.`;
  }
  return null;
}
