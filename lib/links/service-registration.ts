import "server-only";
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { AuditRecord } from "../audit/append";
import type { Db } from "../db/client";
import { jsonProblem } from "../http/request-guard";
import { storableDeep } from "../http/storable-input";
import {
  REGISTER_REQUEST_MAX_IDS,
  checkLinkIds,
  describeRegisterRequestIssues,
  registerRequestSchema,
  type InvalidLinkId,
} from "../schemas/discovery";
import { rememberLinkCustomers } from "./customers";
import { type Registration, registerLinkIds } from "./discovery";

// POST /api/links/register: the product's back end registers the link ids it knows (every link it made, whatever
// became of it), so Linkdesk learns the links the upstream's listing leaves out. No staff session: the credential is
// LINKDESK_SERVICE_TOKEN, as a bearer token. Every answer is JSON with its reason in words; bad input is a 4xx, never
// a 5xx. The route handler (app/api/links/register/route.ts) only reads the request and sends the answer.

/** How the audit trail names the caller: not a person but the product's back end. */
export const SERVICE_ACTOR = { id: null, email: "service:back-end", role: "service" } as const;

/** The door caps the body at 1 MB (lib/http/request-guard.ts); the handler reads no further. */
export const REGISTER_BODY_LIMIT_BYTES = 1024 * 1024;

/** Calls a minute from one address: a back end registering 10,000 ids a call has room for 600,000 a minute. */
export const REGISTER_CALLS_PER_MINUTE = 60;

export interface ServiceRequest {
  /** The Authorization header as sent. */
  authorization: string | null;
  /** The body's bytes up to the limit, and whether there was more. */
  body: Uint8Array;
  overLimit: boolean;
  sourceAddress: string | null;
  now: Date;
}

export interface ServiceDeps {
  /** LINKDESK_SERVICE_TOKEN; undefined: the endpoint is off. */
  token: string | undefined;
  db: () => Promise<Db>;
  audit: (record: AuditRecord) => Promise<void>;
  limiter: AddressRateLimiter;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface RegisterAnswer {
  registered: number;
  alreadyKnown: number;
  /** Ids given more than once in the call, registered once. */
  duplicates: number;
  invalid: InvalidLinkId[];
  /** Links whose customer the call gave (kept for valid ids of the call only). */
  customers: number;
}

export interface ServiceReply {
  status: number;
  body: RegisterAnswer | { error: string; issues?: string[] };
  headers?: Record<string, string>;
}

/**
 * A fixed window of calls per address and minute, in this process. Each instance counts its own: a back end behind
 * several instances gets a share each, which is what a modest limit needs.
 */
export class AddressRateLimiter {
  private windows = new Map<string, { startMs: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts a call from `address`; whether it is allowed, and else the seconds until the window ends. */
  take(address: string, nowMs: number): { allowed: true } | { allowed: false; retryAfterS: number } {
    if (this.windows.size > 10_000) {
      for (const [key, window] of this.windows) if (nowMs - window.startMs >= this.windowMs) this.windows.delete(key);
    }
    let window = this.windows.get(address);
    if (!window || nowMs - window.startMs >= this.windowMs) {
      window = { startMs: nowMs, count: 0 };
      this.windows.set(address, window);
    }
    window.count++;
    if (window.count <= this.limit) return { allowed: true };
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((window.startMs + this.windowMs - nowMs) / 1000)) };
  }
}

