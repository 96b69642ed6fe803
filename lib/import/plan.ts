import { type CostEstimate, type KeyHeadroom, estimateCost } from "../budget/headroom";
import { IMPORT_MAX_BYTES, IMPORT_MAX_TRANSACTIONS, type WireImportTransaction } from "../upstream/schemas";
import { IDENTITY_TAG_PLACEHOLDER } from "./identity";
import type { ImportLinkBody, LinkProblem } from "./validate";

// How one link of a file becomes upstream calls: POST /links/import with its accounts and a first batch of
// transactions, then POST /links/{id}/import/transactions for the rest, every call under both of the upstream's
// limits (IMPORT_MAX_BYTES of JSON body and IMPORT_MAX_TRANSACTIONS). Transactions go in date order, so each batch
// covers a short date range (its check reads only that range). Sizes are exact: they are measured on the JSON the
// client sends.

export interface ImportLimits {
  maxBytes: number;
  maxTransactions: number;
}

export const UPSTREAM_IMPORT_LIMITS: ImportLimits = {
  maxBytes: IMPORT_MAX_BYTES,
  maxTransactions: IMPORT_MAX_TRANSACTIONS,
};

/** The tag that marks a link imported by a job at a position of its file: how a lost answer is found again. */
export function importTag(jobId: string, position: number): string {
  return `linkdesk-import:${jobId}:${position}`;
}

/** Job ids are UUIDs: the tag's size is known before the job exists. */
const JOB_ID_PLACEHOLDER = "00000000-0000-0000-0000-000000000000";

export interface PlannedBatch {
  transactions: WireImportTransaction[];
  /** Earliest and latest date (YYYY-MM-DD) in the batch. */
  firstDate: string;
  lastDate: string;
  bytes: number;
}

export interface PlannedLink {
  /** The POST /links/import body (its first batch included), without the job's tag, which is added when sent. */
  body: ImportLinkBody;
  /** Size of the import call's body with the tag. */
  bytes: number;
  firstBatch: PlannedBatch | null;
  /** The POST /links/{id}/import/transactions calls after it. */
  batches: PlannedBatch[];
  transactionCount: number;
  /** Each transaction's id as sent, by its index in the link (the file's own, or the one Linkdesk gave it). */
  transactionIds: string[];
  firstDate: string | null;
  lastDate: string | null;
}

export type LinkPlanResult = { ok: true; plan: PlannedLink } | { ok: false; problem: LinkProblem };

const NON_ASCII = /[^\x00-\x7f]/;

/** Bytes of a string once encoded as UTF-8. */
export function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      // A surrogate pair: two UTF-16 units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

const dayOf = (date: string) => date.slice(0, 10);

/** Printable ASCII without " and \: a string of these serializes as itself between quotes. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * UTF-8 bytes of JSON.stringify(value), without building the string (a 20 MB file would otherwise allocate its size
 * again in small strings): the same rules, including the fields JSON.stringify leaves out.
 */
export function jsonByteLength(value: unknown): number {
  switch (typeof value) {
    case "string":
      return PLAIN_JSON_STRING.test(value) ? value.length + 2 : utf8Length(JSON.stringify(value));
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object": {
      if (value === null) return 4;
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") return utf8Length(JSON.stringify(value));
      if (Array.isArray(value)) {
        let bytes = 2 + Math.max(0, value.length - 1);
        for (const item of value)
          bytes +=
            item === undefined || typeof item === "function" || typeof item === "symbol" ? 4 : jsonByteLength(item);
        return bytes;
      }
      let bytes = 2;
      let members = 0;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        bytes += (members++ > 0 ? 1 : 0) + jsonByteLength(key) + 1 + jsonByteLength(item);
      }
      return bytes;
    }
    default:
      return 0;
  }
}

/** The body the import call sends, with Linkdesk's tags (the job's, the identity's; the file's own tags kept). */
export function withImportTags(body: ImportLinkBody, tags: readonly string[]): ImportLinkBody {
  return { ...body, link_tags: [...(body.link_tags ?? []), ...tags] };
}

/**
 * Splits one valid link (at `position` in its file) into calls under both limits. Transactions without a
 * transaction_id get `linkdesk-<n>` (n: their index in the link) so that a batch sent again replaces rather than
 * doubles them.
 */
