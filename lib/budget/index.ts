import "server-only";
import path from "node:path";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import type { CallGate } from "../upstream/client";
import { Budget } from "./budget";
import { createMemoryStore } from "./memory-store";
import { createPostgresStore } from "./postgres-store";

// The process's budget: shared through PostgreSQL when DATABASE_URL is set (every instance counts in one place), in
// process memory on the embedded default (one process).

const shared = ((globalThis as { [key: symbol]: { budget?: Promise<Budget> } })[Symbol.for("linkdesk.budget")] ??= {});

export function getBudget(): Promise<Budget> {
  shared.budget ??= (async () => {
    const env = getEnv();
    // The embedded default journals its reservations beside the database, so a restart resumes the current window.
    const store = env.DATABASE_URL
      ? createPostgresStore((await getDb()).db)
      : createMemoryStore({ journalFile: path.join(env.LINKDESK_DATA_DIR, "budget.journal") });
    return new Budget({
      store,
      clientId: env.UPSTREAM_CLIENT_ID,
      // The upstream's app is the one these credentials belong to.
      appId: env.UPSTREAM_CLIENT_ID,
      shares: {
        app: env.BUDGET_APP_SHARE,
        link: env.BUDGET_LINK_SHARE,
        user: env.BUDGET_USER_SHARE,
        client: env.BUDGET_CLIENT_SHARE,
      },
      interactiveMaxWaitMs: env.BUDGET_INTERACTIVE_MAX_WAIT_MS,
    });
  })();
  return shared.budget;
}

/** The budget as the upstream client's gate. */
export const budgetGate: CallGate = {
  reserve: async (endpoint, scopes, opts) => (await getBudget()).reserve(endpoint, scopes, opts),
  rateLimited: async (endpoint, scopes, retryAt, header) =>
    (await getBudget()).rateLimited(endpoint, scopes, retryAt, header),
  declined: async (endpoint, scopes) => (await getBudget()).declined(endpoint, scopes),
};

export {
  BudgetExceeded,
  BudgetUnavailable,
  describeScope,
  isBudgetExceeded,
  isBudgetUnavailable,
  secondsUntil,
} from "./budget";
