// Enrichment outside the seed: categorising imported transactions, applying a manual correction, and remembering
// corrections app-wide so later imports of the same merchant (or description) come out the way a person fixed them.
import {
  categoryOf,
  isCategory,
  isSubcategory,
  subcategoriesOf,
  type Category,
  type Subcategory,
} from "./wire-vocabulary";
import { CATALOG, cleanDescriptionOf, titleCase, type CatalogEntry } from "./catalog";
import { addPeriod } from "./seed-data";
import { hashSeed, uuidFrom, type Rng } from "./random";
import type { AccountRecord, EnrichmentRecord, LinkData, TransactionRecord } from "./types";

/** Lower-case letters only, processor prefixes dropped: "SQ *JOE'S GARAGE #22" and "Joe's Garage 7" both give "joes garage". */
export function normalizeDescription(text: string): string {
  return text
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z]+/g, " ")
    .trim()
    .replace(/^(sq|tst|pp|paypal|dd)\s+/, "")
    .replace(/\s+/g, " ");
}

const MATCHERS: { token: string; entry: CatalogEntry }[] = CATALOG.flatMap((entry) =>
  entry.match.map((token) => ({ token: token.toUpperCase(), entry })),
)
  // Longest token first, so "AMZN MKTP US REFUND" wins over "AMZN".
  .sort((a, b) => b.token.length - a.token.length);

export function matchCatalog(description: string): CatalogEntry | undefined {
  const upper = description.toUpperCase().replace(/\s+/g, " ");
  return MATCHERS.find((matcher) => upper.includes(matcher.token))?.entry;
}

export interface Correction {
  category: Category;
  subcategory: Subcategory | null;
}

function correctionKey(merchantId: string | null | undefined, rawDescription: string): string {
  return merchantId ? `merchant:${merchantId}` : `description:${normalizeDescription(rawDescription)}`;
}

export class CorrectionMemory {
  private readonly corrections = new Map<string, Correction>();

  remember(transaction: TransactionRecord, correction: Correction): void {
    this.corrections.set(correctionKey(transaction.enrichment.merchant?.id, transaction.raw_description), correction);
  }

  lookup(merchantId: string | null, rawDescription: string): Correction | undefined {
    return this.corrections.get(correctionKey(merchantId, rawDescription));
  }

  get size(): number {
    return this.corrections.size;
  }

  clear(): void {
    this.corrections.clear();
  }
}

/**
 * Without a subcategory in the body, keep the current one if it belongs to the new category, else fall back to the
 * category's `other_<category>`: the pair stays consistent, so no screen ever shows a subcategory of another category.
 */
export function resolveCorrection(
  transaction: TransactionRecord,
  category: Category,
  subcategory?: Subcategory,
): Correction {
  if (subcategory) return { category, subcategory };
  const current = transaction.enrichment.subcategory?.value;
  if (current && categoryOf(current) === category) return { category, subcategory: current };
  const fallback = subcategoriesOf(category).find((candidate) => candidate === `other_${category}`);
  return { category, subcategory: fallback ?? null };
}

/** A person's correction is certain: both confidences become 100. */
export function applyCorrection(transaction: TransactionRecord, correction: Correction): void {
  transaction.enrichment = {
    ...transaction.enrichment,
    category: { value: correction.category, confidence: 100 },
    subcategory: correction.subcategory ? { value: correction.subcategory, confidence: 100 } : null,
  };
}

/** Older transactions of the same link from the same merchant (or, without a merchant, the same description). */
export function similarPastTransactions(data: LinkData, transaction: TransactionRecord, max = 50): TransactionRecord[] {
  const start = data.transactions.indexOf(transaction);
  const merchantId = transaction.enrichment.merchant?.id;
  const description = normalizeDescription(transaction.raw_description);
  const similar: TransactionRecord[] = [];
  for (let i = start + 1; i < data.transactions.length && similar.length < max; i++) {
    const candidate = data.transactions[i];
    if (!candidate) continue;
    const same = merchantId
      ? candidate.enrichment.merchant?.id === merchantId
      : !candidate.enrichment.merchant && normalizeDescription(candidate.raw_description) === description;
    if (same) similar.push(candidate);
  }
  return similar;
}

const ACCOUNT_TYPE_RULES: [RegExp, string][] = [
  [/^(depository|investment|liability|other)\.[a-z_]+$/, ""],
  [/check/i, "depository.checking"],
  [/sav/i, "depository.savings"],
  [/credit|card/i, "liability.credit_card"],
  [/mortgage/i, "liability.mortgage"],
  [/loan/i, "liability.loan"],
  [/invest|brokerage|ira|401/i, "investment.brokerage"],
];

