// Accounts and enriched transactions of one link, generated on first access from the link's data seed. Dates count
// back from an anchor day, so the same seed gives the same data on any day the sandbox runs.
import { categoryOf } from "./wire-vocabulary";
import { CATALOG, MISCATEGORIES, cleanDescriptionOf, type CatalogEntry, type Frequency } from "./catalog";
import {
  amountBetween,
  base58Id,
  chance,
  digits,
  intBetween,
  mulberry32,
  pick,
  pickWeighted,
  uuidFrom,
  type Rng,
} from "./random";
import {
  compareTransactionsNewestFirst,
  type AccountRecord,
  type EnrichmentRecord,
  type LinkData,
  type TransactionRecord,
} from "./types";

const DAY_MS = 86_400_000;

const ACCOUNT_KINDS = {
  checking: {
    type: "depository.checking",
    names: ["Everyday Checking", "Total Checking", "Advantage Checking", "Premier Checking"],
  },
  savings: { type: "depository.savings", names: ["High Yield Savings", "Way2Save Savings", "Online Savings"] },
  credit: {
    type: "liability.credit_card",
    names: ["Sapphire Preferred", "Quicksilver Rewards", "Cash Rewards Visa", "Platinum Card"],
  },
} as const;

type AccountKind = keyof typeof ACCOUNT_KINDS;

function makeAccount(rng: Rng, kind: AccountKind, anchorMs: number, currency: string): AccountRecord {
  const spec = ACCOUNT_KINDS[kind];
  let balances: AccountRecord["balances"];
  if (kind === "credit") {
    const limit = intBetween(rng, 10, 40) * 500;
    const current = amountBetween(rng, 80, limit * 0.6);
    balances = { currency, available: Math.round((limit - current) * 100) / 100, current, limit, balance_date: null };
  } else {
    const current = kind === "checking" ? amountBetween(rng, 150, 12_000) : amountBetween(rng, 500, 45_000);
    const available = Math.round((current - (chance(rng, 0.3) ? amountBetween(rng, 5, 120) : 0)) * 100) / 100;
    balances = { currency, available, current, limit: null, balance_date: null };
  }
  balances.balance_date = new Date(anchorMs - intBetween(rng, 1, 20) * 3_600_000).toISOString();
  return {
    account_id: base58Id(rng, "acc_"),
    account_type: spec.type,
    name: pick(rng, spec.names),
    nickname: chance(rng, 0.15) ? pick(rng, ["Bills", "Joint", "Travel fund", "Main"]) : null,
    account_mask: digits(rng, 4),
    balances,
    original_id: null,
    closed: false,
  };
}

const byRole = (role: CatalogEntry["role"]) => CATALOG.filter((entry) => entry.role === role);
const EVERYDAY = byRole("everyday");
const SUBSCRIPTIONS = byRole("subscription");
const INCOME = byRole("income");
const BANK_DEBITS = CATALOG.filter(
  (entry) => (entry.role === "bank" || entry.role === "transfer") && entry.direction === "debit",
);
const OTHER_CREDITS = CATALOG.filter(
  (entry) =>
    entry.role === "refund" || (entry.direction === "credit" && (entry.role === "transfer" || entry.role === "bank")),
);

