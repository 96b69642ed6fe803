// Staged outages: what the real service goes through and the demo and the tests need to see happen. An institution's
// (or a provider's) links go to `institution_error` (`provider_error`) for a while and come back by themselves; a wave
// of `auth_expired` takes a share of connected links down until their users reconnect; a webhook pause holds every
// delivery until it ends (the upstream's sender down, or a receiver that cannot be reached), then sends them late.
// Every state change is heard by the link's webhook, as any other is. A reset ends them all without restoring.
import type { SandboxWorld } from "./context";
import type { LinkRecord } from "./types";
import { notifyStateChanged } from "./webhook-events";

export type OutageKind = "institution" | "provider" | "auth_expired" | "webhook_pause";

export interface OutageRequest {
  kind: OutageKind;
  /** Whose links: an institution (institution, auth_expired) or a provider (provider). */
  institution_id?: string;
  provider?: string;
  /** The share of the matching connected links it takes down (default 1; auth_expired's default 0.2). */
  share?: number;
  /** How long it lasts (institution, provider, webhook_pause); auth_expired lasts until each user reconnects. */
  duration_s?: number;
}

export interface StagedOutage {
  id: string;
  kind: OutageKind;
  institution_id: string | null;
  provider: string | null;
  /** The links it took down. */
  link_ids: string[];
  started_at: string;
  /** When it ends (or ended); null: it lasts until each link's user reconnects. */
  ends_at: string | null;
  state: "active" | "ended";
}

const CODE: Partial<Record<OutageKind, NonNullable<LinkRecord["error_code"]>>> = {
  institution: "institution_error",
  provider: "provider_error",
  auth_expired: "auth_expired",
};

export class Outages {
  private staged: StagedOutage[] = [];
  private counter = 0;

  constructor(private readonly world: () => SandboxWorld) {}

  list(): StagedOutage[] {
    return this.staged.map((o) => ({ ...o, link_ids: [...o.link_ids] }));
  }

  stage(request: OutageRequest): StagedOutage {
    const world = this.world();
    const now = world.options.now();
    const durationMs = request.duration_s === undefined ? null : request.duration_s * 1000;
    const outage: StagedOutage = {
      id: `outage_${++this.counter}`,
      kind: request.kind,
      institution_id: request.institution_id ?? null,
      provider: request.provider ?? null,
      link_ids: [],
      started_at: new Date(now).toISOString(),
      ends_at: durationMs === null ? null : new Date(now + durationMs).toISOString(),
      state: "active",
    };
    this.staged.push(outage);
    if (request.kind === "webhook_pause") {
      world.webhooks.pause(now + (durationMs ?? 0));
    } else {
      const code = CODE[request.kind]!;
      const matching = this.connectedLinks(request);
      const share = request.share ?? (request.kind === "auth_expired" ? 0.2 : 1);
      const taken = matching.slice(0, Math.ceil(share * matching.length));
      for (const link of taken) {
        world.store.setState(link, "error", code);
        notifyStateChanged(world, link);
      }
      outage.link_ids = taken.map((l) => l.link_id);
    }
    if (durationMs !== null) world.later(durationMs, () => this.end(outage.id));
    return { ...outage, link_ids: [...outage.link_ids] };
  }

  /** Ends an outage now: its links still in its error come back connected, a paused sender resumes. */
  end(id: string): StagedOutage | null {
    const outage = this.staged.find((o) => o.id === id);
    if (!outage) return null;
    if (outage.state === "ended") return outage;
    const world = this.world();
    outage.state = "ended";
    outage.ends_at = new Date(world.options.now()).toISOString();
    if (outage.kind === "webhook_pause") {
      world.webhooks.pause(0);
    } else if (outage.kind !== "auth_expired") {
      for (const linkId of outage.link_ids) {
        const link = world.store.getLink(linkId);
        if (!link || link.state !== "error" || link.error_code !== CODE[outage.kind]) continue;
        world.store.setState(link, "connected", null);
        notifyStateChanged(world, link);
      }
    }
    return outage;
  }

  /** Forgets every outage (a reset: the links are reset too). */
  clear(): void {
    this.staged = [];
    this.world().webhooks.pause(0);
  }

  private connectedLinks(request: OutageRequest): LinkRecord[] {
    const { store } = this.world();
    const out: LinkRecord[] = [];
    for (const id of store.allLinkIds()) {
      const link = store.getLink(id);
      if (!link || link.state !== "connected") continue;
      if (request.institution_id !== undefined && link.institution_id !== request.institution_id) continue;
      if (request.kind === "provider" && link.provider !== request.provider) continue;
      out.push(link);
    }
    return out;
  }
}
