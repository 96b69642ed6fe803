// Configuration of the sandbox program from SANDBOX_* environment variables. Every problem names its variable, so a
// typo in a CI file says which line to fix.
import type { FaultSettings } from "./faults";
import type { SandboxOverrides } from "./context";
import { SANDBOX_DEFAULTS } from "./defaults";
import { DRIFT_KINDS, isDriftKind, type DriftKind, type DriftSettings } from "./drift";
import { isWebAddress } from "./http";
import { LINKS_LISTINGS, type LinksListing } from "./store";

export interface SandboxConfig {
  host: string;
  port: number;
  options: SandboxOverrides;
}

export type ConfigResult = { ok: true; config: SandboxConfig } | { ok: false; errors: string[] };

type Env = Record<string, string | undefined>;

export function parseSandboxEnv(env: Env): ConfigResult {
  const errors: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const integer = (name: string, min: number, max: number): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      errors.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return undefined;
    }
    return parsed;
  };
  const fraction = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1) {
      errors.push(`${name} must be a number from 0 to 1 (got "${value}")`);
      return undefined;
    }
    return parsed;
  };

  const seconds = (name: string, min: number, max: number): number | undefined => {
    const value = integer(name, min, max);
    return value === undefined ? undefined : value * 1000;
  };

  const host = text("SANDBOX_HOST") ?? SANDBOX_DEFAULTS.host;
  if (/[\s/]/.test(host)) errors.push(`SANDBOX_HOST must be a host name or address (got "${host}")`);
  const port = integer("SANDBOX_PORT", 0, 65_535) ?? SANDBOX_DEFAULTS.port;

  const onOff = (name: string): boolean | undefined => {
    const value = text(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (["on", "true", "1"].includes(value)) return true;
    if (["off", "false", "0"].includes(value)) return false;
    errors.push(`${name} must be on or off (got "${value}")`);
    return undefined;
  };
  const rateLimits = onOff("SANDBOX_RATE_LIMITS");
  const amountsAsStrings = onOff("SANDBOX_AMOUNTS_AS_STRINGS");

  const drift: Partial<DriftSettings> = {};
  const driftOn = onOff("SANDBOX_DRIFT");
  if (driftOn !== undefined) drift.enabled = driftOn;
  const driftShare = fraction("SANDBOX_DRIFT_SHARE");
  if (driftShare !== undefined) drift.share = driftShare;
  const driftKinds = text("SANDBOX_DRIFT_KINDS")
    ?.split(",")
    .map((kind) => kind.trim())
    .filter(Boolean);
  if (driftKinds !== undefined) {
    const unknown = driftKinds.filter((kind) => !isDriftKind(kind));
    if (unknown.length > 0 || driftKinds.length === 0) {
      errors.push(
        `SANDBOX_DRIFT_KINDS must be a comma-separated list of ${DRIFT_KINDS.join(", ")} (got "${text("SANDBOX_DRIFT_KINDS")}")`,
      );
    } else {
      drift.kinds = driftKinds as DriftKind[];
    }
  }

  const linksListing = text("SANDBOX_LINKS_LISTING")?.toLowerCase();
  if (linksListing !== undefined && !LINKS_LISTINGS.includes(linksListing as LinksListing)) {
    errors.push(`SANDBOX_LINKS_LISTING must be ${LINKS_LISTINGS.join(" or ")} (got "${linksListing}")`);
  }

  const seedWebhookUrl = text("SANDBOX_SEED_WEBHOOK_URL");
  if (seedWebhookUrl !== undefined && !isWebAddress(seedWebhookUrl)) {
    errors.push(`SANDBOX_SEED_WEBHOOK_URL must be an absolute http or https URL (got "${seedWebhookUrl}")`);
  }

  const anchorDate = text("SANDBOX_ANCHOR_DATE");
  if (anchorDate !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(anchorDate) || Number.isNaN(Date.parse(anchorDate)))) {
    errors.push(`SANDBOX_ANCHOR_DATE must be a date as YYYY-MM-DD (got "${anchorDate}")`);
  }

  const faults: FaultSettings = {};
  const latencyMs = integer("SANDBOX_FAULT_LATENCY_MS", 0, 120_000);
  if (latencyMs) faults.latencyMs = latencyMs;
  const failRate = fraction("SANDBOX_FAULT_5XX_RATE");
  if (failRate) faults.failRate = failRate;

  const options: SandboxOverrides = {
    clientId: text("SANDBOX_CLIENT_ID"),
    clientSecret: text("SANDBOX_CLIENT_SECRET"),
    tokenTtlSeconds: integer("SANDBOX_TOKEN_TTL_S", 1, 31_536_000),
    links: integer("SANDBOX_LINKS", 0, 1_000_000),
    transactionsPerLink: integer("SANDBOX_TRANSACTIONS_PER_LINK", 0, 10_000),
    seed: integer("SANDBOX_SEED", 0, 4_294_967_295),
    rateLimits,
    amountsAsStrings,
    importDelayMs: integer("SANDBOX_IMPORT_DELAY_MS", 0, 60_000),
    linksListing: linksListing as LinksListing | undefined,
    // Comma-separated; unset registers every URI.
    redirectUris: text("SANDBOX_REDIRECT_URIS")
      ?.split(",")
      .map((u) => u.trim())
      .filter((u) => u.length > 0),
    seedWebhookUrl,
    webhookRetryBaseMs: integer("SANDBOX_WEBHOOK_RETRY_BASE_MS", 0, 3_600_000),
    webhookTimeoutMs: integer("SANDBOX_WEBHOOK_TIMEOUT_MS", 1, 120_000),
    webhookKeyRetentionMs: seconds("SANDBOX_WEBHOOK_KEY_RETENTION_S", 0, 31_536_000),
    refreshDelayMs: integer("SANDBOX_REFRESH_DELAY_MS", 0, 3_600_000),
    demoProductSecret: text("SANDBOX_DEMO_PRODUCT_SECRET"),
    demoReconnectShare: fraction("SANDBOX_DEMO_RECONNECT_SHARE"),
    demoReconnectWithinMs: seconds("SANDBOX_DEMO_RECONNECT_WITHIN_S", 0, 86_400),
    faults: Object.keys(faults).length > 0 ? faults : null,
    drift: Object.keys(drift).length > 0 ? drift : undefined,
    // As a program the seed counts back from today, so demo data looks current (refreshed hours ago, not weeks);
    // it stays deterministic for a given day and seed. Tests pin the date through createSandbox's default.
    anchorDate: anchorDate ?? new Date().toISOString().slice(0, 10),
  };
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, config: { host, port, options } };
}
