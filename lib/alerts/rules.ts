import "server-only";
import { and, isNotNull, ne, sql } from "drizzle-orm";
import type { AlertSeverity } from "../db/schema";
import type { Db } from "../db/client";
import { links } from "../db/schema";
import { errorCodesActedOnBy } from "../links/error-codes";
import { linkListSearchParams } from "../links/list-params";
import { OUTAGE_CODES, OUTAGE_MIN_LINKS, OUTAGE_SHARE } from "../reconnect/outage";

// The alert catalogue: each rule reads Linkdesk's read model and names what holds now, one finding per subject (an
// institution, a provider, or the fleet). An outage here is what holds a reconnect campaign's requests back
// (lib/reconnect/outage.ts): a tenth of a place's read links, and at least three, so the two never disagree. Errors the
// end user must fix are kept apart from outages. Thresholds are the defaults; they are not yet editable.

export interface Finding {
  subject: string;
  /** The subject as people know it (an institution's name, from the upstream: text only). */
  subjectLabel: string | null;
  value: number;
  threshold: number;
  summary: string;
  /** The links it concerns, as a links-list query string. */
  linksQuery: string;
}

export interface AlertRule {
  id: string;
  label: string;
  severity: AlertSeverity;
  /** When it opens, in words, with its threshold. */
  condition: string;
  evaluate(db: Db): Promise<Finding[]>;
}

/** A share of a place's links needing their user at which an institution alerts, and the least count. */
export const USER_ERROR_SHARE = 0.2;
export const USER_ERROR_MIN_LINKS = 10;
/** Fleet-wide links needing their user at which the fleet alerts. */
export const FLEET_NEEDS_USER = 500;

const pct = (n: number, of: number) => `${Math.round((100 * n) / Math.max(1, of))} %`;
const count = (n: number) => n.toLocaleString("en-US");
const readLinks = and(isNotNull(links.state), ne(links.state, "deleted"));
const USER_CODES = errorCodesActedOnBy("user");
const inList = (codes: readonly string[]) =>
  sql.join(
    codes.map((c) => sql`${c}`),
    sql`, `,
  );

/** Per institution: its read links, the links in a code, and its name. */
async function byInstitution(db: Db, codes: readonly string[]) {
  const rows = await db
    .select({
      id: links.institutionId,
      name: sql<string | null>`max(${links.institutionName})`,
      read: sql<number>`count(*)::int`,
      hit: sql<number>`(count(*) filter (where ${links.state} = 'error' and ${links.errorCode} in (${inList(codes)})))::int`,
    })
    .from(links)
    .where(and(readLinks, isNotNull(links.institutionId)))
    .groupBy(links.institutionId);
  return rows.map((r) => ({ id: r.id!, name: r.name, read: Number(r.read), hit: Number(r.hit) }));
}

export const ALERT_RULES: readonly AlertRule[] = [
  {
    id: "institution_outage",
    label: "Institution outage",
    severity: "critical",
    condition: `A tenth or more of an institution's links (and at least ${OUTAGE_MIN_LINKS}) are in Institution outage`,
    async evaluate(db) {
      return (await byInstitution(db, [OUTAGE_CODES.institution]))
        .filter((r) => r.hit >= OUTAGE_MIN_LINKS && r.hit >= OUTAGE_SHARE * r.read)
        .map((r) => ({
          subject: r.id,
          subjectLabel: r.name,
          value: r.hit,
          threshold: Math.max(OUTAGE_MIN_LINKS, Math.ceil(OUTAGE_SHARE * r.read)),
          summary: `${r.name ?? r.id}: ${count(r.hit)} of ${count(r.read)} links in Institution outage (${pct(r.hit, r.read)})`,
          linksQuery: linkListSearchParams({ institution: r.id, error_code: OUTAGE_CODES.institution }).toString(),
        }));
    },
  },
  {
    id: "provider_outage",
    label: "Provider outage",
    severity: "critical",
    condition: `A tenth or more of a provider's links (and at least ${OUTAGE_MIN_LINKS}) are in Provider outage`,
    async evaluate(db) {
      const rows = await db
        .select({
          provider: links.provider,
          read: sql<number>`count(*)::int`,
          hit: sql<number>`(count(*) filter (where ${links.state} = 'error' and ${links.errorCode} = ${OUTAGE_CODES.provider}))::int`,
        })
        .from(links)
        .where(and(readLinks, isNotNull(links.provider)))
        .groupBy(links.provider);
      return rows
        .map((r) => ({ provider: r.provider!, read: Number(r.read), hit: Number(r.hit) }))
        .filter((r) => r.hit >= OUTAGE_MIN_LINKS && r.hit >= OUTAGE_SHARE * r.read)
        .map((r) => ({
          subject: r.provider,
          subjectLabel: r.provider,
          value: r.hit,
          threshold: Math.max(OUTAGE_MIN_LINKS, Math.ceil(OUTAGE_SHARE * r.read)),
          summary: `Provider ${r.provider}: ${count(r.hit)} of ${count(r.read)} links in Provider outage (${pct(r.hit, r.read)})`,
          linksQuery: linkListSearchParams({ provider: r.provider, error_code: OUTAGE_CODES.provider }).toString(),
        }));
    },
  },
  {
    id: "institution_needs_user",
    label: "Many links at one institution need their user",
    severity: "warning",
    condition: `A fifth or more of an institution's links (and at least ${USER_ERROR_MIN_LINKS}) are in an error the end user must fix`,
    async evaluate(db) {
      return (await byInstitution(db, USER_CODES))
        .filter((r) => r.hit >= USER_ERROR_MIN_LINKS && r.hit >= USER_ERROR_SHARE * r.read)
        .map((r) => ({
          subject: r.id,
          subjectLabel: r.name,
          value: r.hit,
          threshold: Math.max(USER_ERROR_MIN_LINKS, Math.ceil(USER_ERROR_SHARE * r.read)),
          summary: `${r.name ?? r.id}: ${count(r.hit)} of ${count(r.read)} links need their user to reconnect or act (${pct(r.hit, r.read)})`,
          linksQuery: linkListSearchParams({ institution: r.id, who_acts: "user" }).toString(),
        }));
    },
  },
  {
    id: "fleet_needs_user",
    label: "Links needing their user",
    severity: "info",
    condition: `${count(FLEET_NEEDS_USER)} or more links across the fleet are in an error the end user must fix`,
    async evaluate(db) {
      const [row] = await db
        .select({
          hit: sql<number>`(count(*) filter (where ${links.state} = 'error' and ${links.errorCode} in (${inList(USER_CODES)})))::int`,
        })
        .from(links);
      const hit = Number(row?.hit ?? 0);
      if (hit < FLEET_NEEDS_USER) return [];
      return [
        {
          subject: "",
          subjectLabel: null,
          value: hit,
          threshold: FLEET_NEEDS_USER,
          summary: `${count(hit)} links need their user to reconnect or act`,
          linksQuery: linkListSearchParams({ who_acts: "user" }).toString(),
        },
      ];
    },
  },
];

export function ruleById(id: string): AlertRule | undefined {
  return ALERT_RULES.find((r) => r.id === id);
}
