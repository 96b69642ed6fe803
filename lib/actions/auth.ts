"use server";

import { randomUUID } from "node:crypto";
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { eq } from "drizzle-orm";
import { appendAudit } from "../audit/append";
import { getDb } from "../db/client";
import { staff as staffTable } from "../db/schema";
import { clientAddress, currentStaff, signIn, signOut } from "../auth";
import { safeCallbackPath, signInSchema } from "../schemas/auth";

export type SignInState = { error?: string; fieldErrors?: Partial<Record<"email" | "password", string[]>> } | undefined;

/** Password sign-in. Says only "wrong email or password", never which, and how long a lock lasts. */
export async function signInAction(_previous: SignInState, formData: FormData): Promise<SignInState> {
  const parsed = signInSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) {
    const fieldErrors = parsed.error.flatten().fieldErrors;
    return { fieldErrors: { email: fieldErrors.email, password: fieldErrors.password } };
  }
  try {
    await signIn("credentials", { email: parsed.data.email, password: parsed.data.password, redirect: false });
  } catch (error) {
    if (error instanceof AuthError) {
      const code = (error as AuthError & { code?: string }).code ?? "";
      if (code.startsWith("locked:")) {
        const minutes = Math.max(1, Math.ceil((Number(code.slice(7)) - Date.now()) / 60_000));
        return { error: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.` };
      }
      return { error: "Wrong email or password." };
    }
    throw error;
  }
  redirect(safeCallbackPath(parsed.data.callbackUrl));
}

export async function signOutAction(): Promise<void> {
  const staff = await currentStaff();
  if (staff) {
    // Ends every session of this person on the server; clearing the cookie alone could be undone by a response in flight.
    const { db } = await getDb();
    await db.update(staffTable).set({ sessionsValidAfter: new Date() }).where(eq(staffTable.id, staff.id));
    await appendAudit({
      actor: { id: staff.id, email: staff.email, role: staff.role },
      action: "auth.sign_out",
      outcome: "ok",
      correlationId: randomUUID(),
      ip: clientAddress(await headers()),
    });
  }
  await signOut({ redirectTo: "/sign-in" });
}
