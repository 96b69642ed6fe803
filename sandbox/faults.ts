// Fault injection for tests and demos: a standing setting (env at start, POST /_sandbox/faults) and a per-request
// header. Both use one rule for where they apply, so a fault never surprises: /_sandbox/* is never faulted, and
// POST /auth/token only when a `paths` entry names it (a client must be able to get a token to see most faults).
import { z } from "zod";
import { ApiError, issuesFromZod } from "./http";
import type { Rng } from "./random";

export const faultSettingsSchema = z
  .object({
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    /** Applies the request, then holds the answer this long: a client that times out has changed things unknowingly. */
    answerDelayMs: z.number().int().min(0).max(120_000).optional(),
    status: z.number().int().min(500).max(599).optional(),
    failRate: z.number().min(0).max(1).optional(),
    malformed: z.boolean().optional(),
    /** true = Retry-After 1 s; a number = that many seconds. */
    rateLimitStorm: z.union([z.boolean(), z.number().int().min(1).max(3600)]).optional(),
    /** The storm's Retry-After as an HTTP-date ("Fri, 20 Nov 2026 10:05:00 GMT") instead of seconds: both are HTTP. */
    retryAfterDate: z.boolean().optional(),
    expireTokens: z.boolean().optional(),
    paths: z.array(z.string().min(1)).min(1).optional(),
    count: z.number().int().positive().optional(),
  })
  .strict();

export type FaultSettings = z.infer<typeof faultSettingsSchema>;

/** What to do to one request. */
export interface ActiveFaults {
  latencyMs: number;
  answerDelayMs: number;
  status: number | null;
  failRate: number;
  malformed: boolean;
  rateLimitStormSeconds: number | null;
  /** Retry-After as an HTTP-date rather than delta-seconds. */
  retryAfterDate: boolean;
  /** Tokens issued at or before this sequence number count as expired; null = no token fault. */
  expireTokensUpToSeq: number | null;
}

export const AUTH_TOKEN_PATH = "/auth/token";

function appliesTo(paths: string[] | undefined, path: string): boolean {
  if (!paths) return path !== AUTH_TOKEN_PATH;
  return paths.some((fragment) => path.includes(fragment));
}

const HEADER_KEYS: Record<string, keyof FaultSettings> = {
  latencyms: "latencyMs",
  latency: "latencyMs",
  answerdelayms: "answerDelayMs",
  status: "status",
  failrate: "failRate",
  malformed: "malformed",
  ratelimitstorm: "rateLimitStorm",
  retryafterdate: "retryAfterDate",
  expiretokens: "expireTokens",
};

/**
 * `X-Sandbox-Fault: status=503`, `latencyMs=250, malformed`, `rateLimitStorm=5; expireTokens`, `failRate=0.5`:
 * comma- or semicolon-separated `key[=value]`, a bare key meaning true. A JSON object is accepted too.
 * paths/count make no sense for one request and are refused.
 */
export function parseFaultHeader(value: string): FaultSettings {
  let candidate: Record<string, unknown>;
  const trimmed = value.trim();
  if (trimmed.startsWith("{")) {
    try {
      candidate = JSON.parse(trimmed) as Record<string, unknown>;
    } catch {
      throw invalidHeader("not valid JSON");
    }
  } else {
    candidate = {};
    for (const part of trimmed.split(/[,;]/)) {
      const [rawKey = "", rawValue] = part.split("=", 2).map((piece) => piece.trim());
      if (!rawKey) continue;
      const key = HEADER_KEYS[rawKey.toLowerCase()];
      if (!key) throw invalidHeader(`unknown fault "${rawKey}"; use ${Object.values(HEADER_KEYS).join(", ")}`);
      if (rawValue === undefined || rawValue === "" || rawValue === "true")
        candidate[key] = key === "status" ? 503 : true;
      else if (rawValue === "false") candidate[key] = false;
      else candidate[key] = Number(rawValue);
    }
  }
  if ("paths" in candidate || "count" in candidate)
    throw invalidHeader("paths and count belong to POST /_sandbox/faults");
  const parsed = faultSettingsSchema.safeParse(candidate);
  if (!parsed.success) {
    const detail = issuesFromZod(parsed.error, "query")
      .map((problem) => `${problem.location.slice(1).join(".")}: ${problem.message}`)
      .join("; ");
    throw invalidHeader(detail);
  }
  return parsed.data;
}

function invalidHeader(detail: string): ApiError {
  return new ApiError(400, "api_error.request.invalid_fault_header", `Invalid X-Sandbox-Fault header: ${detail}.`);
}

export class FaultController {
  private settings: FaultSettings | null = null;
  private remaining: number | null = null;
  private installedAtTokenSeq = 0;

  constructor(
    private readonly rng: Rng,
    private readonly currentTokenSeq: () => number,
  ) {}

  set(settings: FaultSettings | null): void {
    const empty = !settings || Object.keys(settings).every((key) => key === "paths" || key === "count");
    this.settings = empty ? null : settings;
    this.remaining = this.settings?.count ?? null;
    // expireTokens hits the tokens that exist now; tokens minted afterwards work, so one refresh and retry succeeds.
    this.installedAtTokenSeq = this.currentTokenSeq();
  }

  clear(): void {
    this.set(null);
  }

  view(): { settings: FaultSettings | null; remaining: number | null } {
    return { settings: this.settings, remaining: this.remaining };
  }

  /** The faults for one request, consuming one use of a counted setting if it applies. */
  forRequest(path: string, header: string | undefined): ActiveFaults | null {
    const fromHeader = header ? parseFaultHeader(header) : null;
    const standing = this.settings && appliesTo(this.settings.paths, path) ? this.settings : null;
    const headerApplies = fromHeader !== null && appliesTo(undefined, path);
    if (!standing && !headerApplies) return null;
    if (standing && this.remaining !== null) {
      this.remaining--;
      if (this.remaining <= 0) this.clear();
    }
    const merged: FaultSettings = { ...(standing ?? {}), ...(headerApplies ? fromHeader : {}) };
    const storm = merged.rateLimitStorm;
    let expireTokensUpToSeq: number | null = null;
    // A header expires whatever token its own request carries; a standing setting only those older than itself.
    if (headerApplies && fromHeader?.expireTokens) expireTokensUpToSeq = Number.MAX_SAFE_INTEGER;
    else if (standing?.expireTokens) expireTokensUpToSeq = this.installedAtTokenSeq;
    const failRate = merged.failRate ?? 0;
    return {
      latencyMs: merged.latencyMs ?? 0,
      answerDelayMs: merged.answerDelayMs ?? 0,
      status: merged.status ?? null,
      failRate,
      malformed: merged.malformed ?? false,
      rateLimitStormSeconds: storm === true ? 1 : typeof storm === "number" ? storm : null,
      retryAfterDate: merged.retryAfterDate ?? false,
      expireTokensUpToSeq,
    };
  }

  /** Rolled per request so failRate is reproducible for a given seed and request order. */
  roll(): number {
    return this.rng();
  }
}

/** A 200 whose body stops halfway and ends in bytes that are not JSON: what a dropped proxy connection looks like. */
export function malformedBody(body: string): string {
  const cut = body.slice(0, Math.max(1, Math.floor(body.length / 2)));
  return `${cut}\u0000<!-- truncated`;
}
