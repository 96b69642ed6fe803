// Request counters for GET /_sandbox/stats: integration runs assert "no 429s" and see which endpoints were hit.

export interface EndpointStats {
  requests: number;
  rateLimited: number;
  statuses: Record<string, number>;
}

export class Stats {
  requests = 0;
  rateLimited = 0;
  byEndpoint: Record<string, EndpointStats> = {};
  /** Changes made: each POST/PATCH/DELETE answered 2xx, by method and concrete path ("exactly once" is checked here). */
  applied: Record<string, number> = {};

  record(endpoint: string, status: number, request?: string): void {
    this.requests++;
    if (request && !request.startsWith("GET ") && status >= 200 && status < 300)
      this.applied[request] = (this.applied[request] ?? 0) + 1;
    if (status === 429) this.rateLimited++;
    const entry = (this.byEndpoint[endpoint] ??= { requests: 0, rateLimited: 0, statuses: {} });
    entry.requests++;
    if (status === 429) entry.rateLimited++;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
  }

  snapshot(): {
    requests: number;
    rateLimited: number;
    byEndpoint: Record<string, EndpointStats>;
    applied: Record<string, number>;
  } {
    return {
      requests: this.requests,
      rateLimited: this.rateLimited,
      byEndpoint: structuredClone(this.byEndpoint),
      applied: { ...this.applied },
    };
  }

  reset(): void {
    this.requests = 0;
    this.rateLimited = 0;
    this.byEndpoint = {};
    this.applied = {};
  }
}
