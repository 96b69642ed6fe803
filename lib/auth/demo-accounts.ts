import "server-only";
import { inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { staff } from "../db/schema";
import { DEMO_ACCOUNTS } from "./demo";
import { hashPassword } from "./password";

/** Creates the demo accounts that are missing (demo mode only). Existing ones, even disabled, are left alone. */
export async function ensureDemoAccounts(db: Db): Promise<void> {
  const existing = await db
    .select({ email: staff.email })
    .from(staff)
    .where(
      inArray(
        staff.email,
        DEMO_ACCOUNTS.map((a) => a.email),
      ),
    );
  const have = new Set(existing.map((r) => r.email));
  const missing = DEMO_ACCOUNTS.filter((a) => !have.has(a.email));
  if (missing.length === 0) return;
  const rows = await Promise.all(
    missing.map(async (a) => ({
      email: a.email,
      name: a.name,
      role: a.role,
      passwordHash: await hashPassword(a.password),
    })),
  );
  await db.insert(staff).values(rows).onConflictDoNothing();
}
