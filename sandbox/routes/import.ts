// POST /links/import and POST /links/{id}/import/transactions.
import {
  IMPORT_MAX_TRANSACTIONS,
  importLinkRequestSchema,
  importTransactionsRequestSchema,
  KNOWN_PROVIDERS,
  PRODUCTS,
  type Product,
} from "../../lib/upstream/schemas";
import { hasProviderCredentials } from "../../lib/import/credentials";
import { findInstitution, GENERIC_INSTITUTION_AVATAR } from "../catalog";
import type { RequestContext, Route } from "../context";
import { importAccount, importTransaction, type ImportedTransactionInput } from "../enrich";
import { apiErrors, issue, parseWith, type ValidationIssue } from "../http";
import { toWireLink, type AccountRecord, type LinkRecord, type TransactionRecord } from "../types";
import { notifyTransactionsUpdated } from "../webhook-events";
import { requireLink } from "./link-access";

const IMPORT_PRODUCTS: Product[] = ["accounts", "transactions"];
const iso = (ms: number) => new Date(ms).toISOString();

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
  const provider = KNOWN_PROVIDERS.find((candidate) => candidate === prefix);
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
      return { status: 200, body: toWireLink(link) };
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
      return { status: 200, body: toWireLink(link) };
    },
  },
];