export function planImportBatches(
  body: ImportLinkBody,
  position = 0,
  limits: ImportLimits = UPSTREAM_IMPORT_LIMITS,
): LinkPlanResult {
  const taken = new Set<string>();
  for (const t of body.transactions) if (t.transaction_id) taken.add(t.transaction_id);
  const transactions = body.transactions.map((t, index) => {
    if (t.transaction_id) return t;
    let id = `linkdesk-${index}`;
    while (taken.has(id)) id += "~";
    taken.add(id);
    return { ...t, transaction_id: id };
  });
  // Date order, stable: equal dates keep the file's order.
  const ordered = transactions.map((t, index) => ({ t, index, day: dayOf(t.date) }));
  if (ordered.some((entry, i) => i > 0 && entry.day < ordered[i - 1]!.day)) {
    ordered.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.index - b.index));
  }

  const baseBytes = jsonByteLength(
    withImportTags({ ...body, transactions: [] }, [importTag(JOB_ID_PLACEHOLDER, position), IDENTITY_TAG_PLACEHOLDER]),
  );
  if (baseBytes > limits.maxBytes) {
    return {
      ok: false,
      problem: {
        path: "accounts",
        message: `the link without its transactions is ${baseBytes.toLocaleString("en-US")} bytes: over the upstream's ${limits.maxBytes.toLocaleString("en-US")} bytes per call, and accounts cannot be split`,
      },
    };
  }
  // Each call: the bytes around its transactions (the link's fields, or {"transactions":[]}) and the batch itself.
  const calls: { around: number; batch: PlannedBatch }[] = [];
  let current = { around: baseBytes, batch: emptyBatch() };
  for (const { t, index, day } of ordered) {
    const size = jsonByteLength(t);
    if (BATCH_ENVELOPE_BYTES + size > limits.maxBytes) {
      return {
        ok: false,
        problem: {
          path: `transactions[${index}]`,
          message: `this one transaction is ${size.toLocaleString("en-US")} bytes: over the upstream's ${limits.maxBytes.toLocaleString("en-US")} bytes per call`,
        },
      };
    }
    const { batch } = current;
    const comma = batch.transactions.length > 0 ? 1 : 0;
    if (
      batch.transactions.length >= limits.maxTransactions ||
      current.around + batch.bytes + comma + size > limits.maxBytes
    ) {
      calls.push(current);
      current = { around: BATCH_ENVELOPE_BYTES, batch: emptyBatch() };
    }
    const target = current.batch;
    if (target.transactions.length === 0) target.firstDate = day;
    target.bytes += (target.transactions.length > 0 ? 1 : 0) + size;
    target.transactions.push(t);
    target.lastDate = day;
  }
  calls.push(current);
  // The first call is the import (its batch may be empty: no transactions, or the first did not fit beside the accounts).
  const [importCall, ...rest] = calls;
  const firstBatch =
    importCall!.batch.transactions.length > 0
      ? { ...importCall!.batch, bytes: importCall!.around + importCall!.batch.bytes }
      : null;
  return {
    ok: true,
    plan: {
      body: { ...body, transactions: importCall!.batch.transactions },
      bytes: importCall!.around + importCall!.batch.bytes,
      firstBatch,
      batches: rest.map((call) => ({ ...call.batch, bytes: call.around + call.batch.bytes })),
      transactionCount: transactions.length,
      transactionIds: transactions.map((t) => t.transaction_id!),
      firstDate: ordered[0]?.day ?? null,
      lastDate: ordered[ordered.length - 1]?.day ?? null,
    },
  };
}

/** {"transactions":[]} around a batch's transactions. */
const BATCH_ENVELOPE_BYTES = 19;

const emptyBatch = (): PlannedBatch => ({ transactions: [], firstDate: "", lastDate: "", bytes: 0 });

export interface CallCounts {
  imports: number;
  batches: number;
}

export interface ImportDuration {
  seconds: number;
  /** The tighter of the two endpoints' estimates. */
  binding: CostEstimate & { endpoint: string };
}

/** Upstream answers may take about 10 s: the last call's answer comes that much after it is sent. */
export const UPSTREAM_IMPORT_LATENCY_S = 10;

/**
 * How long the calls take within Linkdesk's share of the per-app limits (POST /links/import and POST
 * /links/{id}/import/transactions are counted apart, so they run side by side).
 */
export function estimateImportDuration(
  calls: CallCounts,
  headroom: { imports: KeyHeadroom[]; batches: KeyHeadroom[] },
): ImportDuration | null {
  const imports = estimateCost(calls.imports, headroom.imports);
  const batches = calls.batches > 0 ? estimateCost(calls.batches, headroom.batches) : null;
  const candidates = [
    imports ? { ...imports, endpoint: "POST /links/import" } : null,
    batches ? { ...batches, endpoint: "POST /links/{id}/import/transactions" } : null,
  ].filter((c) => c !== null);
  if (candidates.length === 0) return null;
  const binding = candidates.reduce((a, b) => (b.seconds > a.seconds ? b : a));
  return { seconds: binding.seconds + UPSTREAM_IMPORT_LATENCY_S, binding };
}
