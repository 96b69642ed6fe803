// Drift mode: the sandbox sends what the real service may send and today's lists do not hold. The lists move: the link
// error codes grew from 6 to 11 between the 2024 and 2025 SDKs, the product error codes lost one, sophtron left the
// providers, and the category taxonomy was renamed on 2025-01-13 while old transactions keep old values (facts §5.3,
// §15). The entries of `products` are optional (§3.2); amounts are decimal strings (§5.1), which a Decimal prints in
// more than one form; a webhook retry keeps its first body (§11).
//
// Which objects drift, and how, depends only on the object's id, the kinds switched on and the share: a hash of the id
// says whether the object drifts (the share of objects that do), and a second hash picks one of the kinds that apply
// to it. So every read of an object drifts the same way, and the store itself stays clean: drift is applied only where
// an object is written to the wire (wire.ts), and never changes what the sandbox accepts, its rate limits or its stats.
import { z } from "zod";
import { hashSeed } from "./random";
import type { LinkRecord } from "./types";
import { LINK_ERROR_MEANINGS, PRE_2025_PAIRS, PRODUCTS, type LinkErrorCode } from "./wire-vocabulary";

export type DriftTarget = "link" | "transaction" | "account" | "webhook" | "any";

export const DRIFT_CATALOG = {
  null_product: {
    target: "link",
    description:
      "every product the link lacks appears in `products` as null, as a serialiser that writes all keys would",
  },
  unknown_link_error: {
    target: "link",
    description: 'a link in state error carries error_code "consent_revoked", outside today\'s 11 codes',
  },
  unknown_link_state: {
    target: "link",
    description:
      'a link stored as connecting is sent in state "relinking" (error_code null); once its state changes it is sent as stored',
  },
  unknown_product: {
    target: "link",
    description: 'a seventh product "payment_initiation" with a status in `products`, and in `available_products`',
  },
  unknown_product_error: {
    target: "link",
    description: 'the link\'s first product status carries error_code "consent_expired"',
  },
  unknown_provider: { target: "link", description: 'provider "truelayer"' },
  old_category: {
    target: "transaction",
    description:
      "a pre-2025-01-13 pair: banking/overdraft_fees, banking/bank_fees_and_currency_exchange or borrowing_and_loans/deferred_bills",
  },
  future_category: {
    target: "transaction",
    description: "a category and subcategory outside today's lists: subscriptions/software_subscriptions",
  },
  string_amount: {
    target: "any",
    description:
      'transaction amounts and account balances as decimal strings in the forms a Decimal prints: "12.50", "12.5", "1.2E+2", "12.50000000", and "0E-8" for zero',
  },
  extra_fields: {
    target: "any",
    description:
      "unknown extra fields on links and their product statuses, transactions and their enrichment, accounts, page envelopes and webhooks",
  },
  nulls: {
    target: "any",
    description:
      "explicit null for optional fields: link webhook, link_tags, auth_expired_at, last_synced_at; transaction datetime, description, raw_description, original_id; enrichment subcategory, merchant, processor, recurrence; account nickname, account_mask",
  },
  unknown_transaction_type: { target: "transaction", description: 'transaction type "adjustment"' },
  unknown_webhook_event: {
    target: "webhook",
    description:
      'after each event a drifted link\'s webhook hears, an event "link.products_changed" with only the common fields',
  },
  stale_webhook_retry: {
    target: "webhook",
    description:
      "a retry of a drifted link's webhook re-sends the first attempt's MoneyKit-Signature unchanged, so its iat is old",
  },
  malformed_item: {
    target: "transaction",
    description:
      'not a default kind (on only when named): one transaction in each drifted link\'s listings lacks amount and has date "not-a-date"',
  },
} as const satisfies Record<string, { target: DriftTarget; description: string }>;

export type DriftKind = keyof typeof DRIFT_CATALOG;
export const DRIFT_KINDS = Object.keys(DRIFT_CATALOG) as DriftKind[];
/** Every kind but malformed_item, which only a run that names it gets: a real service sends readable items. */
export const DEFAULT_DRIFT_KINDS: readonly DriftKind[] = DRIFT_KINDS.filter((kind) => kind !== "malformed_item");

export function isDriftKind(value: string): value is DriftKind {
  return Object.hasOwn(DRIFT_CATALOG, value);
}

export interface DriftSettings {
  enabled: boolean;
  /** Of the objects that can drift, the share that do (0.125: one in eight). */
  share: number;
  kinds: DriftKind[];
}

