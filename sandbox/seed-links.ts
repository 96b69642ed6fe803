// Seeded links. Start-up builds only a skeleton per link (id, created_at, role); the full record is generated on first
// read from the link's own PRNG stream, so 100,000 links start in well under a second and read the same in any order.
import { LINK_ERROR_CODES, PRODUCTS, type LinkErrorCode, type Product, type Provider } from "./wire-vocabulary";
import {
  HOSTILE_AVATAR_INSTITUTION_ID,
  HOSTILE_NAME_INSTITUTION_ID,
  INSTITUTIONS,
  findInstitution,
  type Institution,
} from "./catalog";
import { base58Id, chance, hashSeed, intBetween, pick, pickWeighted, rngFor, shuffled, type Rng } from "./random";
import type { LinkRecord, ProductStatus } from "./types";

const DAY_MS = 86_400_000;
const CREATED_SPAN_MS = 540 * DAY_MS;

/**
 * Roles are dealt out in cycles of 64 links, so any 64 consecutive links (in particular the newest 64, the first page
 * a dashboard shows) hold every state, every link error_code, every provider and the hostile institutions.
 */
export const ROLE_CYCLE = 64;

/**
 * Today's providers (wire-vocabulary.ts PROVIDERS) in the order the seed has always drawn them, so a seed gives its links
 * the providers it gave them before `sophtron` left the list: tests and benchmark baselines name links by seed.
 */
const SEED_PROVIDERS: readonly Provider[] = ["moneykit", "plaid", "finicity", "mx", "yodlee", "akoya"];

export type SeedRole =
  | { kind: "error"; errorCode: LinkErrorCode }
  | { kind: "connecting" }
  | { kind: "awaiting_token_exchange" }
  | { kind: "deleted" }
  | { kind: "no_transactions_product" }
  | { kind: "hostile_avatar" }
  | { kind: "hostile_name" }
  | { kind: "provider"; provider: string }
  | { kind: "product_error"; productError: "rate_limit" | "timeout" | "institution_error" | "no_permission" }
  | { kind: "product_unavailable" }
  | { kind: "plain" };

const SPECIAL_ROLES: SeedRole[] = [
  ...LINK_ERROR_CODES.map((errorCode): SeedRole => ({ kind: "error", errorCode })),
  { kind: "connecting" },
  { kind: "awaiting_token_exchange" },
  { kind: "deleted" },
  { kind: "deleted" },
  { kind: "no_transactions_product" },
  { kind: "no_transactions_product" },
  { kind: "hostile_avatar" },
  { kind: "hostile_name" },
  ...SEED_PROVIDERS.map((provider): SeedRole => ({ kind: "provider", provider })),
  { kind: "product_error", productError: "rate_limit" },
  { kind: "product_error", productError: "timeout" },
  { kind: "product_error", productError: "institution_error" },
  { kind: "product_error", productError: "no_permission" },
  { kind: "product_unavailable" },
];
if (SPECIAL_ROLES.length > ROLE_CYCLE / 2) throw new Error("seed: too many special roles for the cycle");

export function roleOfSlot(slot: number): SeedRole {
  return SPECIAL_ROLES[slot] ?? { kind: "plain" };
}

export interface SeedSkeleton {
  index: number;
  id: string;
  createdAtMs: number;
  slot: number;
}

export function seedSkeletons(seed: number, count: number, anchorMs: number): SeedSkeleton[] {
  const out: SeedSkeleton[] = [];
  const seen = new Set<string>();
  const step = CREATED_SPAN_MS / Math.max(count, 1);
  let permutation: number[] = [];
  for (let index = 0; index < count; index++) {
    if (index % ROLE_CYCLE === 0) {
      permutation = shuffled(rngFor(seed, "roles", index / ROLE_CYCLE), [...Array(ROLE_CYCLE).keys()]);
    }
    const rng = rngFor(seed, "skeleton", index);
    let id = base58Id(rng, "mk_");
    while (seen.has(id)) id = base58Id(rng, "mk_");
    seen.add(id);
    // Strictly older with each index: newest first is index order, and created_at never ties.
    const createdAtMs = Math.floor(anchorMs - 2 * DAY_MS - step * (index + rng() * 0.9));
    out.push({ index, id, createdAtMs, slot: permutation[index % ROLE_CYCLE] ?? 0 });
  }
  return out;
}

