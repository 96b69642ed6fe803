"use server";

import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "../db/client";
import { alerts } from "../db/schema";
import { acknowledgeAlertSchema } from "../schemas/alerts";
import { ActionRefused, actionClient } from "./safe-action";

/**
 * Acknowledges an open alert (support and up): someone is on it. It stays open until its condition clears; the bell
 * stops counting it. A second acknowledgement keeps the first one's name and time.
 */
export const acknowledgeAlert = actionClient
  .metadata({ action: "alert.acknowledge", permission: "acknowledgeAlerts" })
  .inputSchema(acknowledgeAlertSchema)
  .action(async ({ parsedInput, ctx }) => {
    ctx.note({ targetType: "alert", targetId: parsedInput.alertId });
    const { db } = await getDb();
    const [updated] = await db
      .update(alerts)
      .set({ acknowledgedByEmail: ctx.staff.email, acknowledgedAt: new Date() })
      .where(and(eq(alerts.id, parsedInput.alertId), eq(alerts.state, "open"), isNull(alerts.acknowledgedAt)))
      .returning();
    if (updated)
      return { acknowledgedBy: updated.acknowledgedByEmail, acknowledgedAt: updated.acknowledgedAt!.toISOString() };
    const [alert] = await db.select().from(alerts).where(eq(alerts.id, parsedInput.alertId)).limit(1);
    if (!alert) throw new ActionRefused("No such alert: it may have been removed after 90 days.");
    if (alert.state === "resolved") throw new ActionRefused("This alert has resolved already: nothing to acknowledge.");
    return { acknowledgedBy: alert.acknowledgedByEmail, acknowledgedAt: alert.acknowledgedAt!.toISOString() };
  });
