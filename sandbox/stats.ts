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

  record(endpoint: string, status: number): void {
    this.requests++;
    if (status === 429) this.rateLimited++;
    const entry = (this.byEndpoint[endpoint] ??= { requests: 0, rateLimited: 0, statuses: {} });
    entry.requests++;
    if (status === 429) entry.rateLimited++;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
  }

  snapshot(): { requests: number; rateLimited: number; byEndpoint: Record<string, EndpointStats> } {
    return { requests: this.requests, rateLimited: this.rateLimited, byEndpoint: structuredClone(this.byEndpoint) };
  }

  reset(): void {
    this.requests = 0;
    this.rateLimited = 0;
    this.byEndpoint = {};
  }
}