/** A change of the settings (POST /_sandbox/drift, createSandbox's `drift`): what it leaves out stays as it was. */
export const driftSettingsSchema = z
  .object({
    enabled: z.boolean().optional(),
    share: z.number().min(0).max(1).optional(),
    kinds: z
      .array(z.enum(DRIFT_KINDS, { error: `a kind is one of ${DRIFT_KINDS.join(", ")}` }))
      .min(1, "name at least one kind (DELETE /_sandbox/drift switches drift off)")
      .optional(),
  })
  .strict();

export const DEFAULT_DRIFT_SHARE = 0.125;
export const DRIFT_OFF: DriftSettings = { enabled: false, share: DEFAULT_DRIFT_SHARE, kinds: [...DEFAULT_DRIFT_KINDS] };

/** Kinds a link may carry whatever its state. */
const LINK_KINDS: readonly DriftKind[] = [
  "null_product",
  "unknown_product",
  "unknown_product_error",
  "unknown_provider",
  "extra_fields",
  "nulls",
  "unknown_webhook_event",
  "stale_webhook_retry",
  "malformed_item",
];
const TRANSACTION_KINDS: readonly DriftKind[] = [
  "old_category",
  "future_category",
  "string_amount",
  "extra_fields",
  "nulls",
  "unknown_transaction_type",
];
const ACCOUNT_KINDS: readonly DriftKind[] = ["string_amount", "extra_fields", "nulls"];

/** The values drift sends, each outside what the spec and the facts list today. */
export const DRIFT_VALUES = {
  linkErrorCode: "consent_revoked",
  linkErrorMeaning: "The end user revoked consent at the institution.",
  linkState: "relinking",
  product: "payment_initiation",
  productErrorCode: "consent_expired",
  productErrorMessage: "The end user's consent to share this data expired.",
  provider: "truelayer",
  futureCategory: { category: "subscriptions", subcategory: "software_subscriptions" },
  transactionType: "adjustment",
  webhookEvent: "link.products_changed",
  malformedDate: "not-a-date",
} as const;

const unit = (...parts: (string | number)[]) => hashSeed(...parts) / 4_294_967_296;

type Json = Record<string, unknown>;

export class Drift {
  private settings: DriftSettings;

  constructor(settings: DriftSettings) {
    this.settings = { ...settings, kinds: [...settings.kinds] };
  }

  /** Whether anything can drift at all: the serialisers skip every other step when not. */
  get on(): boolean {
    return this.settings.enabled && this.settings.share > 0 && this.settings.kinds.length > 0;
  }

  view(): DriftSettings & { available: { kind: DriftKind; target: DriftTarget; description: string }[] } {
    return {
      enabled: this.settings.enabled,
      share: this.settings.share,
      kinds: [...this.settings.kinds],
      available: DRIFT_KINDS.map((kind) => ({ kind, ...DRIFT_CATALOG[kind] })),
    };
  }

  set(change: Partial<DriftSettings>): void {
    this.settings = {
      enabled: change.enabled ?? this.settings.enabled,
      share: change.share ?? this.settings.share,
      // In the catalog's order, once each, whatever order they were named in.
      kinds: change.kinds ? DRIFT_KINDS.filter((kind) => change.kinds?.includes(kind)) : this.settings.kinds,
    };
  }

  has(kind: DriftKind): boolean {
    return this.on && this.settings.kinds.includes(kind);
  }

  /** One of `candidates` (those switched on) for the object `id`, or null when it does not drift. */
  private pick(id: string, candidates: readonly DriftKind[]): DriftKind | null {
    if (!this.on || unit("drift", id) >= this.settings.share) return null;
    const on = candidates.filter((kind) => this.settings.kinds.includes(kind));
    if (on.length === 0) return null;
    return on[hashSeed("drift-kind", id) % on.length] ?? null;
  }

  /**
   * The one kind a link carries, if any. A link in error always carries unknown_link_error, and a link stored as
   * connecting unknown_link_state, when those are on and the link drifts: only those links can carry them, and there
   * are few of them. Kinds that cannot show on the link (null_product on a link that has every product, malformed_item
   * on a link whose transactions cannot be listed) are not picked.
   */
  kindOfLink(link: LinkRecord): DriftKind | null {
    if (!this.on || unit("drift", link.link_id) >= this.settings.share) return null;
    if (link.state === "error" && this.settings.kinds.includes("unknown_link_error")) return "unknown_link_error";
    if (link.state === "connecting" && this.settings.kinds.includes("unknown_link_state")) return "unknown_link_state";
    const granted = Object.keys(link.products).length;
    const listable =
      Boolean(link.products.transactions) &&
      link.state !== "connecting" &&
      link.state !== "awaiting_token_exchange" &&
      link.state !== "deleted";
    const candidates = LINK_KINDS.filter(
      (kind) =>
        (kind !== "null_product" || granted < PRODUCTS.length) &&
        (kind !== "unknown_product_error" || granted > 0) &&
        (kind !== "malformed_item" || listable),
    );
    return this.pick(link.link_id, candidates);
  }

