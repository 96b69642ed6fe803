import { type Permission, type Role, can } from "@/lib/auth/roles";

// The dashboard's sections, in sidebar order, each with the permission it needs. Hiding an item is courtesy: every
// page and action checks the role on the server as well.
export interface NavItem {
  href: string;
  label: string;
  description: string;
  permission: Permission;
}

export const NAV_ITEMS: readonly NavItem[] = [
  {
    href: "/links",
    label: "Links",
    description: "Every bank connection with its state and error codes",
    permission: "read",
  },
  { href: "/health", label: "Health", description: "Links by state and error over time", permission: "read" },
  {
    href: "/alerts",
    label: "Alerts",
    description: "What needs attention across the fleet, and what did",
    permission: "read",
  },
  {
    href: "/jobs",
    label: "Jobs",
    description: "Bulk corrections, undos and imports running on the server",
    permission: "read",
  },
  {
    href: "/webhooks",
    label: "Webhooks",
    description: "The upstream's webhooks: verified and processed, or refused and why",
    permission: "read",
  },
  { href: "/import", label: "Import", description: "Import legacy links from JSON", permission: "import" },
  {
    href: "/reconnect",
    label: "Reconnect",
    description: "Ask broken links' end users to reconnect, and what became of each campaign",
    permission: "reconnectCampaign",
  },
  {
    href: "/exchange",
    label: "Exchange token",
    description: "Turn a front end's exchangeable token into a link",
    permission: "exchange",
  },
  {
    href: "/rate-limits",
    label: "Rate limits",
    description: "Headroom left under the upstream's limits",
    permission: "read",
  },
  {
    href: "/audit",
    label: "Audit",
    description: "Who changed what, and what the upstream answered",
    permission: "read",
  },
  { href: "/admin/staff", label: "Staff", description: "Staff accounts and their roles", permission: "manageStaff" },
  {
    href: "/admin/link-ids",
    label: "Register links",
    description: "Link ids the product's back end knows, by file",
    permission: "registerLinks",
  },
  { href: "/status", label: "Status", description: "Upstream reachability and access token", permission: "read" },
];

export function visibleNavItems(role: Role): NavItem[] {
  return NAV_ITEMS.filter((item) => can(role, item.permission));
}
