import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, newNonce } from "./content-security-policy";

const directive = (policy: string, name: string) => policy.split("; ").find((d) => d.startsWith(`${name} `));

describe("contentSecurityPolicy", () => {
  it("runs scripts only with the request's nonce, never inline, and forbids framing", () => {
    const policy = contentSecurityPolicy("abc123==");
    expect(directive(policy, "script-src")).toBe("script-src 'self' 'nonce-abc123==' 'strict-dynamic'");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(directive(policy, "frame-ancestors")).toBe("frame-ancestors 'none'");
    expect(directive(policy, "object-src")).toBe("object-src 'none'");
    // No upstream picture host unless named.
    expect(directive(policy, "img-src")).toBe("img-src 'self' data: blob:");
  });

  it("lets images come from the named picture origins only, never from every http(s) host", () => {
    const policy = contentSecurityPolicy("n", { imageOrigins: ["http://127.0.0.1:4010", "https://logos.example.com"] });
    expect(directive(policy, "img-src")).toBe(
      "img-src 'self' data: blob: http://127.0.0.1:4010 https://logos.example.com",
    );
    expect(directive(policy, "img-src")).not.toMatch(/ (https?:|\*)( |$)/);
  });

  it("lets forms go to the identity provider when one is configured, and the dev server eval", () => {
    expect(directive(contentSecurityPolicy("n", { formTargets: ["https://idp.example.com"] }), "form-action")).toBe(
      "form-action 'self' https://idp.example.com",
    );
    expect(directive(contentSecurityPolicy("n", { development: true }), "script-src")).toContain("'unsafe-eval'");
  });

  it("makes a different nonce every time", () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  });
});