  kindOfTransaction(transactionId: string): DriftKind | null {
    return this.pick(transactionId, TRANSACTION_KINDS);
  }

  kindOfAccount(accountId: string): DriftKind | null {
    return this.pick(accountId, ACCOUNT_KINDS);
  }

  /**
   * A page envelope that belongs to no link (GET /links, GET /users/{id}/links, /accounts, /transactions), keyed by
   * what it is a page of.
   */
  envelopeDrifts(key: string): boolean {
    return this.pick(key, ["extra_fields"]) === "extra_fields";
  }

  /**
   * The transaction of a malformed_item link that every listing serves unreadable: the one whose id hashes lowest, so
   * it stays the same one as long as the link's transactions do.
   */
  malformedTransactionOf(link: LinkRecord, transactions: readonly { transaction_id: string }[]): string | null {
    if (this.kindOfLink(link) !== "malformed_item") return null;
    let chosen: string | null = null;
    let lowest = Infinity;
    for (const { transaction_id: id } of transactions) {
      const rank = hashSeed("drift-malformed", id);
      if (rank < lowest) {
        lowest = rank;
        chosen = id;
      }
    }
    return chosen;
  }
}

/** A link as the wire carries it, with its kind applied (the input is left as it was). */
export function driftLink(wire: Json, link: LinkRecord, kind: DriftKind | null): Json {
  if (kind === null) return wire;
  const products = { ...(wire.products as Record<string, Json | null>) };
  switch (kind) {
    case "null_product":
      for (const product of PRODUCTS) if (!(product in products)) products[product] = null;
      return { ...wire, products };
    case "unknown_link_error":
      return { ...wire, error_code: DRIFT_VALUES.linkErrorCode };
    case "unknown_link_state":
      return { ...wire, state: DRIFT_VALUES.linkState, error_code: null };
    case "unknown_product": {
      const like = Object.values(products).find((status) => status !== null);
      products[DRIFT_VALUES.product] = {
        refreshed_at: like?.refreshed_at ?? null,
        last_attempted_at: like?.last_attempted_at ?? null,
      };
      return {
        ...wire,
        products,
        available_products: [...(wire.available_products as string[]), DRIFT_VALUES.product],
      };
    }
    case "unknown_product_error": {
      const first = PRODUCTS.find((product) => products[product]);
      if (first) {
        products[first] = {
          ...products[first],
          error_code: DRIFT_VALUES.productErrorCode,
          error_message: DRIFT_VALUES.productErrorMessage,
        };
      }
      return { ...wire, products };
    }
    case "unknown_provider":
      return { ...wire, provider: DRIFT_VALUES.provider };
    case "extra_fields":
      for (const [product, status] of Object.entries(products)) {
        if (!status) continue;
        // `settings` and `has_history` are real fields the facts record as deprecated (§3.2), unknown to today's list.
        products[product] = {
          ...status,
          settings: { required: false, require_permission: false, prefetch: false, reason: null },
          ...(product === "transactions" ? { has_history: true } : {}),
        };
      }
      return {
        ...wire,
        products,
        created_at: new Date(link.createdAtMs).toISOString(),
        consent: { expires_at: null, scopes: Object.keys(link.products) },
      };
    case "nulls":
      return { ...wire, webhook: null, link_tags: null, auth_expired_at: null, last_synced_at: null };
    default:
      return wire;
  }
}

/**
 * An amount as a decimal string, in one of the forms a Decimal prints (chosen by `id`), always of the same value:
 * two places ("12.50"), normalised ("12.5", "1.2E+2" for 120), or eight places ("12.50000000"), where Python prints a
 * zero of eight places as "0E-8", and so does drift for every zero.
 */
export function decimalForm(value: number, id: string): string {
  if (value === 0) return "0E-8";
  switch (hashSeed("drift-amount", id) % 3) {
    case 0:
      return twoPlaces(value);
    case 1:
      return normalised(value);
    default:
      return value.toFixed(8);
  }
}

/** At least two decimals, never rounded: "12.00", "12.30", "0.125". */
export function twoPlaces(value: number): string {
  const text = String(value);
  const dot = text.indexOf(".");
  if (dot < 0) return `${text}.00`;
  return text.length - dot - 1 < 2 ? `${text}0` : text;
}

