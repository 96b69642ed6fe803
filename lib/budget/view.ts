import "server-only";
import { getEnv } from "../env";
import { getBudget } from ".";
import { ruleRows } from "./headroom";

// The Rate limits page's data as plain JSON: rendered by the server first, then polled by the page.

export interface RateLimitRowView {
  endpoint: string;
  scope: "app" | "client" | "link" | "user";
  upstreamLimit: number;
  limit: number;
  used: number;
  remaining: number;
  closed: boolean;
  /** When the next slot frees, if none is free now. */
  nextSlotAt: string | null;
  /** For per-link and per-user rules: the busiest key, and how many keys are active. */
  busiestId: string | null;
  activeKeys: number;
  events: { at: string; retryAfter: string | null }[];
}

export interface RateLimitsView {
  readAt: string;
  shares: { app: number; link: number; user: number; client: number };
  rows: RateLimitRowView[];
  busiestLinks: { endpoint: string; linkId: string; used: number; limit: number }[];
  eventsLastHour: number;
}

export async function readRateLimitsView(): Promise<RateLimitsView> {
  const env = getEnv();
  const data = await ruleRows(await getBudget());
  return {
    readAt: new Date().toISOString(),
    shares: {
      app: env.BUDGET_APP_SHARE,
      link: env.BUDGET_LINK_SHARE,
      user: env.BUDGET_USER_SHARE,
      client: env.BUDGET_CLIENT_SHARE,
    },
    rows: data.rows.map((row) => ({
      endpoint: row.endpoint,
      scope: row.scope,
      upstreamLimit: row.upstreamLimit,
      limit: row.limit,
      used: row.busiest?.used ?? 0,
      remaining: row.busiest?.remaining ?? row.limit,
      closed: Boolean(row.busiest?.closedUntil),
      nextSlotAt: (row.busiest?.closedUntil ?? row.busiest?.nextSlotAt)?.toISOString() ?? null,
      busiestId: (row.scope === "link" || row.scope === "user") && row.busiest ? row.busiest.key.scopeId : null,
      activeKeys: row.activeKeys,
      events: row.events.slice(0, 3).map((e) => ({ at: e.at.toISOString(), retryAfter: e.retryAfter })),
    })),
    busiestLinks: data.busiestLinks.map((h) => ({
      endpoint: h.key.endpoint,
      linkId: h.key.scopeId,
      used: h.used,
      limit: h.key.limit,
    })),
    eventsLastHour: data.usage.events.length,
  };
}
