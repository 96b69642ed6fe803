// Test-side control of the shared sandbox (fault injection, reset), through its /_sandbox endpoints.

import { SANDBOX_DEFAULTS } from "../sandbox/defaults";

export interface Faults {
  latencyMs?: number;
  status?: number;
  failRate?: number;
  malformed?: boolean;
  rateLimitStorm?: boolean;
  expireTokens?: boolean;
  paths?: string[];
  count?: number;
}

function sandboxUrl(): string {
  const url = process.env.E2E_SANDBOX_URL;
  if (!url) throw new Error("E2E_SANDBOX_URL is not set: run the specs through playwright.config.ts");
  return url;
}

export async function setFaults(faults: Faults): Promise<void> {
  const response = await fetch(`${sandboxUrl()}/_sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(faults),
  });
  if (!response.ok) throw new Error(`setting sandbox faults failed: HTTP ${response.status}`);
}

export async function clearFaults(): Promise<void> {
  const response = await fetch(`${sandboxUrl()}/_sandbox/faults`, { method: "DELETE" });
  if (!response.ok) throw new Error(`clearing sandbox faults failed: HTTP ${response.status}`);
}

// Reading and steering the sandbox as a client of the upstream would (a fixture, never the dashboard): its own access
// token, minted with the sandbox client's credentials. The calls count in the sandbox's stats like any other.

export interface SandboxLink {
  link_id: string;
  state: string;
  error_code?: string | null;
  link_tags?: string[];
  institution_id?: string;
}

export interface SandboxTransaction {
  transaction_id: string;
  original_id?: string | null;
  enrichment: { category: { value: string }; subcategory: { value: string } | null } | null;
}

let token: { value: string; until: number } | null = null;

async function upstreamToken(): Promise<string> {
  if (token && token.until > Date.now()) return token.value;
  const response = await fetch(`${sandboxUrl()}/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: SANDBOX_DEFAULTS.clientId,
      client_secret: SANDBOX_DEFAULTS.clientSecret,
    }),
  });
  if (!response.ok) throw new Error(`minting a sandbox token failed: HTTP ${response.status}`);
  const body = (await response.json()) as { access_token: string; expires_in?: number };
  token = { value: body.access_token, until: Date.now() + Math.min(body.expires_in ?? 600, 600) * 1000 - 30_000 };
  return token.value;
}

/** One call to an upstream route of the sandbox, with a bearer token; the JSON answer, or an error naming the status. */
export async function upstreamCall<T>(method: "GET" | "POST" | "PATCH", path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandboxUrl()}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${await upstreamToken()}`,
      "X-Client-Id": SANDBOX_DEFAULTS.clientId,
      "X-Client-Secret": SANDBOX_DEFAULTS.clientSecret,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${path} on the sandbox: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Every link the sandbox made for a customer user, in any state (deleted ones included). */
export async function customerLinks(customerUserId: string): Promise<SandboxLink[]> {
  const body = await upstreamCall<{ links: Record<string, SandboxLink> }>(
    "GET",
    `/users/${encodeURIComponent(customerUserId)}/links`,
  );
  return Object.values(body.links);
}

/** A link as the sandbox has it now (GET /links/{id}). */
export async function sandboxLink(linkId: string): Promise<SandboxLink> {
  return upstreamCall<SandboxLink>("GET", `/links/${encodeURIComponent(linkId)}`);
}

/** A link's transactions (one page of up to 1,000, from the earliest date). */
export async function sandboxTransactions(linkId: string): Promise<SandboxTransaction[]> {
  const body = await upstreamCall<{ transactions: SandboxTransaction[] }>(
    "GET",
    `/links/${encodeURIComponent(linkId)}/transactions?start_date=1900-01-01&size=1000`,
  );
  return body.transactions;
}

/** Requests the sandbox answered on one endpoint ("POST /links/import"), as its stats count them. */
export async function sandboxRequests(endpoint: string): Promise<number> {
  const response = await fetch(`${sandboxUrl()}/_sandbox/stats`);
  if (!response.ok) throw new Error(`reading sandbox stats failed: HTTP ${response.status}`);
  const stats = (await response.json()) as { byEndpoint: Record<string, { requests: number }> };
  return stats.byEndpoint[endpoint]?.requests ?? 0;
}

/**
 * The customer links an existing link again, as the upstream's linking flow does it: a link session for that link,
 * the end user finishing it (the sandbox's control route), and the customer's back end exchanging the token. The link
 * is `connected` afterwards.
 */
export async function reconnectLink(linkId: string, customerUserId: string): Promise<SandboxLink> {
  // A relink replaces the link's tags with the session's (upstream rule): the customer's front end passes them on.
  const { link_tags } = await sandboxLink(linkId);
  const session = await upstreamCall<{ link_session_token: string }>("POST", "/link-session", {
    customer_user: { id: customerUserId },
    redirect_uri: "https://customer.example/linked",
    existing_link_id: linkId,
    link_tags: link_tags ?? [],
  });
  const done = await fetch(
    `${sandboxUrl()}/_sandbox/link-sessions/${encodeURIComponent(session.link_session_token)}/complete`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    },
  );
  if (!done.ok) throw new Error(`completing the link session failed: HTTP ${done.status}`);
  const { exchangeable_token } = (await done.json()) as { exchangeable_token: string };
  const exchanged = await upstreamCall<{ link: SandboxLink }>("POST", "/link-session/exchange-token", {
    exchangeable_token,
  });
  return exchanged.link;
}

/** The standing fault settings now (null once none are left: a counted fault is cleared after its last use). */
export async function standingFaults(): Promise<Faults | null> {
  const response = await fetch(`${sandboxUrl()}/_sandbox/faults`);
  if (!response.ok) throw new Error(`reading sandbox faults failed: HTTP ${response.status}`);
  return ((await response.json()) as { settings: Faults | null }).settings;
}