/** Import types are free-form; the upstream converts them to its dotted account types ("unknown" when unsure). */
export function accountTypeOf(importedType: string): string {
  for (const [pattern, type] of ACCOUNT_TYPE_RULES) {
    if (pattern.test(importedType)) return type || importedType;
  }
  return "unknown";
}

export interface ImportedAccountInput {
  account_id: string;
  name: string;
  nickname?: string | null;
  type: string;
  mask?: string | null;
  balances: {
    currency?: string | null;
    available?: number | null;
    current?: number | null;
    limit?: number | null;
    balance_date?: string | null;
  };
}

export function importAccount(input: ImportedAccountInput, rng: Rng): AccountRecord {
  const id = uuidFrom(rng).replace(/-/g, "");
  return {
    account_id: `acc_${id.slice(0, 22)}`,
    account_type: accountTypeOf(input.type),
    name: input.name,
    nickname: input.nickname ?? null,
    account_mask: input.mask ?? null,
    balances: {
      currency: input.balances.currency ?? "USD",
      available: input.balances.available ?? null,
      current: input.balances.current ?? null,
      limit: input.balances.limit ?? null,
      balance_date: input.balances.balance_date ?? null,
    },
    original_id: input.account_id,
    closed: false,
  };
}

export interface ImportedTransactionInput {
  transaction_id?: string | null;
  amount: string | number;
  date: string;
  description?: string | null;
  type?: string | null;
}

function guessedEnrichment(direction: "credit" | "debit", typeHint: string | null | undefined): EnrichmentRecord {
  const hint = typeHint?.trim().toLowerCase() ?? "";
  let category: Category = direction === "credit" ? "income" : "general";
  let subcategory: Subcategory | null = direction === "credit" ? "other_income" : "other_general";
  let confidence = 40;
  if (isSubcategory(hint)) {
    subcategory = hint;
    category = categoryOf(hint) ?? category;
    confidence = 70;
  } else if (isCategory(hint)) {
    category = hint;
    subcategory = subcategoriesOf(hint).find((s) => s === `other_${hint}`) ?? null;
    confidence = 65;
  }
  return {
    category: { value: category, confidence },
    subcategory: subcategory ? { value: subcategory, confidence: confidence - 5 } : null,
    merchant: null,
    processor: null,
    recurrence: null,
  };
}

/**
 * Imported amounts are signed strings (positive = money in); responses carry an unsigned amount plus credit/debit.
 * A zero amount is filed as a debit.
 */
export function importTransaction(
  input: ImportedTransactionInput,
  account: AccountRecord,
  memory: CorrectionMemory,
  rng: Rng,
): TransactionRecord {
  const signed = Number(input.amount);
  const direction = signed > 0 ? "credit" : "debit";
  const raw = input.description?.trim() || "Imported transaction";
  const hasTime = input.date.includes("T");
  const date = input.date.slice(0, 10);
  const entry = matchCatalog(raw);
  let enrichment: EnrichmentRecord;
  if (entry) {
    const confidence = 80 + (hashSeed("import-confidence", raw) % 16);
    enrichment = {
      category: { value: entry.category, confidence },
      subcategory: { value: entry.subcategory, confidence: confidence - 3 },
      merchant: entry.brand,
      processor: entry.processor,
      recurrence: entry.frequency
        ? { frequency: entry.frequency, next_predicted_date: addPeriod(date, entry.frequency) }
        : null,
    };
  } else {
    enrichment = guessedEnrichment(direction, input.type);
  }
  const transaction: TransactionRecord = {
    transaction_id: uuidFrom(rng),
    account_id: account.account_id,
    amount: Math.round(Math.abs(signed) * 100) / 100,
    type: direction,
    currency: account.balances.currency,
    date,
    datetime: hasTime ? new Date(input.date).toISOString() : null,
    description: entry
      ? cleanDescriptionOf(entry, raw)
      : titleCase(raw.replace(/[#*]+/g, " ").replace(/\s+/g, " ").trim()),
    raw_description: raw,
    pending: false,
    enrichment,
    original_id: input.transaction_id ?? null,
  };
  const remembered = memory.lookup(enrichment.merchant?.id ?? null, raw);
  if (remembered) applyCorrection(transaction, remembered);
  return transaction;
}
