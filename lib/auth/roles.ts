// Who may do what. Enforced on the server by the action client and by every page and route; the UI only mirrors it.

export const ROLES = ["viewer", "support", "ops", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  viewer: "Viewer",
  support: "Support",
  ops: "Ops",
  admin: "Admin",
};

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: "Reads links, transactions, health, rate limits and the audit trail",
  support:
    "Viewer, plus correcting transaction categories, undoing corrections, looking up a customer's links, asking an end user to reconnect, and a link's tags, webhook and product refreshes",
  ops: "Support, plus importing links, exchanging tokens and reconnect campaigns",
  admin: "Everything, plus managing staff accounts",
};

/** Each permission lists the roles that hold it; the roles are cumulative (viewer < support < ops < admin). */
export const PERMISSIONS = {
  read: ["viewer", "support", "ops", "admin"],
  correct: ["support", "ops", "admin"],
  /** Re-reading every link spends the shared rate budget: not for read-only roles. */
  refreshAll: ["support", "ops", "admin"],
  /** Spends the upstream's per-link budget on one link: test webhooks, product refreshes, tags and webhook. */
  operateLink: ["support", "ops", "admin"],
  /** GET /users/{id}/links for a customer user: the links of one person, in any state. */
  lookupCustomer: ["support", "ops", "admin"],
  /** A relink session for a broken link, sent to the product (and by email) for its end user. */
  requestReconnect: ["support", "ops", "admin"],
  /** A reconnect request to every end user of a view's broken links, as a job (a campaign). */
  reconnectCampaign: ["ops", "admin"],
  /** Saying of an open alert that someone is on it. */
  acknowledgeAlerts: ["support", "ops", "admin"],
  import: ["ops", "admin"],
  exchange: ["ops", "admin"],
  /** Processing a stored webhook event again. */
  reprocessWebhook: ["ops", "admin"],
  /** Uploading a file of link ids the product's back end knows. */
  registerLinks: ["admin"],
  manageStaff: ["admin"],
  /** Everyone signed in manages their own account (their password). */
  ownAccount: ["viewer", "support", "ops", "admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_LABELS: Record<Permission, string> = {
  read: "read Linkdesk",
  correct: "correct transaction categories",
  refreshAll: "refresh all links (it spends the shared rate budget)",
  operateLink: "send test webhooks, refresh products and edit a link's tags and webhook",
  lookupCustomer: "look up a customer's links",
  requestReconnect: "ask an end user to reconnect a link",
  reconnectCampaign: "ask every end user of a view's broken links to reconnect",
  acknowledgeAlerts: "acknowledge alerts",
  import: "import links",
  exchange: "exchange tokens",
  reprocessWebhook: "process webhook events again",
  registerLinks: "register link ids",
  manageStaff: "manage staff accounts",
  ownAccount: "change their own password",
};

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function can(role: Role | null | undefined, permission: Permission): boolean {
  return role != null && (PERMISSIONS[permission] as readonly Role[]).includes(role);
}
