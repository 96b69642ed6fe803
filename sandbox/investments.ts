// Investment data of a link (GET /links/{id}/investments/holdings and …/transactions; shapes as the public SDKs'
// GetHoldingsResponse and GetInvestmentTransactionsResponse): one brokerage account with a few holdings and the buys
// and dividends behind them, derived from the link's data seed, so every read gives the same answer. The brokerage
// account appears only in these answers (a link's GET /accounts is left as it was). Quantities, prices and amounts
// are decimal strings, as the SDKs carry them. Securities are keyed `security_id` and investment transactions
// `investment_transaction_id`, as the SDKs' SecurityResponse and InvestmentTransactionResponse name them (facts §0:
// security ids are `sec_…`). Links whose investments product is unavailable, and imported links, have no investment
// data.
import { amountBetween, base58Id, digits, hashSeed, intBetween, mulberry32, shuffled } from "./random";
import type { AccountRecord, LinkRecord } from "./types";

const DAY_MS = 86_400_000;

export interface Security {
  security_id: string;
  name: string;
  type: "cash" | "equity" | "etf" | "fund" | "bond";
  currency: string;
  ticker: string | null;
  isin: string | null;
  sedol: string | null;
  close_price: string;
  close_date: string;
}

export interface Holding {
  account_id: string;
  security_id: string;
  quantity: string;
  price: string;
  price_datetime: string;
  value: string;
  cost_basis: string;
}

export interface InvestmentTransaction {
  investment_transaction_id: string;
  account_id: string;
  amount: string;
  date: string;
  datetime: string | null;
  description: string;
  type: string;
  fees: string | null;
  forex_rate: string | null;
  price: string | null;
  quantity: string | null;
  security_id: string | null;
}

export interface InvestmentData {
  accounts: AccountRecord[];
  holdings: Holding[];
  securities: Security[];
  /** Newest first, as the upstream returns them. */
  transactions: InvestmentTransaction[];
}

const CATALOG = [
  {
    ticker: "VTI",
    name: "Vanguard Total Stock Market ETF",
    type: "etf",
    isin: "US9229087690",
    price: 268.42,
    dividend: 0.93,
  },
  { ticker: "AAPL", name: "Apple Inc.", type: "equity", isin: "US0378331005", price: 227.52, dividend: 0.25 },
  {
    ticker: "BND",
    name: "Vanguard Total Bond Market ETF",
    type: "etf",
    isin: "US9219378356",
    price: 72.9,
    dividend: 0.21,
  },
  { ticker: "MSFT", name: "Microsoft Corporation", type: "equity", isin: "US5949181045", price: 415.1, dividend: 0.83 },
  { ticker: "VMFXX", name: "Vanguard Federal Money Market Fund", type: "cash", isin: null, price: 1, dividend: 0 },
] as const;

const money = (value: number) => value.toFixed(2);

export const EMPTY_INVESTMENTS: InvestmentData = { accounts: [], holdings: [], securities: [], transactions: [] };

export function investmentDataOf(link: LinkRecord, anchorMs: number): InvestmentData {
  const status = link.products.investments;
  if (!status || status.unavailable || link.dataSeed === null) return EMPTY_INVESTMENTS;
  const rng = mulberry32(hashSeed(link.dataSeed, "investments"));
  const originMs = link.origin === "seed" ? anchorMs : link.createdAtMs;
  const closeDate = new Date(originMs - DAY_MS).toISOString().slice(0, 10);
  const priceAt = new Date(originMs - 4 * 3_600_000).toISOString();
  const accountId = base58Id(rng, "acc_");
  const picked = shuffled(rng, CATALOG).slice(0, intBetween(rng, 2, 4));
  const securities: Security[] = picked.map((entry) => ({
    // Securities are the same for every link, as the upstream's are global.
    security_id: base58Id(mulberry32(hashSeed("security", entry.ticker)), "sec_"),
    name: entry.name,
    type: entry.type,
    currency: "USD",
    ticker: entry.ticker,
    isin: entry.isin,
    sedol: null,
    close_price: money(entry.price),
    close_date: closeDate,
  }));
  const holdings: Holding[] = [];
  const transactions: InvestmentTransaction[] = [];
  picked.forEach((entry, index) => {
    const security = securities[index] as Security;
    const quantity = entry.type === "cash" ? amountBetween(rng, 200, 5000) : intBetween(rng, 3, 60);
    const boughtAt = entry.type === "cash" ? 1 : Math.round(entry.price * (0.7 + rng() * 0.25) * 100) / 100;
    const fees = entry.type === "cash" ? 0 : 4.95;
    const value = Math.round(quantity * entry.price * 100) / 100;
    holdings.push({
      account_id: accountId,
      security_id: security.security_id,
      quantity: String(quantity),
      price: money(entry.price),
      price_datetime: priceAt,
      value: money(value),
      cost_basis: money(quantity * boughtAt + fees),
    });
    const boughtMs = originMs - intBetween(rng, 120, 400) * DAY_MS;
    transactions.push({
      investment_transaction_id: base58Id(rng, "it_"),
      account_id: accountId,
      // The SDKs' convention: a buy is negative, -(quantity × price + fees).
      amount: money(-(quantity * boughtAt + fees)),
      date: new Date(boughtMs).toISOString().slice(0, 10),
      datetime: new Date(boughtMs + intBetween(rng, 14, 20) * 3_600_000).toISOString(),
      description: `Bought ${entry.ticker}`,
      type: "buy",
      fees: money(fees),
      forex_rate: null,
      price: money(boughtAt),
      quantity: String(quantity),
      security_id: security.security_id,
    });
    if (entry.dividend > 0) {
      const paidMs = originMs - intBetween(rng, 5, 80) * DAY_MS;
      transactions.push({
        investment_transaction_id: base58Id(rng, "it_"),
        account_id: accountId,
        amount: money(quantity * entry.dividend),
        date: new Date(paidMs).toISOString().slice(0, 10),
        datetime: null,
        description: `Dividend ${entry.ticker}`,
        type: "cash.dividend",
        fees: null,
        forex_rate: null,
        price: null,
        quantity: null,
        security_id: security.security_id,
      });
    }
  });
  transactions.sort((a, b) =>
    a.date !== b.date ? (a.date < b.date ? 1 : -1) : a.investment_transaction_id < b.investment_transaction_id ? 1 : -1,
  );
  const total = holdings.reduce((sum, holding) => sum + Number(holding.value), 0);
  const cash = holdings.find((holding, index) => picked[index]?.type === "cash");
  const account: AccountRecord = {
    account_id: accountId,
    account_type: "investment.brokerage",
    name: "Individual Brokerage",
    nickname: null,
    account_mask: digits(rng, 4),
    balances: {
      currency: "USD",
      available: cash ? Number(cash.value) : 0,
      current: Math.round(total * 100) / 100,
      limit: null,
      balance_date: priceAt,
    },
    original_id: null,
    closed: false,
  };
  return { accounts: [account], holdings, securities, transactions };
}
