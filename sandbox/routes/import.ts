// POST /links/import and POST /links/{id}/import/transactions. The request shapes are the SDKs' (facts §8; the spec
// shows none), and the sandbox is as strict as they are: an imported amount is a decimal string (TransactionImportData
// types it so), and a provider is one the Provider enum holds today.
import { z } from "zod";
import { findInstitution, GENERIC_INSTITUTION_AVATAR } from "../catalog";
import type { RequestContext, Route } from "../context";
import { importAccount, importTransaction, type ImportedTransactionInput } from "../enrich";
import { apiErrors, issue, parseWith, type ValidationIssue } from "../http";
import { IMPORT_MAX_TRANSACTIONS } from "../limits";
import { customerUserSchema, dateTime, optionalText } from "../request-shapes";
import type { AccountRecord, LinkRecord, TransactionRecord } from "../types";
import { notifyTransactionsUpdated } from "../webhook-events";
import { DROPPED_PROVIDERS, PRODUCTS, PROVIDERS, type Product } from "../wire-vocabulary";
import { requireLink } from "./link-access";

const IMPORT_PRODUCTS: Product[] = ["accounts", "transactions"];
const iso = (ms: number) => new Date(ms).toISOString();

/** AccountImportData (facts §8.1): balances are numbers, as AccountBalances types them (§9). */
const importAccountSchema = z.object({
  account_id: z.string().min(1),
  name: z.string().min(1),
  nickname: optionalText,
  type: z.string().min(1),
  mask: optionalText,
  balances: z.object({
    currency: optionalText,
    available: z.number().nullish(),
    current: z.number().nullish(),
    limit: z.number().nullish(),
    balance_date: dateTime.nullish(),
  }),
});

/**
 * TransactionImportData (facts §8.1): `amount` is a signed decimal string (positive = money in), never a JSON number:
 * the SDKs type it as a string, so a number is refused as their validation would refuse it.
 */
const importTransactionSchema = z.object({
  account_id: z.string().min(1),
  transaction_id: optionalText,
  amount: z
    .string({
      error: (problem) =>
        typeof problem.input === "number"
          ? `amount must be a decimal string such as "-12.50", not a number (the upstream types it as a string)`
          : 'amount must be a decimal string such as "-12.50"',
    })
    .regex(/^[+-]?\d+(\.\d+)?$/, 'amount must be a decimal string such as "-12.50"'),
  date: z.union([z.iso.date(), dateTime]),
  description: optionalText,
  type: optionalText,
});

/** The spec: "the service's institution ID, or a provider name and that provider's institution ID joined by a dot". */
const INSTITUTION_ID = /^[A-Za-z0-9_-]{1,128}$/;
const PROVIDER_INSTITUTION_ID = new RegExp(`^(?:${PROVIDERS.join("|")})\\.[A-Za-z0-9_.-]{1,128}$`);

/**
 * A provider of today's enum or none. `sophtron` left the enum in 2024-08 (facts §3.3): the upstream's validation no
 * longer knows it, so an import naming it is refused, with a message that says why.
 */
const providerSchema = z.string().superRefine((value, context) => {
  if ((PROVIDERS as readonly string[]).includes(value)) return;
  const dropped = DROPPED_PROVIDERS[value];
  context.addIssue({
    code: "custom",
    message: dropped
      ? `${value} is no longer a provider (dropped from the provider list in ${dropped}); one of ${PROVIDERS.join(", ")}`
      : `provider must be one of ${PROVIDERS.join(", ")}`,
  });
});

const importLinkRequestSchema = z.object({
  customer_user: customerUserSchema,
  institution_id: z
    .string()
    .min(1)
    .refine((value) => INSTITUTION_ID.test(value) || PROVIDER_INSTITUTION_ID.test(value), {
      message: `must be an institution id (letters, digits, _ or -) or <provider>.<id> with a provider of ${PROVIDERS.join(", ")}`,
    }),
  provider: providerSchema.optional(),
  accounts: z.array(importAccountSchema).default([]),
  transactions: z.array(importTransactionSchema).default([]),
  webhook: z.url().optional(),
  link_tags: z.array(z.string()).optional(),
  provider_data: z.record(z.string(), z.unknown()).optional(),
});

const importTransactionsRequestSchema = z.object({ transactions: z.array(importTransactionSchema) });

/**
 * The spec shows no shape of provider_data, only that "the credentials a provider needs (a user identifier for some
 * providers)" make the link active. The sandbox's rule: at least one value is a non-empty string (`{"user_id": "u-1"}`).
 */
function hasProviderCredentials(providerData: Record<string, unknown> | undefined): boolean {
  return Object.values(providerData ?? {}).some((value) => typeof value === "string" && value.trim() !== "");
}

/** The count limit is checked before item shapes, so 4001 transactions say "too many", not "item 4000 is wrong". */
function checkTransactionCount(body: unknown): void {
  const transactions = (body as { transactions?: unknown } | null)?.transactions;
  if (Array.isArray(transactions) && transactions.length > IMPORT_MAX_TRANSACTIONS) {
    throw apiErrors.validation([
      issue(
        ["body", "transactions"],
        `at most ${IMPORT_MAX_TRANSACTIONS} transactions per import (got ${transactions.length}); send the rest through POST /links/{id}/import/transactions`,
        "too_big",
      ),
    ]);
  }
}

