import "server-only";
import { and, eq, lt, notInArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { alerts, links } from "../db/schema";
import { isWhole } from "../links/health-change";
import { ALERT_RULES, type AlertRule } from "./rules";

// One evaluation of the catalogue against the read model: a finding with no open alert opens one, an open alert is
// kept current (its value, its peak), and an open alert whose finding is gone resolves. Run by the instance that holds
// the links sync, after each run (lib/sync/engine.ts); two instances evaluating at once still open each alert once (the
// partial unique index on open alerts). While the read model is not whole (a first sync reading), nothing is evaluated:
// counts of a few links read would open alerts, and resolve the real ones.

/** Resolved alerts are kept this long (their history). */
export const KEPT_DAYS = 90;

export interface Evaluation {
  opened: number;
  resolved: number;
  open: number;
  /** Why nothing was evaluated, in words; null when it was. */
  skipped: string | null;
}

export async function evaluateAlerts(
  db: Db,
  { now = new Date(), rules = ALERT_RULES }: { now?: Date; rules?: readonly AlertRule[] } = {},
): Promise<Evaluation> {
  const [fleet] = await db
    .select({ total: sql<number>`count(*)::int`, read: sql<number>`count(${links.state})::int` })
    .from(links);
  if (!isWhole(Number(fleet?.total ?? 0), Number(fleet?.read ?? 0)))
    return { opened: 0, resolved: 0, open: 0, skipped: "The read model is still being read: no alert is evaluated." };
  let opened = 0;
  let resolved = 0;
  let open = 0;
  for (const rule of rules) {
    const findings = await rule.evaluate(db);
    open += findings.length;
    for (const f of findings) {
      const inserted = await db
        .insert(alerts)
        .values({
          rule: rule.id,
          subject: f.subject,
          subjectLabel: f.subjectLabel,
          severity: rule.severity,
          summary: f.summary,
          linksQuery: f.linksQuery,
          value: f.value,
          peak: f.value,
          threshold: f.threshold,
          openedAt: now,
          lastSeenAt: now,
        })
        .onConflictDoNothing()
        .returning({ id: alerts.id });
      if (inserted.length > 0) {
        opened++;
        continue;
      }
      await db
        .update(alerts)
        .set({
          value: f.value,
          peak: sql`greatest(${alerts.peak}, ${f.value})`,
          summary: f.summary,
          subjectLabel: f.subjectLabel,
          threshold: f.threshold,
          lastSeenAt: now,
        })
        .where(and(eq(alerts.rule, rule.id), eq(alerts.subject, f.subject), eq(alerts.state, "open")));
    }
    const holding = findings.map((f) => f.subject);
    const gone = await db
      .update(alerts)
      .set({ state: "resolved", resolvedAt: now })
      .where(
        and(
          eq(alerts.rule, rule.id),
          eq(alerts.state, "open"),
          holding.length > 0 ? notInArray(alerts.subject, holding) : undefined,
        ),
      )
      .returning({ id: alerts.id });
    resolved += gone.length;
  }
  // Resolved alerts are kept 90 days.
  await db
    .delete(alerts)
    .where(and(eq(alerts.state, "resolved"), lt(alerts.resolvedAt, new Date(now.getTime() - KEPT_DAYS * 86_400_000))));
  return { opened, resolved, open, skipped: null };
}
