import "server-only";
import { and, eq, inArray, isNotNull, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { links } from "../db/schema";

// An outage holds a campaign's request back: asking an end user to reconnect while their bank (or the provider that
// reaches it) is down sends them into a failure and spends the one message they will read. A link is held while its
// own error is an outage (institution_error, provider_error), or while a tenth or more of the links at its institution
// (or through its provider), and at least three, are in one, as Linkdesk's read model knows them (the sync and the webhooks keep it current). When the
// outage clears the link is asked, if it still needs its user; one that came back by itself is not.

export const OUTAGE_CODES = { institution: "institution_error", provider: "provider_error" } as const;
/** How often a held request looks again. */
export const OUTAGE_RECHECK_MS = 60_000;
/** A campaign waits this long for an outage at most; after that its held requests are skipped, in words. */
export const OUTAGE_WAIT_MAX_MS = 7 * 24 * 60 * 60_000;
/** Every held item's reason starts so (the campaign's page counts them by it). */
export const OUTAGE_HOLD_PREFIX = "Waiting for an outage to clear";

export interface LinkPlace {
  institutionId: string | null;
  institutionName: string | null;
  provider: string | null;
  errorCode: string | null;
}

/**
 * An institution (or provider) is in an outage when at least this share of its links Linkdesk has read show it: an
 * outage takes most of an institution's links down at once, while a link or two left in institution_error for weeks
 * are that link's trouble, not a reason to hold everyone's requests.
 */
export const OUTAGE_SHARE = 0.1;
/** …and at least this many: a share of a handful of links read so far (a sync under way) says nothing. */
export const OUTAGE_MIN_LINKS = 3;

export interface Outage {
  /** Links showing the outage's error code. */
  inOutage: number;
  /** Links read there (not deleted). */
  read: number;
}

/** The institutions and providers in an outage now, of those given, with the links that show it. */
export async function outagesAt(
  db: Db,
  places: { institutionIds: string[]; providers: string[] },
): Promise<{ institutions: Map<string, Outage>; providers: Map<string, Outage> }> {
  const institutions = new Map<string, Outage>();
  const providers = new Map<string, Outage>();
  const count = (code: string) =>
    sql<number>`(count(*) filter (where ${links.state} = 'error' and ${links.errorCode} = ${code}))::int`;
  const read = and(isNotNull(links.state), ne(links.state, "deleted"));
  const ids = [...new Set(places.institutionIds)];
  for (let i = 0; i < ids.length; i += 1_000) {
    const rows = await db
      .select({ id: links.institutionId, inOutage: count(OUTAGE_CODES.institution), read: sql<number>`count(*)::int` })
      .from(links)
      .where(and(inArray(links.institutionId, ids.slice(i, i + 1_000)), read))
      .groupBy(links.institutionId);
    for (const r of rows) if (r.id && isOutage(r)) institutions.set(r.id, outageOf(r));
  }
  const names = [...new Set(places.providers)];
  for (let i = 0; i < names.length; i += 1_000) {
    const rows = await db
      .select({ provider: links.provider, inOutage: count(OUTAGE_CODES.provider), read: sql<number>`count(*)::int` })
      .from(links)
      .where(and(inArray(links.provider, names.slice(i, i + 1_000)), read))
      .groupBy(links.provider);
    for (const r of rows) if (r.provider && isOutage(r)) providers.set(r.provider, outageOf(r));
  }
  return { institutions, providers };
}

const outageOf = (r: { inOutage: number; read: number }): Outage => ({
  inOutage: Number(r.inOutage),
  read: Number(r.read),
});
const isOutage = (r: { inOutage: number; read: number }) =>
  Number(r.inOutage) >= OUTAGE_MIN_LINKS && Number(r.inOutage) >= OUTAGE_SHARE * Number(r.read);

/** Why this link's request waits now, in words; null when nothing holds it. */
export async function outageHolding(db: Db, linkId: string): Promise<string | null> {
  const [link] = await db
    .select({
      institutionId: links.institutionId,
      institutionName: links.institutionName,
      provider: links.provider,
      errorCode: links.errorCode,
      state: links.state,
    })
    .from(links)
    .where(eq(links.linkId, linkId))
    .limit(1);
  if (!link || link.state === "deleted") return null;
  const outages = await outagesAt(db, {
    institutionIds: link.institutionId ? [link.institutionId] : [],
    providers: link.provider ? [link.provider] : [],
  });
  return holdingWords(link, outages);
}

/** The words of a hold, from what outagesAt found; null when nothing holds the link. */
export function holdingWords(
  link: LinkPlace & { state?: string | null },
  outages: { institutions: Map<string, Outage>; providers: Map<string, Outage> },
): string | null {
  const institution = link.institutionName ?? link.institutionId ?? "its institution";
  if (link.state === "error" && link.errorCode === OUTAGE_CODES.institution)
    return `${OUTAGE_HOLD_PREFIX}: the link itself is in ${institution}'s outage. Asked once it is back, if it still needs its user.`;
  if (link.state === "error" && link.errorCode === OUTAGE_CODES.provider)
    return `${OUTAGE_HOLD_PREFIX}: the link itself is in its provider's outage${link.provider ? ` (${link.provider})` : ""}. Asked once it is back, if it still needs its user.`;
  const atInstitution = link.institutionId ? outages.institutions.get(link.institutionId) : undefined;
  if (atInstitution)
    return `${OUTAGE_HOLD_PREFIX}: ${institution} is in an outage (${share(atInstitution)} there in Institution outage). Asked once it is back.`;
  const atProvider = link.provider ? outages.providers.get(link.provider) : undefined;
  if (atProvider)
    return `${OUTAGE_HOLD_PREFIX}: the provider ${link.provider} is in an outage (${share(atProvider)} through it in Provider outage). Asked once it is back.`;
  return null;
}

const share = (o: Outage) =>
  `${o.inOutage.toLocaleString("en-US")} of ${o.read.toLocaleString("en-US")} link${o.read === 1 ? "" : "s"}`;
