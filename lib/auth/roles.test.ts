import { describe, expect, it } from "vitest";
import { PERMISSIONS, ROLES, can } from "./roles";

describe("roles", () => {
  it("grants each role what its job needs, cumulatively", () => {
    const table = Object.fromEntries(
      ROLES.map((role) => [role, Object.keys(PERMISSIONS).filter((p) => can(role, p as never))]),
    );
    expect(table).toEqual({
      viewer: ["read", "ownAccount"],
      support: [
        "read",
        "correct",
        "refreshAll",
        "operateLink",
        "lookupCustomer",
        "requestReconnect",
        "acknowledgeAlerts",
        "ownAccount",
      ],
      ops: [
        "read",
        "correct",
        "refreshAll",
        "operateLink",
        "lookupCustomer",
        "requestReconnect",
        "reconnectCampaign",
        "acknowledgeAlerts",
        "import",
        "exchange",
        "reprocessWebhook",
        "ownAccount",
      ],
      admin: [
        "read",
        "correct",
        "refreshAll",
        "operateLink",
        "lookupCustomer",
        "requestReconnect",
        "reconnectCampaign",
        "acknowledgeAlerts",
        "import",
        "exchange",
        "reprocessWebhook",
        "registerLinks",
        "manageStaff",
        "ownAccount",
      ],
    });
  });

  it("grants nothing to nobody or to an unknown role", () => {
    expect(can(null, "read")).toBe(false);
    expect(can(undefined, "read")).toBe(false);
    expect(can("superuser" as never, "read")).toBe(false);
  });
});