/** As Python's Decimal.normalize() prints: trailing zeros dropped, an integer with trailing zeros in E notation. */
function normalised(value: number): string {
  if (!Number.isInteger(value) || value % 10 !== 0) return String(value);
  const sign = value < 0 ? "-" : "";
  const digits = String(Math.abs(value)).replace(/0+$/, "");
  const exponent = String(Math.abs(value)).length - 1;
  return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ""}E+${exponent}`;
}

/** A transaction as the wire carries it, with its kind applied (the input is left as it was). */
export function driftTransaction(wire: Json, kind: DriftKind | null, malformed: boolean): Json {
  if (malformed) {
    const unreadable: Json = { ...wire, date: DRIFT_VALUES.malformedDate };
    delete unreadable.amount;
    return unreadable;
  }
  if (kind === null) return wire;
  const id = String(wire.transaction_id);
  const enrichment = wire.enrichment as Json & {
    category: { value: string; confidence: number };
    subcategory: { value: string; confidence: number } | null;
  };
  // A person's correction (the only way to confidence 100 here, enrich.ts) replaces whatever taxonomy the transaction
  // was categorised under: a corrected transaction is sent as corrected.
  if ((kind === "old_category" || kind === "future_category") && enrichment.category.confidence === 100) return wire;
  switch (kind) {
    case "old_category": {
      const pair = PRE_2025_PAIRS[hashSeed("drift-category", id) % PRE_2025_PAIRS.length] ?? PRE_2025_PAIRS[0];
      if (!pair) return wire;
      const confidence = enrichment.category.confidence;
      return {
        ...wire,
        enrichment: {
          ...enrichment,
          category: { value: pair.category, confidence },
          subcategory: { value: pair.subcategory, confidence: enrichment.subcategory?.confidence ?? confidence },
        },
      };
    }
    case "future_category": {
      const confidence = enrichment.category.confidence;
      return {
        ...wire,
        enrichment: {
          ...enrichment,
          category: { value: DRIFT_VALUES.futureCategory.category, confidence },
          subcategory: {
            value: DRIFT_VALUES.futureCategory.subcategory,
            confidence: enrichment.subcategory?.confidence ?? confidence,
          },
        },
      };
    }
    case "string_amount":
      return { ...wire, amount: decimalForm(Number(wire.amount), id) };
    case "extra_fields":
      return {
        ...wire,
        // The deprecated dotted legacy category (facts §5.1) and an invented field, beside today's enrichment.
        category: `${enrichment.category.value}.${enrichment.subcategory?.value ?? "other"}`,
        merchant_category_code: String(5000 + (hashSeed("drift-mcc", id) % 1000)),
        enrichment: { ...enrichment, model_version: "2025-05-01", labels: [] },
      };
    case "nulls":
      return {
        ...wire,
        datetime: null,
        description: null,
        raw_description: null,
        original_id: null,
        enrichment: {
          ...enrichment,
          // A corrected transaction is sent as corrected: its subcategory stays.
          subcategory: enrichment.category.confidence === 100 ? enrichment.subcategory : null,
          merchant: null,
          processor: null,
          recurrence: null,
        },
      };
    case "unknown_transaction_type":
      return { ...wire, type: DRIFT_VALUES.transactionType };
    default:
      return wire;
  }
}

/** An account as the wire carries it, with its kind applied (the input is left as it was). */
export function driftAccount(wire: Json, kind: DriftKind | null): Json {
  if (kind === null) return wire;
  const id = String(wire.account_id);
  switch (kind) {
    case "string_amount": {
      const balances = { ...(wire.balances as Json) };
      for (const field of ["available", "current", "limit"] as const) {
        const value = balances[field];
        if (typeof value === "number") balances[field] = decimalForm(value, `${id}:${field}`);
      }
      return { ...wire, balances };
    }
    case "extra_fields":
      // `raw_provider_data` was on accounts from 2024-10 to 2025-04 (facts §15): a field that came and went.
      return { ...wire, raw_provider_data: { provider_account_id: id.slice(4) }, status: "open" };
    case "nulls":
      return { ...wire, nickname: null, account_mask: null };
    default:
      return wire;
  }
}

/** Fields no page envelope carries today. */
export function envelopeExtras(key: string): Json {
  return { request_id: `req_${hashSeed("drift-request", key).toString(16)}`, warnings: [] };
}

/** Fields no webhook carries today. */
export const WEBHOOK_EXTRAS: Json = { environment: "sandbox", sent_by: { service: "webhooks", region: "us-east-1" } };

/** The meaning sent in a webhook's error_message for a link error code, known or drifted. */
export function linkErrorMeaning(code: string): string {
  return code === DRIFT_VALUES.linkErrorCode
    ? DRIFT_VALUES.linkErrorMeaning
    : (LINK_ERROR_MEANINGS[code as LinkErrorCode] ?? "The link is in error.");
}