export function isDeletedSlot(slot: number): boolean {
  return roleOfSlot(slot).kind === "deleted";
}

const PROVIDER_WEIGHTS: Record<string, number> = { moneykit: 40, plaid: 22, mx: 12, finicity: 10, yodlee: 8, akoya: 5 };
const TAG_KEYS: Record<string, string[]> = {
  team: ["retail", "smb", "wealth", "lending"],
  plan: ["free", "pro", "enterprise"],
  region: ["eu", "us", "apac"],
};
const PRODUCT_ERROR_MESSAGES: Record<string, string> = {
  rate_limit: "The institution is limiting refreshes; the next attempt is scheduled.",
  timeout: "The institution did not respond in time.",
  institution_error: "The institution reported an internal error.",
  no_permission: "The end user did not grant access to this data.",
  auth_expired: "The end user must reconnect the link.",
  no_accounts: "No accounts with data for this product.",
  unknown: "The last refresh failed.",
};
const LINK_TO_PRODUCT_ERROR: Record<LinkErrorCode, string> = {
  auth_expired: "auth_expired",
  invalid_credentials: "auth_expired",
  user_oauth_denied: "no_permission",
  no_accounts: "no_accounts",
  institution_error: "institution_error",
  provider_error: "unknown",
  system_error: "unknown",
  user_error: "unknown",
  user_setup_required: "unknown",
  user_input_incorrect: "unknown",
  incomplete: "unknown",
};
const UNAVAILABLE_REASONS: Partial<Record<Product, string>> = {
  investments: "The institution does not offer investment data.",
  account_numbers: "Account numbers are not available from this institution.",
  identity: "The institution does not share owner identity.",
};

const iso = (ms: number) => new Date(ms).toISOString();

function pickProvider(rng: Rng): string {
  return pickWeighted(
    rng,
    SEED_PROVIDERS.map((provider) => ({ provider, weight: PROVIDER_WEIGHTS[provider] ?? 1 })),
  ).provider;
}

function pickTags(rng: Rng): string[] {
  const tags: string[] = [];
  for (const [key, values] of Object.entries(TAG_KEYS)) {
    if (chance(rng, 0.55)) tags.push(`${key}:${pick(rng, values)}`);
  }
  return tags;
}

function grantedProducts(rng: Rng, role: SeedRole): Product[] {
  if (role.kind === "no_transactions_product") {
    return chance(rng, 0.5) ? ["accounts", "identity"] : ["accounts", "account_numbers"];
  }
  const granted: Product[] = ["accounts", "transactions", "enrichment"];
  if (chance(rng, 0.5) || role.kind === "product_error") granted.push("identity");
  if (chance(rng, 0.4)) granted.push("account_numbers");
  if (chance(rng, 0.15) || role.kind === "product_unavailable") granted.push("investments");
  return PRODUCTS.filter((product) => granted.includes(product));
}

export function institutionForRole(rng: Rng, role: SeedRole): Institution {
  const forced =
    role.kind === "hostile_avatar"
      ? findInstitution(HOSTILE_AVATAR_INSTITUTION_ID)
      : role.kind === "hostile_name"
        ? findInstitution(HOSTILE_NAME_INSTITUTION_ID)
        : undefined;
  return (
    forced ??
    pickWeighted(
      rng,
      INSTITUTIONS.filter((institution) => institution.weight > 0),
    )
  );
}

/**
 * A seeded link's webhook: `webhookUrl` when given, else a display address for about a third of the links. The draws
 * happen either way, so a webhook URL changes nothing else of the link.
 */
function seededWebhook(rng: Rng, webhookUrl: string | null): string | null {
  const display = chance(rng, 0.35)
    ? `https://hooks.acme.example/moneykit/${pick(rng, ["prod", "ops", "ledger"])}`
    : null;
  return webhookUrl ?? display;
}