/** `<provider>.<provider_institution_id>` names an institution through a provider, e.g. `mx.chase`. */
function resolveInstitution(institutionId: string): { id: string; name: string; avatar: string; provider?: string } {
  const known = findInstitution(institutionId);
  if (known) return { id: known.institution_id, name: known.name, avatar: known.avatar };
  const [prefix, ...rest] = institutionId.split(".");
  const provider = PROVIDERS.find((candidate) => candidate === prefix);
  const inner = provider && rest.length > 0 ? findInstitution(rest.join(".")) : undefined;
  if (inner) return { id: inner.institution_id, name: inner.name, avatar: inner.avatar, provider };
  return {
    id: institutionId,
    name: `Imported institution (${institutionId})`,
    avatar: GENERIC_INSTITUTION_AVATAR,
    ...(provider ? { provider } : {}),
  };
}

function toTransactions(
  ctx: RequestContext,
  inputs: (ImportedTransactionInput & { account_id: string })[],
  accounts: AccountRecord[],
): TransactionRecord[] {
  const byOriginalId = new Map(accounts.map((account) => [account.original_id, account]));
  const problems: ValidationIssue[] = [];
  inputs.forEach((input, index) => {
    if (!byOriginalId.has(input.account_id)) {
      problems.push(
        issue(
          ["body", "transactions", index, "account_id"],
          `no imported account has account_id "${input.account_id}"`,
          "value_error",
        ),
      );
    }
  });
  if (problems.length > 0) throw apiErrors.validation(problems.slice(0, 50));
  const { store } = ctx.world;
  return inputs.map((input) =>
    importTransaction(input, byOriginalId.get(input.account_id) as AccountRecord, store.corrections, store.runtimeRng),
  );
}

/** The upstream may take up to ~10 s to answer an import; the sandbox waits a random part of importDelayMs. */
async function importDelay(ctx: RequestContext): Promise<void> {
  const max = ctx.world.options.importDelayMs;
  if (max > 0) await ctx.world.sleep(Math.floor(ctx.world.random() * max));
}

export const importRoutes: Route[] = [
  {
    method: "POST",
    template: "/links/import",
    async handle(ctx) {
      const raw = await ctx.json();
      checkTransactionCount(raw);
      const body = parseWith(importLinkRequestSchema, raw);
      const seen = new Set<string>();
      const duplicates = body.accounts.flatMap((account, index) => {
        if (!seen.has(account.account_id)) {
          seen.add(account.account_id);
          return [];
        }
        return [
          issue(["body", "accounts", index, "account_id"], "account_id must be unique in the import", "value_error"),
        ];
      });
      if (duplicates.length > 0) throw apiErrors.validation(duplicates);

      const { store, options } = ctx.world;
      const accounts = body.accounts.map((account) => importAccount(account, store.runtimeRng));
      const transactions = toTransactions(ctx, body.transactions, accounts);
      await importDelay(ctx);

      const nowMs = options.now();
      const now = iso(nowMs);
      const connected = hasProviderCredentials(body.provider_data);
      const institution = resolveInstitution(body.institution_id);
      const link: LinkRecord = {
        link_id: store.newLinkId(),
        institution_id: institution.id,
        institution_name: institution.name,
        institution_avatar: institution.avatar,
        // Without credentials the link is disconnected; the state enum has no such value, so: error + auth_expired.
        state: connected ? "connected" : "error",
        error_code: connected ? null : "auth_expired",
        last_synced_at: now,
        auth_expired_at: connected ? null : now,
        provider: body.provider ?? institution.provider ?? "moneykit",
        link_tags: body.link_tags ?? [],
        webhook: body.webhook ?? null,
        products: Object.fromEntries(
          IMPORT_PRODUCTS.map((product) => [
            product,
            {
              refreshed_at: now,
              last_attempted_at: now,
              ...(product === "transactions" ? { last_enriched: now } : {}),
              ...(connected
                ? {}
                : {
                    error_code: "auth_expired",
                    error_message: "Imported without provider credentials; reconnect to refresh.",
                  }),
            },
          ]),
        ),
        available_products: PRODUCTS.filter((product) => !IMPORT_PRODUCTS.includes(product)),
        createdAtMs: nowMs,
        deletedAtMs: null,
        origin: "import",
        dataSeed: null,
        customerUserId: body.customer_user.id,
      };
      store.addLink(link, { accounts, transactions: [] });
      store.appendTransactions(link, transactions);
      if (transactions.length > 0) notifyTransactionsUpdated(ctx.world, link);
      return { status: 200, body: ctx.world.wire.link(link) };
    },
  },
  {
    method: "POST",
    template: "/links/{id}/import/transactions",
    async handle(ctx) {
      const raw = await ctx.json();
      checkTransactionCount(raw);
      const body = parseWith(importTransactionsRequestSchema, raw);
      const { store } = ctx.world;
      const link = requireLink(store, ctx.params.id ?? "");
      if (link.origin !== "import") {
        throw apiErrors.badState(
          "not_imported",
          "Transactions can only be imported into a link created by POST /links/import.",
        );
      }
      const transactions = toTransactions(ctx, body.transactions, store.dataOf(link).accounts);
      await importDelay(ctx);
      const changed = store.appendTransactions(link, transactions);
      if (changed.created + changed.updated > 0) notifyTransactionsUpdated(ctx.world, link);
      const transactionsProduct = link.products.transactions;
      if (transactionsProduct) {
        const now = iso(ctx.world.options.now());
        transactionsProduct.refreshed_at = now;
        transactionsProduct.last_enriched = now;
      }
      return { status: 200, body: ctx.world.wire.link(link) };
    },
  },
];
