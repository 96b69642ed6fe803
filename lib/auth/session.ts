import { isDemoEmail } from "./demo";
import { isRole } from "./roles";

/** What decides whether a session still stands: the account as the database holds it now. */
export interface SessionHolder {
  email: string;
  role: string;
  disabledAt: Date | null;
  sessionsValidAfter: Date | null;
}

/**
 * Whether a session that began at `signedInAt` (the cookie's sign-in time) still stands for this account on an
 * instance in this mode. Whatever the cookie says, a disabled account, a session from before the account's cutoff
 * (sign-out, password change, disable, enable) and a demo account outside demo mode are signed out.
 */
export function sessionStands(
  account: SessionHolder,
  signedInAt: number | undefined,
  instance: { demoMode: boolean },
): boolean {
  if (account.disabledAt !== null || !isRole(account.role)) return false;
  // Demo accounts sign in only in demo mode; a database that was once a demo's may still hold them.
  if (!instance.demoMode && isDemoEmail(account.email)) return false;
  // A session older than the cutoff is over, even if a late response re-set its cookie.
  if (account.sessionsValidAfter && (signedInAt ?? 0) <= account.sessionsValidAfter.getTime()) return false;
  return true;
}
