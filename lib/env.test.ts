import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv, parseLauncherEnv } from "./env";

const valid = {
  UPSTREAM_BASE_URL: "https://api.example.com/",
  UPSTREAM_CLIENT_ID: "live_5c739a369515e10fc9e0",
  UPSTREAM_CLIENT_SECRET: "s3cret",
  AUTH_SECRET: "0123456789abcdef0123456789abcdef",
};

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("parseEnv", () => {
  it("reads a valid configuration with defaults", () => {
    const env = parseEnv(valid);
    expect(env.UPSTREAM_BASE_URL).toBe("https://api.example.com");
    expect(env.UPSTREAM_TIMEOUT_MS).toBe(10_000);
    expect(env.UPSTREAM_IMPORT_TIMEOUT_MS).toBe(30_000);
    expect(env.UPSTREAM_SANDBOX).toBe(false);
    expect(env.SESSION_MAX_AGE_HOURS).toBe(8);
    expect(env.SHUTDOWN_TIMEOUT_S).toBe(10);
    expect(parseEnv({ ...valid, SHUTDOWN_TIMEOUT_S: "2.5" }).SHUTDOWN_TIMEOUT_S).toBe(2.5);
    expect(
      parseEnv({ ...valid, AUTH_OIDC_ALLOWED_DOMAINS: "Example.com, corp.example.com" }).AUTH_OIDC_ALLOWED_DOMAINS,
    ).toEqual(["example.com", "corp.example.com"]);
  });

  it("names every missing or invalid variable", () => {
    expect(problems(() => parseEnv({}))).toEqual([
      "UPSTREAM_BASE_URL is required",
      "UPSTREAM_CLIENT_ID is required",
      "UPSTREAM_CLIENT_SECRET is required",
      "AUTH_SECRET is required",
    ]);
    expect(problems(() => parseEnv({ ...valid, AUTH_SECRET: "short" }))[0]).toMatch(
      /^AUTH_SECRET must be at least 32 characters/,
    );
    expect(problems(() => parseEnv({ ...valid, AUTH_OIDC_ISSUER: "https://id.example.com" }))).toEqual([
      "AUTH_OIDC_CLIENT_ID is required when AUTH_OIDC_ISSUER is set",
      "AUTH_OIDC_CLIENT_SECRET is required when AUTH_OIDC_ISSUER is set",
    ]);
    expect(problems(() => parseEnv({ ...valid, AUTH_OIDC_DEFAULT_ROLE: "root" }))[0]).toMatch(
      /^AUTH_OIDC_DEFAULT_ROLE /,
    );
    expect(problems(() => parseEnv({ ...valid, UPSTREAM_BASE_URL: "ftp://x" }))).toEqual([
      "UPSTREAM_BASE_URL must be an http(s) URL",
    ]);
    expect(problems(() => parseEnv({ ...valid, UPSTREAM_TIMEOUT_MS: "soon" }))[0]).toMatch(/^UPSTREAM_TIMEOUT_MS /);
    expect(problems(() => parseEnv({ ...valid, LOG_LEVEL: "loud" }))[0]).toMatch(/^LOG_LEVEL /);
    expect(problems(() => parseEnv({ ...valid, SHUTDOWN_TIMEOUT_S: "0" }))[0]).toMatch(/^SHUTDOWN_TIMEOUT_S /);
  });

  it("reads the upstream's picture origins as origins, and refuses anything but http(s)", () => {
    expect(parseEnv(valid).UPSTREAM_IMAGE_ORIGINS).toEqual([]);
    expect(
      parseEnv({ ...valid, UPSTREAM_IMAGE_ORIGINS: "https://logos.example.com/img/, http://127.0.0.1:9000" })
        .UPSTREAM_IMAGE_ORIGINS,
    ).toEqual(["https://logos.example.com", "http://127.0.0.1:9000"]);
    expect(
      problems(() => parseEnv({ ...valid, UPSTREAM_IMAGE_ORIGINS: "https://ok.example.com,javascript:alert(1)" }))[0],
    ).toMatch(/^UPSTREAM_IMAGE_ORIGINS /);
  });

  it("trusts no forwarding proxy unless told how many there are", () => {
    expect(parseEnv(valid).TRUSTED_PROXY_HOPS).toBe(0);
    expect(parseEnv({ ...valid, TRUSTED_PROXY_HOPS: "2" }).TRUSTED_PROXY_HOPS).toBe(2);
    expect(problems(() => parseEnv({ ...valid, TRUSTED_PROXY_HOPS: "-1" }))).toEqual([
      "TRUSTED_PROXY_HOPS must be 0 or more",
    ]);
    expect(problems(() => parseEnv({ ...valid, TRUSTED_PROXY_HOPS: "1.5" }))).toEqual([
      "TRUSTED_PROXY_HOPS must be a whole number",
    ]);
  });

  it("reads the public URL (AUTH_URL, which Auth.js reads too) as an origin", () => {
    expect(parseEnv(valid).AUTH_URL).toBeUndefined();
    expect(parseEnv({ ...valid, AUTH_URL: "https://linkdesk.example.com/" }).AUTH_URL).toBe(
      "https://linkdesk.example.com",
    );
    expect(problems(() => parseEnv({ ...valid, AUTH_URL: "https://linkdesk.example.com/console" }))).toEqual([
      "AUTH_URL must be an origin without a path, e.g. https://linkdesk.example.com",
    ]);
    expect(problems(() => parseEnv({ ...valid, AUTH_URL: "javascript:alert(1)" }))).toEqual([
      "AUTH_URL must be an http(s) URL",
    ]);
  });

  it("holds readiness at 503 for 5 s on SIGTERM unless told otherwise", () => {
    expect(parseEnv(valid).SHUTDOWN_DRAIN_S).toBe(5);
    expect(parseEnv({ ...valid, SHUTDOWN_DRAIN_S: "0" }).SHUTDOWN_DRAIN_S).toBe(0);
    expect(parseEnv({ ...valid, SHUTDOWN_DRAIN_S: "1.5" }).SHUTDOWN_DRAIN_S).toBe(1.5);
    expect(problems(() => parseEnv({ ...valid, SHUTDOWN_DRAIN_S: "-1" }))[0]).toMatch(/^SHUTDOWN_DRAIN_S /);
  });

  it("sends nothing out unless told where, and checks what it is told", () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const env = parseEnv(valid);
    expect(env.PRODUCT_WEBHOOK_URL).toBeUndefined();
    expect(env.SMTP_URL ?? env.SMTP_HOST).toBeUndefined();
    expect(env.OUTBOUND_TIMEOUT_MS).toBe(10_000);
    const product = {
      ...valid,
      PRODUCT_WEBHOOK_URL: "https://product.example.com/hooks/linkdesk/",
      PRODUCT_WEBHOOK_SECRET: secret,
      LINK_SESSION_REDIRECT_URI: "https://app.example.com/oauth-return",
    };
    // Kept as written: a receiver may route on the trailing slash.
    expect(parseEnv(product).PRODUCT_WEBHOOK_URL).toBe("https://product.example.com/hooks/linkdesk/");
    expect(problems(() => parseEnv({ ...valid, PRODUCT_WEBHOOK_URL: "https://product.example.com/h" }))).toEqual([
      "PRODUCT_WEBHOOK_SECRET is required when PRODUCT_WEBHOOK_URL is set",
    ]);
    expect(problems(() => parseEnv({ ...product, PRODUCT_WEBHOOK_SECRET: "s3cret" }))).toEqual([
      "PRODUCT_WEBHOOK_SECRET must be `whsec_` followed by a key in base64",
    ]);
    expect(problems(() => parseEnv({ ...product, PRODUCT_WEBHOOK_SECRET: "whsec_c2hvcnQ=" }))[0]).toMatch(
      /^PRODUCT_WEBHOOK_SECRET must hold a key of 24 to 64 bytes/,
    );
    expect(problems(() => parseEnv({ ...product, PRODUCT_WEBHOOK_URL: "ftp://product.example.com" }))).toEqual([
      "PRODUCT_WEBHOOK_URL must be an http(s) URL",
    ]);
    expect(problems(() => parseEnv({ ...product, PRODUCT_WEBHOOK_URL: "https://u:p@product.example.com" }))).toEqual([
      "PRODUCT_WEBHOOK_URL must not hold a user name or password (it is shown in the delivery log)",
    ]);
    expect(
      problems(() => parseEnv({ ...product, LINK_SESSION_REDIRECT_URI: "https://app.example.com/return?x=1" })),
    ).toEqual(["LINK_SESSION_REDIRECT_URI must have no query string (the upstream refuses one)"]);
  });

  it("takes plain http for what it sends only in demo mode", () => {
    const secret = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
    const plain = {
      ...valid,
      PRODUCT_WEBHOOK_URL: "http://127.0.0.1:4700/hooks",
      PRODUCT_WEBHOOK_SECRET: secret,
      PRODUCT_RECONNECT_URL: "http://127.0.0.1:4700/reconnect",
      LINK_SESSION_REDIRECT_URI: "http://127.0.0.1:4700/return",
    };
    expect(problems(() => parseEnv(plain))).toEqual([
      "PRODUCT_WEBHOOK_URL must be an https URL (plain http only in demo mode)",
      "PRODUCT_RECONNECT_URL must be an https URL (plain http only in demo mode)",
      "LINK_SESSION_REDIRECT_URI must be an https URL (plain http only in demo mode)",
    ]);
    expect(parseEnv({ ...plain, UPSTREAM_SANDBOX: "1" }).PRODUCT_WEBHOOK_URL).toBe("http://127.0.0.1:4700/hooks");
  });

  it("needs a sender and the product's reconnect page with a mail server, and one way to name the server", () => {
    const mail = { ...valid, SMTP_URL: "smtp://127.0.0.1:2525" };
    expect(problems(() => parseEnv(mail))).toEqual([
      "SMTP_FROM is required when SMTP_URL is set",
      "PRODUCT_RECONNECT_URL is required when SMTP_URL is set (the email links to it)",
    ]);
    const complete = {
      ...mail,
      SMTP_FROM: "Example Support <support@example.com>",
      PRODUCT_RECONNECT_URL: "https://app.example.com/reconnect",
    };
    expect(parseEnv(complete).SMTP_URL).toBe("smtp://127.0.0.1:2525");
    expect(problems(() => parseEnv({ ...complete, SMTP_HOST: "mail.example.com" }))).toEqual([
      "SMTP_HOST and SMTP_URL name the same thing: set one of them",
    ]);
    expect(problems(() => parseEnv({ ...complete, SMTP_URL: "http://mail.example.com" }))).toEqual([
      "SMTP_URL must be an smtp:// or smtps:// URL",
    ]);
    expect(problems(() => parseEnv({ ...complete, SMTP_FROM: "support" }))).toEqual([
      "SMTP_FROM must be an email address, e.g. support@example.com",
    ]);
    const byHost = { ...complete, SMTP_URL: "", SMTP_HOST: "mail.example.com", SMTP_PORT: "465" };
    expect(parseEnv(byHost)).toMatchObject({ SMTP_HOST: "mail.example.com", SMTP_PORT: 465 });
    expect(problems(() => parseEnv({ ...byHost, SMTP_USER: "linkdesk" }))).toEqual([
      "SMTP_PASSWORD is required when SMTP_USER is set",
    ]);
    expect(problems(() => parseEnv({ ...valid, SMTP_PORT: "25" }))).toEqual([
      "SMTP_HOST is required when SMTP_PORT is set",
    ]);
  });

  it("never echoes a secret's value in its message", () => {
    const error = (() => {
      try {
        parseEnv({ ...valid, UPSTREAM_BASE_URL: "not a url", UPSTREAM_CLIENT_SECRET: "" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toContain("UPSTREAM_CLIENT_SECRET is required");
    expect(error?.message).not.toContain("s3cret");
  });
});

describe("parseLauncherEnv", () => {
  it("starts the sandbox when no upstream is configured", () => {
    const env = parseLauncherEnv({});
    expect(env.UPSTREAM_BASE_URL).toBeUndefined();
    expect(env.PORT).toBe(3000);
    expect(env.SANDBOX_PORT).toBe(4010);
    // npm start waits for the dashboard's own shutdown bound before it kills it.
    expect(parseLauncherEnv({ SHUTDOWN_TIMEOUT_S: "30" }).SHUTDOWN_TIMEOUT_S).toBe(30);
  });

  it("requires credentials with a real upstream", () => {
    expect(problems(() => parseLauncherEnv({ UPSTREAM_BASE_URL: "https://api.example.com" }))).toEqual([
      "UPSTREAM_CLIENT_ID is required when UPSTREAM_BASE_URL is set",
      "UPSTREAM_CLIENT_SECRET is required when UPSTREAM_BASE_URL is set",
      "AUTH_SECRET is required when UPSTREAM_BASE_URL is set",
    ]);
    expect(problems(() => parseLauncherEnv({ PORT: "99999" }))[0]).toMatch(/^PORT /);
  });
});