/** Compared as SHA-256 digests, so neither a length nor a matching prefix shows in the time taken. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const bearerChallenge = { "WWW-Authenticate": 'Bearer realm="linkdesk", charset="UTF-8"' };

/** The whole exchange of one call, from the rate limit to the answer; never throws. */
export async function handleServiceRegistration(request: ServiceRequest, deps: ServiceDeps): Promise<ServiceReply> {
  const address = request.sourceAddress ?? "unknown";
  const slot = deps.limiter.take(address, request.now.getTime());
  if (!slot.allowed) {
    return {
      status: 429,
      body: {
        error: `More than ${REGISTER_CALLS_PER_MINUTE} registration calls in a minute from this address. Wait ${slot.retryAfterS} s, then send larger calls (up to ${REGISTER_REQUEST_MAX_IDS.toLocaleString("en")} ids each).`,
      },
      headers: { "Retry-After": String(slot.retryAfterS) },
    };
  }
  if (!deps.token) {
    return {
      status: 403,
      body: { error: "Registration by the back end is off on this instance: LINKDESK_SERVICE_TOKEN is not set." },
    };
  }
  const given = request.authorization === null ? null : (BEARER.exec(request.authorization)?.[1] ?? "");
  if (given === null)
    return {
      status: 401,
      body: { error: "Send the service token: Authorization: Bearer <LINKDESK_SERVICE_TOKEN>." },
      headers: bearerChallenge,
    };
  if (given === "" || !sameToken(given, deps.token)) {
    deps.log.warn({ sourceAddress: request.sourceAddress }, "link registration refused: wrong service token");
    return {
      status: 401,
      body: { error: "The service token is wrong: Authorization must be Bearer <LINKDESK_SERVICE_TOKEN>." },
      headers: bearerChallenge,
    };
  }

  // From here the caller is the back end: what it sent is audited, refused or not.
  const correlationId = randomUUID();
  const audit = async (record: Omit<AuditRecord, "actor" | "action" | "correlationId" | "ip">) => {
    try {
      await deps.audit({
        actor: { ...SERVICE_ACTOR },
        action: "link.register",
        correlationId,
        ip: request.sourceAddress,
        targetType: "link_ids",
        ...(storableDeep(record) as typeof record),
      });
    } catch (error) {
      deps.log.error({ err: error, correlationId }, "audit row of a link registration not written");
    }
  };
  const refuse = async (status: number, error: string, issues?: string[]): Promise<ServiceReply> => {
    await audit({
      outcome: "invalid",
      input: { reason: error, ...(issues ? { issues: issues.slice(0, 10) } : {}), bytes: request.body.length },
    });
    return { status, body: issues ? { error, issues } : { error } };
  };

  if (request.overLimit)
    return refuse(
      413,
      `The body is over ${REGISTER_BODY_LIMIT_BYTES / 1024 / 1024} MB: send at most ${REGISTER_REQUEST_MAX_IDS.toLocaleString("en")} ids a call.`,
    );
  const expected = 'Send {"link_ids": ["mk_…", …]} with Content-Type: application/json.';
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(request.body);
  } catch {
    return refuse(400, `Refused: the request body is not UTF-8 text. ${expected}`);
  }
  // The door's own checks, in its words: empty, nested too deep (before any parser recurses), not JSON.
  const problem = jsonProblem(text);
  if (problem) return refuse(problem.status, `${problem.message} ${expected}`);
  const json: unknown = JSON.parse(text);
  const parsed = registerRequestSchema.safeParse(json);
  if (!parsed.success) {
    const issues = describeRegisterRequestIssues(parsed.error.issues);
    if (parsed.error.issues.some((issue) => issue.code === "too_big")) return refuse(413, `${issues[0]!}.`);
    return refuse(400, `The body is not {"link_ids": [...]}: ${issues.join("; ")}.`, issues);
  }

  const { ids, invalid, duplicates } = checkLinkIds(parsed.data.link_ids);
  let registration: Registration;
  let customers = 0;
  try {
    const db = await deps.db();
    registration = await registerLinkIds(db, ids, "registration", request.now);
    customers = await rememberRegisteredCustomers(db, ids, parsed.data.customers ?? {});
  } catch (error) {
    // Not the caller's fault: the database is away. Nothing was half done that a second call would not finish.
    deps.log.error({ err: error, correlationId }, "link registration failed");
    return {
      status: 503,
      body: {
        error: `Linkdesk could not record the ids just now; send the same call again later. Reference: ${correlationId}`,
      },
      headers: { "Retry-After": "30" },
    };
  }
  await audit({
    outcome: "ok",
    input: {
      ids: parsed.data.link_ids.length,
      valid: ids.length,
      invalid: invalid.length,
      duplicates,
      customers: Object.keys(parsed.data.customers ?? {}).length,
    },
    after: { ...registration, customers, invalid: invalid.slice(0, 20) },
  });
  return { status: 200, body: { ...registration, customers, duplicates, invalid } };
}

/**
 * Whose each registered link is, as the back end said: kept for the valid ids of the call only (a customer for an id
 * not in link_ids is ignored). Returns how many links' customers were given.
 */
async function rememberRegisteredCustomers(
  db: Db,
  ids: readonly string[],
  customers: Record<string, string>,
): Promise<number> {
  const valid = new Set(ids);
  const byCustomer = new Map<string, string[]>();
  for (const [linkId, customerUserId] of Object.entries(customers)) {
    if (!valid.has(linkId)) continue;
    byCustomer.set(customerUserId, [...(byCustomer.get(customerUserId) ?? []), linkId]);
  }
  let given = 0;
  for (const [customerUserId, linkIds] of byCustomer) {
    await rememberLinkCustomers(db, customerUserId, linkIds, "registration");
    given += linkIds.length;
  }
  return given;
}
