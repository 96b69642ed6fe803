import "server-only";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { links } from "../db/schema";

// An outage holds a campaign's request back: asking an end user to reconnect while their bank (or the provider that
// reaches it) is down sends them into a failure and spends the one message they will read. A link is held while its
// own error is an outage (institution_error, provider_error), or while another link at its institution (or through
// its provider) is in one, as Linkdesk's read model knows them (the sync and the webhooks keep it current). When the
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

/** The institutions and providers in an outage now, of those given: each with how many links show it. */
export async function outagesAt(
  db: Db,
  places: { institutionIds: string[]; providers: string[] },
): Promise<{ institutions: Map<string, number>; providers: Map<string, number> }> {
  const institutions = new Map<string, number>();
  const providers = new Map<string, number>();
  const ids = [...new Set(places.institutionIds)];
  for (let i = 0; i < ids.length; i += 1_000) {
    const rows = await db
      .select({ id: links.institutionId, n: sql<number>`count(*)::int` })
      .from(links)
      .where(
        and(
          inArray(links.institutionId, ids.slice(i, i + 1_000)),
          eq(links.state, "error"),
          eq(links.errorCode, OUTAGE_CODES.institution),
        ),
      )
      .groupBy(links.institutionId);
    for (const r of rows) if (r.id) institutions.set(r.id, Number(r.n));
  }
  const names = [...new Set(places.providers)];
  if (names.length > 0) {
    const rows = await db
      .select({ provider: links.provider, n: sql<number>`count(*)::int` })
      .from(links)
      .where(and(inArray(links.provider, names), eq(links.state, "error"), eq(links.errorCode, OUTAGE_CODES.provider)))
      .groupBy(links.provider);
    for (const r of rows) if (r.provider) providers.set(r.provider, Number(r.n));
  }
  return { institutions, providers };
}

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
  outages: { institutions: Map<string, number>; providers: Map<string, number> },
): string | null {
  const institution = link.institutionName ?? link.institutionId ?? "its institution";
  if (link.state === "error" && link.errorCode === OUTAGE_CODES.institution)
    return `${OUTAGE_HOLD_PREFIX}: the link itself is in ${institution}'s outage. Asked once it is back, if it still needs its user.`;
  if (link.state === "error" && link.errorCode === OUTAGE_CODES.provider)
    return `${OUTAGE_HOLD_PREFIX}: the link itself is in its provider's outage${link.provider ? ` (${link.provider})` : ""}. Asked once it is back, if it still needs its user.`;
  const atInstitution = link.institutionId ? outages.institutions.get(link.institutionId) : undefined;
  if (atInstitution)
    return `${OUTAGE_HOLD_PREFIX}: ${institution} is in an outage (${atInstitution.toLocaleString("en-US")} link${atInstitution === 1 ? "" : "s"} there in Institution outage). Asked once it is back.`;
  const atProvider = link.provider ? outages.providers.get(link.provider) : undefined;
  if (atProvider)
    return `${OUTAGE_HOLD_PREFIX}: the provider ${link.provider} is in an outage (${atProvider.toLocaleString("en-US")} link${atProvider === 1 ? "" : "s"} in Provider outage). Asked once it is back.`;
  return null;
}
