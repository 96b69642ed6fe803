import { KNOWN_PROVIDERS } from "../upstream/schemas";

// Who and what a link of an import file is, whatever the file's bytes: the identity key that recognises the same link
// in a minified file, an extended one, a corrected one, or twice in one file. Pure (no server-only): the page's worker
// finds duplicates inside a file with it, and the server finds links imported by any earlier job.

/**
 * How a link is known. `default`: the customer user, the institution and the sorted account ids (the legacy system's
 * own account ids, which the upstream keeps as `original_id`). `tag`: a field of the team's own, carried in
 * `link_tags` as `<name>:<value>` (a legacy link id, say).
 */
export type IdentityRule = { kind: "default" } | { kind: "tag"; name: string };

export const DEFAULT_IDENTITY: IdentityRule = { kind: "default" };

/** A tag name ops may choose: what a `link_tags` entry starts with before its colon. */
export const IDENTITY_TAG_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

/** Identity tags are this prefix and 32 hex digits (lib/jobs/imported-links.ts makes them on the server). */
export const IDENTITY_TAG_PREFIX = "linkdesk-id:";
export const IDENTITY_TAG_PLACEHOLDER = `${IDENTITY_TAG_PREFIX}${"0".repeat(32)}`;

export type Identity = { ok: true; key: string } | { ok: false; problem: string };

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

const PROVIDER_PREFIX = new RegExp(`^(${KNOWN_PROVIDERS.join("|")})\\.(.+)$`, "i");

/**
 * The institution as one spelling: `MX.chase` and `mx.chase` are the same `<provider>.<provider_institution_id>`
 * (the provider part is a name from a fixed list; the provider's own id is kept as written).
 */
export function normaliseInstitutionId(institutionId: string): string {
  const trimmed = institutionId.trim();
  const match = PROVIDER_PREFIX.exec(trimmed);
  return match ? `${match[1]!.toLowerCase()}.${match[2]}` : trimmed;
}

/** The provider's own institution id when `institutionId` names one through a provider (`mx.chase` → `chase`), else null. */
export function institutionBehindProvider(institutionId: string): string | null {
  return PROVIDER_PREFIX.exec(institutionId.trim())?.[2] ?? null;
}

/** The identity key of one link's raw JSON under a rule, or why it has none (then the link cannot be imported). */
export function identityOf(value: unknown, rule: IdentityRule = DEFAULT_IDENTITY): Identity {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { ok: false, problem: "is not a link" };
  const link = value as {
    customer_user?: { id?: unknown };
    institution_id?: unknown;
    accounts?: unknown;
    link_tags?: unknown;
  };
  if (rule.kind === "tag") {
    const prefix = `${rule.name}:`;
    const tags = Array.isArray(link.link_tags) ? link.link_tags : [];
    const values = tags
      .filter((t): t is string => typeof t === "string" && t.startsWith(prefix))
      .map((t) => t.slice(prefix.length).trim());
    const distinct = [...new Set(values.filter((v) => v !== ""))];
    if (distinct.length === 0)
      return { ok: false, problem: `has no link_tags entry "${prefix}…", which this import uses to know each link` };
    if (distinct.length > 1)
      return {
        ok: false,
        problem: `has ${distinct.length} different "${prefix}…" tags (${distinct.slice(0, 3).join(", ")}): one link, one identity`,
      };
    return { ok: true, key: JSON.stringify(["tag", rule.name, distinct[0]]) };
  }
  const customer = text(
    link.customer_user && typeof link.customer_user === "object" ? link.customer_user.id : undefined,
  );
  const institution = text(link.institution_id);
  if (!customer || !institution)
    return { ok: false, problem: "has no customer_user.id or institution_id to know it by" };
  const accounts = Array.isArray(link.accounts)
    ? [
        ...new Set(
          link.accounts
            .map((a: unknown) =>
              text(a && typeof a === "object" ? (a as { account_id?: unknown }).account_id : undefined),
            )
            .filter((id): id is string => id !== null),
        ),
      ].sort()
    : [];
  return { ok: true, key: JSON.stringify([customer, normaliseInstitutionId(institution), accounts]) };
}

/** The identity rule in words, for the plan and the job page. */
export function describeIdentityRule(rule: IdentityRule): string {
  return rule.kind === "tag"
    ? `the link_tags entry "${rule.name}:<value>"`
    : "customer user, institution and account ids";
}
