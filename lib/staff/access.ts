import "server-only";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { staff } from "../db/schema";

/**
 * Disables or enables an account (the Staff page and `npm run staff`); false when it already was so. Either change
 * moves the account's session cutoff (sessions_valid_after) to now, never back: disabling ends every session for good,
 * and enabling starts afresh, so it revives neither a session from before the disable nor one whose sign-in was being
 * checked while the account was disabled. Disabling twice keeps the first date: since when the account was unusable.
 */
export async function setAccountDisabled(db: Db, staffId: string, disabled: boolean): Promise<boolean> {
  const now = new Date();
  const changed = await db
    .update(staff)
    .set({
      disabledAt: disabled ? now : null,
      sessionsValidAfter: sql`greatest(${staff.sessionsValidAfter}, ${now.toISOString()}::timestamptz)`,
    })
    // The state in the condition: of two admins changing it at once, one changes it, and neither moves it back.
    .where(and(eq(staff.id, staffId), disabled ? isNull(staff.disabledAt) : isNotNull(staff.disabledAt)))
    .returning({ id: staff.id });
  return changed.length > 0;
}
