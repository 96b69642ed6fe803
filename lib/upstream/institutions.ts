import "server-only";
import { type UpstreamApi, upstream } from "./index";
import { isUpstreamError } from "./errors";

// Institution names by id, for screens that hold only ids (the import preview). Each id costs one
// GET /institutions/{institution_id} (400/min per app upstream, shared through the rate budget), so answers are kept
// in this process: names change rarely, and an id the upstream does not know is remembered for a shorter while.

const KNOWN_TTL_MS = 24 * 60 * 60_000;
const UNKNOWN_TTL_MS = 60 * 60_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  name: string | null;
  expiresAt: number;
}

export interface InstitutionNameCache {
  /**
   * The institution's name, or null when the upstream has no institution with that id (404). Throws what the call
   * threw otherwise (UpstreamError, BudgetExceeded, BudgetUnavailable): then nothing is known, and nothing is cached.
   */
  institutionName(institutionId: string): Promise<string | null>;
  /**
   * Names of several ids (each distinct id asked once, one after the other, within the rate budget). Stops at the
   * first failure that is not "unknown id": `missing` lists the ids not looked up and `problem` holds the failure.
   */
  institutionNames(
    institutionIds: Iterable<string>,
  ): Promise<{ names: Map<string, string | null>; missing: string[]; problem?: unknown }>;
  /** Forgets every cached answer (tests). */
  clear(): void;
}

export function createInstitutionNameCache(api: () => UpstreamApi, now: () => number = Date.now): InstitutionNameCache {
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<string | null>>();

  function remember(id: string, name: string | null) {
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(id, { name, expiresAt: now() + (name === null ? UNKNOWN_TTL_MS : KNOWN_TTL_MS) });
  }

  async function lookUp(id: string): Promise<string | null> {
    try {
      const institution = await api().getInstitution(id);
      remember(id, institution.name);
      return institution.name;
    } catch (error) {
      if (isUpstreamError(error) && error.status === 404) {
        remember(id, null);
        return null;
      }
      throw error;
    }
  }

  async function institutionName(institutionId: string): Promise<string | null> {
    const cached = entries.get(institutionId);
    if (cached && cached.expiresAt > now()) return cached.name;
    // Concurrent screens asking for the same id share one call.
    let pending = inFlight.get(institutionId);
    if (!pending) {
      pending = lookUp(institutionId).finally(() => inFlight.delete(institutionId));
      inFlight.set(institutionId, pending);
    }
    return pending;
  }

  return {
    institutionName,
    async institutionNames(institutionIds) {
      const names = new Map<string, string | null>();
      const ids = [...new Set(institutionIds)];
      for (let i = 0; i < ids.length; i++) {
        try {
          names.set(ids[i]!, await institutionName(ids[i]!));
        } catch (problem) {
          return { names, missing: ids.slice(i), problem };
        }
      }
      return { names, missing: [] };
    },
    clear() {
      entries.clear();
    },
  };
}

const shared = createInstitutionNameCache(upstream);

/** The institution's name (cached in this process), or null when the upstream does not know the id. */
export const institutionName = shared.institutionName;
/** Names of several institution ids at once; see InstitutionNameCache.institutionNames. */
export const institutionNames = shared.institutionNames;