export function fillTemplate(rng: Rng, template: string): string {
  return template.replace(/#/g, () => String(Math.floor(rng() * 10)));
}

export function addPeriod(date: string, frequency: Frequency): string {
  const at = new Date(`${date}T00:00:00Z`);
  if (frequency === "weekly") at.setUTCDate(at.getUTCDate() + 7);
  else if (frequency === "biweekly") at.setUTCDate(at.getUTCDate() + 14);
  else if (frequency === "monthly") at.setUTCMonth(at.getUTCMonth() + 1);
  else at.setUTCFullYear(at.getUTCFullYear() + 1);
  return at.toISOString().slice(0, 10);
}

/** The fake categoriser: mostly right and confident, ~8 % unsure, ~3 % confidently wrong. */
export function enrichmentFor(rng: Rng, entry: CatalogEntry, date: string): EnrichmentRecord {
  let subcategory = entry.subcategory;
  let categoryConfidence: number;
  let subcategoryConfidence: number;
  const roll = rng();
  if (roll < 0.03) {
    // Starbucks filed under taxi is the classic example the correction flow is demonstrated with.
    subcategory =
      entry.slug === "starbucks"
        ? "taxi"
        : pick(
            rng,
            MISCATEGORIES.filter((s) => categoryOf(s) !== entry.category),
          );
    categoryConfidence = intBetween(rng, 60, 88);
    subcategoryConfidence = intBetween(rng, 55, categoryConfidence);
  } else if (roll < 0.11) {
    categoryConfidence = intBetween(rng, 40, 59);
    subcategoryConfidence = intBetween(rng, 40, categoryConfidence);
  } else {
    categoryConfidence = intBetween(rng, 70, 99);
    subcategoryConfidence = intBetween(rng, 60, categoryConfidence);
  }
  const category = categoryOf(subcategory) ?? entry.category;
  return {
    category: { value: category, confidence: categoryConfidence },
    subcategory: { value: subcategory, confidence: subcategoryConfidence },
    merchant: entry.brand,
    processor: entry.processor,
    recurrence: entry.frequency
      ? { frequency: entry.frequency, next_predicted_date: addPeriod(date, entry.frequency) }
      : null,
  };
}

interface Recurring {
  entry: CatalogEntry;
  amount: number;
  raw: string;
}

export function seedLinkData(dataSeed: number, anchorMs: number, count: number): LinkData {
  const rng = mulberry32(dataSeed);
  const anchorDay = Math.floor(anchorMs / DAY_MS) * DAY_MS;
  const currency = chance(rng, 0.05) ? "CAD" : "USD";
  const checking = makeAccount(rng, "checking", anchorMs, currency);
  const accounts = [checking];
  const accountCount = intBetween(rng, 1, 3);
  const savings = accountCount >= 2 && chance(rng, 0.6) ? makeAccount(rng, "savings", anchorMs, currency) : null;
  const credit =
    accountCount === 3 || (accountCount === 2 && !savings) ? makeAccount(rng, "credit", anchorMs, currency) : null;
  if (savings) accounts.push(savings);
  if (credit) accounts.push(credit);

  const recurringOf = (entry: CatalogEntry): Recurring => ({
    entry,
    amount: amountBetween(rng, entry.min, entry.max),
    raw: fillTemplate(rng, pick(rng, entry.raw)),
  });
  const employer = recurringOf(pickWeighted(rng, INCOME));
  const subscriptions = Array.from({ length: intBetween(rng, 2, 5) }, () =>
    recurringOf(pickWeighted(rng, SUBSCRIPTIONS)),
  );

  const transactions: TransactionRecord[] = [];
  for (let n = 0; n < count; n++) {
    const roll = rng();
    let entry: CatalogEntry;
    let amount: number;
    let raw: string;
    let account = checking;
    if (roll < 0.1) {
      ({ entry, amount, raw } = employer);
      amount = Math.round(amount * (0.97 + rng() * 0.06) * 100) / 100;
    } else if (roll < 0.15) {
      entry = pickWeighted(rng, OTHER_CREDITS);
      amount = amountBetween(rng, entry.min, entry.max);
      raw = fillTemplate(rng, pick(rng, entry.raw));
      if (entry.slug === "interest" && savings) account = savings;
    } else if (roll < 0.35) {
      ({ entry, amount, raw } = pick(rng, subscriptions));
      if (credit && chance(rng, 0.5)) account = credit;
    } else if (roll < 0.42) {
      entry = pickWeighted(rng, BANK_DEBITS);
      amount = amountBetween(rng, entry.min, entry.max);
      raw = fillTemplate(rng, pick(rng, entry.raw));
    } else {
      entry = pickWeighted(rng, EVERYDAY);
      amount = amountBetween(rng, entry.min, entry.max);
      raw = fillTemplate(rng, pick(rng, entry.raw));
      if (credit && chance(rng, 0.6)) account = credit;
    }
    const daysAgo = Math.floor(rng() * 365);
    const dayMs = anchorDay - daysAgo * DAY_MS;
    const date = new Date(dayMs).toISOString().slice(0, 10);
    const withTime = chance(rng, 0.7);
    const datetime = withTime ? new Date(dayMs + intBetween(rng, 6 * 3600, 23 * 3600) * 1000).toISOString() : null;
    transactions.push({
      transaction_id: uuidFrom(rng),
      account_id: account.account_id,
      amount,
      type: entry.direction,
      currency,
      date,
      datetime,
      description: cleanDescriptionOf(entry, raw),
      raw_description: raw,
      pending: daysAgo <= 2 && chance(rng, 0.7),
      enrichment: enrichmentFor(rng, entry, date),
      original_id: null,
    });
  }
  transactions.sort(compareTransactionsNewestFirst);
  return { accounts, transactions };
}

/**
 * Hostile data on purpose, for the links of the hostile institutions: markup in an account name and a transaction's
 * descriptions and merchant, `javascript:` merchant and processor logos. The dashboard must show all of it as text
 * and load or link none of it.
 */
export function makeHostile(data: LinkData): LinkData {
  const [account] = data.accounts;
  if (account) account.name = `<script>alert("account")</script> Checking`;
  const [newest] = data.transactions;
  if (newest) {
    const hostileBrand = {
      id: "00000000-0000-4000-8000-00000000bad0",
      name: `<img src=x onerror=alert("merchant")>`,
      display_name: `<img src=x onerror=alert("merchant")>`,
      logo: "javascript:alert(document.cookie)",
      website: "javascript:alert(1)",
    };
    newest.description = `<script>alert("transaction")</script> Coffee`;
    newest.raw_description = `<b onmouseover=alert(1)>RAW</b>`;
    newest.enrichment = {
      ...newest.enrichment,
      merchant: hostileBrand,
      processor: { ...hostileBrand, logo: "javascript:alert(2)" },
    };
  }
  return data;
}
