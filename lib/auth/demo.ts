import type { Role } from "./roles";

// Demo mode (the dashboard on the bundled sandbox) has one account per role, listed on the sign-in page. Against a
// real upstream these accounts are neither created nor accepted.
export const DEMO_DOMAIN = "demo.linkdesk.test";

export const DEMO_ACCOUNTS: readonly { email: string; password: string; role: Role; name: string }[] = [
  { email: `viewer@${DEMO_DOMAIN}`, password: "demo-viewer", role: "viewer", name: "Vera Viewer" },
  { email: `support@${DEMO_DOMAIN}`, password: "demo-support", role: "support", name: "Sam Support" },
  { email: `ops@${DEMO_DOMAIN}`, password: "demo-ops", role: "ops", name: "Omar Ops" },
  { email: `admin@${DEMO_DOMAIN}`, password: "demo-admin", role: "admin", name: "Ada Admin" },
];

export function isDemoEmail(email: string): boolean {
  return email.toLowerCase().endsWith(`@${DEMO_DOMAIN}`);
}
