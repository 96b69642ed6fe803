"use server";

import { eq } from "drizzle-orm";
import { revalidatePath } from "next/cache";
import { generatePassword, hashPassword } from "../auth/password";
import { getDb } from "../db/client";
import { staff } from "../db/schema";
import { addStaffSchema, changeRoleSchema, staffIdSchema } from "../schemas/staff";
import { setAccountDisabled } from "../staff/access";
import { ActionRefused, actionClient } from "./safe-action";

const adminAction = (
  action: "staff.add" | "staff.change_role" | "staff.disable" | "staff.enable" | "staff.reset_password",
) => actionClient.metadata({ action, permission: "manageStaff" });

/**
 * Creates a password account and returns its one-time password (shown once, never stored in clear): it serves to sign
 * in once and choose one's own.
 */
export const addStaff = adminAction("staff.add")
  .inputSchema(addStaffSchema)
  .action(async ({ parsedInput, ctx }) => {
    const { db } = await getDb();
    const password = generatePassword();
    const [row] = await db
      .insert(staff)
      .values({
        email: parsedInput.email,
        name: parsedInput.name || null,
        role: parsedInput.role,
        passwordHash: await hashPassword(password),
        passwordChangeRequired: true,
      })
      .onConflictDoNothing()
      .returning({ id: staff.id });
    ctx.note({ targetType: "staff", targetId: row?.id, input: { email: parsedInput.email, role: parsedInput.role } });
    if (!row) throw new ActionRefused(`An account for ${parsedInput.email} already exists.`);
    ctx.note({ after: { email: parsedInput.email, role: parsedInput.role } });
    revalidatePath("/admin/staff");
    return { id: row.id, email: parsedInput.email, password };
  });

async function loadTarget(staffId: string) {
  const { db } = await getDb();
  const [row] = await db.select().from(staff).where(eq(staff.id, staffId)).limit(1);
  if (!row) throw new ActionRefused("That staff account does not exist.");
  return { db, row };
}

export const changeRole = adminAction("staff.change_role")
  .inputSchema(changeRoleSchema)
  .action(async ({ parsedInput, ctx }) => {
    const { db, row } = await loadTarget(parsedInput.staffId);
    ctx.note({ targetType: "staff", targetId: row.id, input: { role: parsedInput.role }, before: { role: row.role } });
    if (row.id === ctx.staff.id) throw new ActionRefused("You cannot change your own role: ask another admin.");
    await db.update(staff).set({ role: parsedInput.role }).where(eq(staff.id, row.id));
    ctx.note({ after: { role: parsedInput.role } });
    revalidatePath("/admin/staff");
    return { id: row.id, role: parsedInput.role };
  });

export const disableStaff = adminAction("staff.disable")
  .inputSchema(staffIdSchema)
  .action(async ({ parsedInput, ctx }) => {
    const { db, row } = await loadTarget(parsedInput.staffId);
    ctx.note({ targetType: "staff", targetId: row.id, before: { disabled: row.disabledAt !== null } });
    if (row.id === ctx.staff.id) throw new ActionRefused("You cannot disable your own account.");
    // Ends the account's sessions for good: enabling it later does not revive them.
    await setAccountDisabled(db, row.id, true);
    ctx.note({ after: { disabled: true } });
    revalidatePath("/admin/staff");
    return { id: row.id };
  });

export const enableStaff = adminAction("staff.enable")
  .inputSchema(staffIdSchema)
  .action(async ({ parsedInput, ctx }) => {
    const { db, row } = await loadTarget(parsedInput.staffId);
    ctx.note({ targetType: "staff", targetId: row.id, before: { disabled: row.disabledAt !== null } });
    await setAccountDisabled(db, row.id, false);
    ctx.note({ after: { disabled: false } });
    revalidatePath("/admin/staff");
    return { id: row.id };
  });

export const resetStaffPassword = adminAction("staff.reset_password")
  .inputSchema(staffIdSchema)
  .action(async ({ parsedInput, ctx }) => {
    const { db, row } = await loadTarget(parsedInput.staffId);
    ctx.note({ targetType: "staff", targetId: row.id });
    if (row.authSource !== "password")
      throw new ActionRefused("This account signs in through the company identity provider.");
    const password = generatePassword();
    // The reset password serves once too; sessions opened with the old one end.
    await db
      .update(staff)
      .set({ passwordHash: await hashPassword(password), passwordChangeRequired: true, sessionsValidAfter: new Date() })
      .where(eq(staff.id, row.id));
    return { id: row.id, email: row.email, password };
  });
