"use server";

import { randomUUID } from "node:crypto";
import type { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { eq } from "drizzle-orm";
import { appendAudit } from "../audit/append";
import { getDb } from "../db/client";
import { staff as staffTable } from "../db/schema";
import { clientAddress, sessionAccount, signIn, signOut, ssoProvider } from "../auth";
import { safeRedirectPath } from "../http/redirect-target";
import { signInSchema } from "../schemas/auth";

/** Auth.js's errors carry their `type` ("CredentialsSignin"): recognised by it, as instanceof fails across server chunks. */
function isAuthJsError(error: unknown): error is AuthError {
  return error instanceof Error && typeof (error as { type?: unknown }).type === "string";
}

export type SignInState = { error?: string; fieldErrors?: Partial<Record<"email" | "password", string[]>> } | undefined;

/** Password sign-in. Says only "wrong email or password", never which, and how long a lock lasts. */
export async function signInAction(_previous: SignInState, formData: FormData): Promise<SignInState> {
  // A direct POST can send anything: only a form's fields are read.
  if (!(formData instanceof FormData)) return { error: "Send the email and password as form fields." };
  const parsed = signInSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) {
    const fieldErrors = parsed.error.flatten().fieldErrors;
    return { fieldErrors: { email: fieldErrors.email, password: fieldErrors.password } };
  }
  try {
    await signIn("credentials", { email: parsed.data.email, password: parsed.data.password, redirect: false });
  } catch (error) {
    if (isAuthJsError(error)) {
      const code = (error as AuthError & { code?: string }).code ?? "";
      if (code.startsWith("locked:")) {
        const minutes = Math.max(1, Math.ceil((Number(code.slice(7)) - Date.now()) / 60_000));
        return { error: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.` };
      }
      return { error: "Wrong email or password." };
    }
    throw error;
  }
  redirect(safeRedirectPath(parsed.data.callbackUrl));
}

/**
 * Single sign-on through the company identity provider, then back to `callbackUrl` (a path on Linkdesk, checked). Does
 * nothing when no identity provider is configured.
 */
export async function signInWithSso(callbackUrl: unknown): Promise<void> {
  const sso = ssoProvider();
  if (!sso) return;
  await signIn(sso.id, { redirectTo: safeRedirectPath(callbackUrl) });
}

export async function signOutAction(): Promise<void> {
  // Anyone with a session, one who has not yet replaced a one-time password included.
  const staff = await sessionAccount();
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
