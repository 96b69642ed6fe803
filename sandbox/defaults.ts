// Kept free of imports: the dashboard's start script and e2e setup read these without loading the sandbox itself.
export const SANDBOX_DEFAULTS = {
  host: "127.0.0.1",
  port: 4010,
  clientId: "sandbox_5c739a369515e10fc9e0",
  clientSecret: "sandbox-secret-for-local-use-only",
  tokenTtlSeconds: 3600,
  links: 2000,
  transactionsPerLink: 50,
  seed: 1,
  /** The demo product's Standard Webhooks secret: a public, local-only value, like the client secret above. */
  demoProductSecret: "whsec_c2FuZGJveC1kZW1vLXByb2R1Y3Qtc2VjcmV0LTAx",
};
