import type { Role } from "./roles";

// The rule that admits users of the company identity provider (OpenID Connect) and gives them a role.

export interface SsoRule {
  /** Lower-case email domains allowed to sign in; empty admits nobody. */
  allowedDomains: string[];
  /** Role of a first-time single-sign-on user; admins can change it later on the Staff page. */
  defaultRole: Role;
}

export type SsoDecision = { admit: true; email: string; role: Role } | { admit: false; reason: string };

export function decideSso(
  rule: SsoRule,
  profile: { email?: string | null; email_verified?: boolean | null },
): SsoDecision {
  const email = profile.email?.trim().toLowerCase();
  if (!email || !email.includes("@"))
    return { admit: false, reason: "The identity provider did not share an email address." };
  if (profile.email_verified === false)
    return { admit: false, reason: "The identity provider has not verified this email address." };
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (!rule.allowedDomains.includes(domain))
    return { admit: false, reason: `Accounts of ${domain} may not use Linkdesk.` };
  return { admit: true, email, role: rule.defaultRole };
}
