// Records as the wire carries them. Every response that carries a link, a transaction or an account writes it here, so
// drift (drift.ts) shows the same way in all of them: GET /links/{id}, GET /users/{id}/links, the `link` inside every
// data, correction, exchange, import and PATCH answer, a customer user's accounts and transactions, and the webhooks.
import {
  driftAccount,
  driftLink,
  driftTransaction,
  envelopeExtras,
  twoPlaces,
  type Drift,
  type DriftKind,
} from "./drift";
import type { AccountRecord, LinkRecord, TransactionRecord } from "./types";

type Json = Record<string, unknown>;

const LINK_WIRE_FIELDS = [
  "link_id",
  "institution_id",
  "institution_name",
  "institution_avatar",
  "state",
  "error_code",
  "last_synced_at",
  "auth_expired_at",
  "provider",
  "link_tags",
  "tags",
  "webhook",
  "products",
  "available_products",
] as const;

/** A link's wire fields as stored: what the sandbox sends with drift off. */
export function toWireLink(link: LinkRecord): Json {
  const out: Json = {};
  for (const field of LINK_WIRE_FIELDS) {
    if (link[field] !== undefined) out[field] = link[field];
  }
  return out;
}

/**
 * The amount as a number (the spec) or, with amountsAsStrings, as a decimal string of at least two places (the public
 * SDKs type it as a string, facts §5.1).
 */
export function toWireTransaction(transaction: TransactionRecord, amountsAsStrings: boolean): Json {
  return amountsAsStrings
    ? { ...transaction, amount: twoPlaces(transaction.amount) }
    : (transaction as unknown as Json);
}

export function toWireAccount(account: AccountRecord): Json {
  return account as unknown as Json;
}

/** The serialisers of one sandbox: its amounts setting and its drift. */
export class Wire {
  constructor(
    private readonly drift: Drift,
    private readonly amountsAsStrings: boolean,
  ) {}

  linkKind(link: LinkRecord): DriftKind | null {
    return this.drift.kindOfLink(link);
  }

  link(link: LinkRecord): Json {
    const wire = toWireLink(link);
    return this.drift.on ? driftLink(wire, link, this.drift.kindOfLink(link)) : wire;
  }

  /**
   * Transactions of `link` for one answer. `all` is every transaction the link has, so a malformed_item link serves
   * the same transaction unreadable on every page and in every listing.
   */
  transactions(
    link: LinkRecord,
    transactions: readonly TransactionRecord[],
    all: readonly TransactionRecord[],
  ): Json[] {
    if (!this.drift.on) return transactions.map((transaction) => toWireTransaction(transaction, this.amountsAsStrings));
    const malformed = this.drift.malformedTransactionOf(link, all);
    return transactions.map((transaction) =>
      driftTransaction(
        toWireTransaction(transaction, this.amountsAsStrings),
        this.drift.kindOfTransaction(transaction.transaction_id),
        transaction.transaction_id === malformed,
      ),
    );
  }

  account(account: AccountRecord): Json {
    const wire = toWireAccount(account);
    return this.drift.on ? driftAccount(wire, this.drift.kindOfAccount(account.account_id)) : wire;
  }

  accounts(accounts: readonly AccountRecord[]): Json[] {
    return accounts.map((account) => this.account(account));
  }

  /** A link-scoped answer: its envelope carries unknown fields when its link's kind is extra_fields. */
  envelope<T extends Json>(body: T, link: LinkRecord): T {
    return this.drift.kindOfLink(link) === "extra_fields" ? { ...body, ...envelopeExtras(link.link_id) } : body;
  }

  /** An answer of no one link (a page of GET /links, one user's links), keyed by what it is a page of. */
  pageEnvelope<T extends Json>(body: T, key: string): T {
    return this.drift.envelopeDrifts(key) ? { ...body, ...envelopeExtras(key) } : body;
  }
}
