// The dashboard's sections, in sidebar order. Later issues fill the pages; roles will filter this list.
export interface NavItem {
  href: string;
  label: string;
  description: string;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { href: "/links", label: "Links", description: "Every bank connection with its state and error codes" },
  { href: "/health", label: "Health", description: "Links by state and error over time" },
  { href: "/import", label: "Import", description: "Import legacy links from JSON" },
  { href: "/exchange", label: "Exchange token", description: "Turn a front end's exchangeable token into a link" },
  { href: "/rate-limits", label: "Rate limits", description: "Headroom left under the upstream's limits" },
  { href: "/audit", label: "Audit", description: "Who changed what, and what the upstream answered" },
  { href: "/status", label: "Status", description: "Upstream reachability and access token" },
];