/**
 * The full record of seeded link `skeleton`, always the same for the same (seed, index, anchor). With `webhookUrl`
 * every link reports to it; without, about a third carry a display address that is never contacted.
 */
export function seedLink(
  seed: number,
  skeleton: SeedSkeleton,
  anchorMs: number,
  customers: number,
  webhookUrl: string | null = null,
): LinkRecord {
  const rng = rngFor(seed, "link", skeleton.index);
  const role = roleOfSlot(skeleton.slot);
  const institution = institutionForRole(rng, role);
  const provider = role.kind === "provider" ? role.provider : pickProvider(rng);
  const granted = grantedProducts(rng, role);
  const tags = pickTags(rng);
  const createdAtMs = skeleton.createdAtMs;
  const lastActivityMs = anchorMs - intBetween(rng, 5, 36 * 60) * 60_000;

  const link: LinkRecord = {
    link_id: skeleton.id,
    institution_id: institution.institution_id,
    institution_name: institution.name,
    institution_avatar: institution.avatar,
    state: "connected",
    error_code: null,
    last_synced_at: null,
    auth_expired_at: null,
    provider,
    link_tags: tags,
    ...(chance(rng, 0.1) && tags.length > 0 ? { tags: [...tags] } : {}),
    webhook: seededWebhook(rng, webhookUrl),
    products: {},
    available_products: PRODUCTS.filter((product) => !granted.includes(product)),
    createdAtMs,
    deletedAtMs: null,
    origin: "seed",
    dataSeed: hashSeed(seed, "data", skeleton.index),
    customerUserId: `user_${intBetween(rng, 1, Math.max(1, Math.ceil(customers / 3)))}`,
  };

  if (role.kind === "connecting" || role.kind === "awaiting_token_exchange") {
    link.state = role.kind;
    for (const product of granted) link.products[product] = { refreshed_at: null, last_attempted_at: null };
    return link;
  }

  // When the link last worked: now-ish for healthy links, some time between creation and now otherwise.
  const brokenAtMs = createdAtMs + Math.floor(rng() * Math.max(anchorMs - createdAtMs, 60_000));
  const healthy = role.kind !== "error" && role.kind !== "deleted";
  const refreshedMs = healthy ? lastActivityMs : brokenAtMs - intBetween(rng, 1, 72) * 3_600_000;
  for (const product of granted) {
    const refreshed = refreshedMs - intBetween(rng, 0, 600) * 1000;
    const status: ProductStatus = { refreshed_at: iso(refreshed), last_attempted_at: iso(refreshed) };
    if (product === "transactions") status.last_enriched = iso(refreshed + intBetween(rng, 5, 90) * 1000);
    link.products[product] = status;
  }
  link.last_synced_at = iso(refreshedMs);

  if (role.kind === "error") {
    link.state = "error";
    link.error_code = role.errorCode;
    const productError = LINK_TO_PRODUCT_ERROR[role.errorCode];
    for (const status of Object.values(link.products)) {
      status.last_attempted_at = iso(brokenAtMs);
      status.error_code = productError;
      status.error_message = PRODUCT_ERROR_MESSAGES[productError] ?? "The last refresh failed.";
    }
    if (role.errorCode === "auth_expired" || role.errorCode === "invalid_credentials")
      link.auth_expired_at = iso(brokenAtMs);
  } else if (role.kind === "deleted") {
    link.state = "deleted";
    link.deletedAtMs = brokenAtMs;
  } else if (role.kind === "product_error") {
    const product = role.productError === "no_permission" ? "identity" : "transactions";
    const status = link.products[product];
    if (status) {
      status.last_attempted_at = iso(lastActivityMs + 60_000);
      status.error_code = role.productError;
      status.error_message = PRODUCT_ERROR_MESSAGES[role.productError];
    }
  } else if (role.kind === "product_unavailable") {
    const status = link.products.investments;
    if (status) status.unavailable = UNAVAILABLE_REASONS.investments;
  } else if (chance(rng, 0.04)) {
    const product = pick(rng, granted);
    const status = link.products[product];
    const reason = UNAVAILABLE_REASONS[product];
    if (status && reason) status.unavailable = reason;
  }
  return link;
}
