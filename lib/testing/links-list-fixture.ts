import { sql } from "drizzle-orm";
import { expect } from "vitest";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { LINK_ERROR_INFO } from "../links/error-codes";
import { type LinkListItem, listLinks } from "../links/list-query";
import { linkRowOf, recordLinks } from "../links/read-model";
import type { LinkListParams } from "../schemas/links";
import type { LinkErrorCode, LinkState, WireLink } from "../upstream/schemas";
import { wireLink } from "./wire-fixtures";

// The links list's fixture, shared by the tests of its query, CSV export, filter options and the read model's summary
// (lib/links/list-query, list-csv, list-facets and read-model-summary tests): one read model, and what each view of it
// should hold.

// The clock every test reads: staleness counts back from here.
export const NOW = new Date("2026-11-20T12:00:00.000Z");
export const DAY = 24 * 60 * 60 * 1000;
export const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

const INSTITUTIONS = [
  ["chase", "Chase"],
  ["wells", "Wells Fargo"],
  ["boa", "Bank of America"],
  // A name a spreadsheet would run as a formula.
  ["ally", "=Ally"],
] as const;
const STATES: LinkState[] = ["connected", "error", "connecting", "error", "deleted", "awaiting_token_exchange"];
const ERRORS: LinkErrorCode[] = ["auth_expired", "institution_error", "provider_error", "invalid_credentials"];
const PROVIDERS = ["plaid", "mx", "finicity"];
const TAGS = [["team:retail"], ["team:sme", "vip"], [], ["vip"], ["semi;colon", "=cmd"]];

/**
 * 40 links read in full, varied on every filtered column (several share each sort value, to exercise the tie-break),
 * plus links listed but never read (no state, no institution: the null part of every nullable sort). `lkx01` would
 * match the search "lk_0" if `_` were a LIKE wildcard.
 */
export function fixtureLinks(): { wire: WireLink[]; createdAt: Map<string, string | null> } {
  const wire: WireLink[] = [];
  const createdAt = new Map<string, string | null>();
  for (let i = 0; i < 40; i++) {
    const [institutionId, institutionName] = INSTITUTIONS[i % INSTITUTIONS.length]!;
    const state = STATES[i % STATES.length]!;
    const linkId = i === 39 ? "lkx01" : `lk_${String(i).padStart(3, "0")}`;
    // Refreshed 0..12 days ago, or never (every 7th link).
    const refreshed = i % 7 === 0 ? null : daysAgo((i * 5) % 13);
    wire.push(
      wireLink({
        link_id: linkId,
        institution_id: institutionId,
        institution_name: institutionName,
        institution_avatar: i % 5 === 0 ? "javascript:alert(1)" : `https://cdn.example.com/${institutionId}.png`,
        state,
        error_code: state === "error" ? ERRORS[Math.floor(i / 2) % ERRORS.length]! : null,
        provider: PROVIDERS[i % PROVIDERS.length]!,
        link_tags: TAGS[i % TAGS.length]!,
        tags: i % 4 === 0 ? ["old-tag"] : [],
        products: {
          accounts: { refreshed_at: refreshed, error_code: i % 6 === 1 ? "rate_limit" : null },
          ...(i % 3 === 0
            ? {
                transactions: {
                  refreshed_at: null,
                  error_code: i % 2 === 0 ? "timeout" : null,
                  unavailable: i % 2 === 0 ? null : "not_supported",
                },
              }
            : {}),
        },
      }),
    );
    // Two links share each creation day; every 8th was first seen outside GET /links (no created_at).
    createdAt.set(linkId, i % 8 === 5 ? null : daysAgo(30 - Math.floor(i / 2)));
  }
  return { wire, createdAt };
}

export const UNREAD = ["lk_900", "lk_901", "lk_902"];

/** Writes the fixture into the read model, in place of whatever it held. */
export async function seedLinksList(db: Db): Promise<void> {
  await db.delete(links);
  const { wire, createdAt } = fixtureLinks();
  await recordLinks(db, wire, new Date(NOW.getTime() - 60_000));
  for (const [linkId, at] of createdAt) {
    await db.execute(
      sql`update links set created_at = ${at}::timestamptz, listed_at = ${NOW.toISOString()}::timestamptz where link_id = ${linkId}`,
    );
  }
  await db
    .insert(links)
    .values(UNREAD.map((linkId, i) => ({ linkId, createdAt: i === 0 ? null : new Date(daysAgo(1)), listedAt: NOW })));
}

/** The fixture as the list should show it, to filter and sort in plain JavaScript. */
function expectedItems(): Map<string, { row: ReturnType<typeof linkRowOf> | null; createdAt: string | null }> {
  const { wire, createdAt } = fixtureLinks();
  const items = new Map<string, { row: ReturnType<typeof linkRowOf> | null; createdAt: string | null }>();
  for (const link of wire)
    items.set(link.link_id, { row: linkRowOf(link, NOW), createdAt: createdAt.get(link.link_id) ?? null });
  items.set(UNREAD[0]!, { row: null, createdAt: null });
  for (const id of UNREAD.slice(1)) items.set(id, { row: null, createdAt: daysAgo(1) });
  return items;
}

/** The link ids the view should hold, by a reading of the filters independent of the SQL. */
export function expectedIds(params: LinkListParams): string[] {
  const ids: string[] = [];
  for (const [id, { row }] of expectedItems()) {
    const r = row;
    if (params.state && r?.state !== params.state) continue;
    if (params.error_code && r?.errorCode !== params.error_code) continue;
    if (
      params.who_acts &&
      !(r?.errorCode && LINK_ERROR_INFO[r.errorCode as LinkErrorCode]?.whoActs === params.who_acts)
    )
      continue;
    if (
      params.institution &&
      r?.institutionId !== params.institution &&
      r?.institutionName?.toLowerCase() !== params.institution.toLowerCase()
    )
      continue;
    if (params.provider && r?.provider !== params.provider) continue;
    if (params.tag && !r?.linkTags.includes(params.tag)) continue;
    if (params.product_error && !r?.productErrorCodes.includes(params.product_error)) continue;
    if (
      params.stale !== undefined &&
      r?.lastRefreshedAt &&
      r.lastRefreshedAt.getTime() >= NOW.getTime() - params.stale * DAY
    )
      continue;
    if (params.q && !id.startsWith(params.q) && !r?.linkTags.includes(params.q)) continue;
    ids.push(id);
  }
  return ids.sort();
}

/** Every page of a view in `pageSize` pages, read one by one, checking each page's count and size on the way. */
export async function allPages(
  db: Db,
  params: LinkListParams,
  pageSize: number,
): Promise<{ rows: LinkListItem[]; total: number; pages: number }> {
  const rows: LinkListItem[] = [];
  const first = await listLinks(db, params, { pageSize, now: NOW });
  rows.push(...first.rows);
  for (let page = 2; page <= first.pageCount; page++) {
    const next = await listLinks(db, { ...params, page }, { pageSize, now: NOW });
    expect(next.total).toBe(first.total);
    expect(next.rows.length).toBe(page < first.pageCount ? pageSize : first.total - pageSize * (first.pageCount - 1));
    rows.push(...next.rows);
  }
  return { rows, total: first.total, pages: first.pageCount };
}
