"use server";

import { eq } from "drizzle-orm";
import { signIn } from "../auth";
import { isDemoEmail } from "../auth/demo";
import { hashPassword, verifyPassword } from "../auth/password";
import { getDb } from "../db/client";
import { staff } from "../db/schema";
import { logger } from "../logger";
import { changePasswordSchema } from "../schemas/auth";
import { ActionRefused, actionClient } from "./safe-action";

/**
 * Anyone signed in with a password changes it: the current one first, then a new one under the sign-in rules. The
 * only action allowed to a person who signed in with a one-time password. Every other session of the person ends;
 * this one goes on with a fresh session cookie.
 */
export const changeOwnPassword = actionClient
  .metadata({ action: "auth.change_password", permission: "ownAccount" })
  .inputSchema(changePasswordSchema)
  .action(async ({ parsedInput, ctx }): Promise<{ signedInAgain: boolean }> => {
    ctx.note({ targetType: "staff", targetId: ctx.staff.id });
    const { db } = await getDb();
    const [row] = await db.select().from(staff).where(eq(staff.id, ctx.staff.id)).limit(1);
    if (!row || row.authSource !== "password" || row.passwordHash === null) {
      throw new ActionRefused(
        "Your account signs in through the company identity provider: it has no Linkdesk password to change.",
      );
    }
    // Their passwords are printed on the sign-in page for everyone trying the sandbox.
    if (isDemoEmail(row.email)) throw new ActionRefused("Demo accounts keep the password shown on the sign-in page.");
    if (!(await verifyPassword(parsedInput.currentPassword, row.passwordHash))) {
      ctx.note({ input: { reason: "current password wrong" } });
      throw new ActionRefused("That is not your current password. Nothing was changed.");
    }
    await db
      .update(staff)
      .set({
        passwordHash: await hashPassword(parsedInput.newPassword),
        passwordChangeRequired: false,
        sessionsValidAfter: new Date(),
      })
      .where(eq(staff.id, row.id));
    ctx.note({
      before: { passwordChangeRequired: row.passwordChangeRequired },
      after: { passwordChangeRequired: false, otherSessionsEnded: true },
    });
    // The update ended every session of this person, this one included: a new one, signed in with the new password.
    try {
      await signIn("credentials", { email: row.email, password: parsedInput.newPassword, redirect: false });
      return { signedInAgain: true };
    } catch (error) {
      logger().warn({ err: error, staffId: row.id }, "signing in again after a password change failed");
      return { signedInAgain: false };
    }
  });
