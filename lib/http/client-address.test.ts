import { describe, expect, it } from "vitest";
import { clientAddressOf, rewriteClientAddress, trustedForwardedAddress } from "./client-address";

describe("trustedForwardedAddress", () => {
  it("trusts nothing a client wrote when no proxy is configured", () => {
    expect(trustedForwardedAddress("203.0.113.9", 0)).toBeNull();
    expect(trustedForwardedAddress("203.0.113.9, 198.51.100.1", 0)).toBeNull();
  });

  it("takes the address the Nth proxy from the right appended, whatever the client put before it", () => {
    // Client forged "1.1.1.1"; our one proxy appended the address it saw.
    expect(trustedForwardedAddress("1.1.1.1, 203.0.113.9", 1)).toBe("203.0.113.9");
    // Two proxies: the outer one appended the client, the inner one the outer proxy.
    expect(trustedForwardedAddress("1.1.1.1, 203.0.113.9, 10.0.0.2", 2)).toBe("203.0.113.9");
    expect(trustedForwardedAddress(" 2001:db8::1 ", 1)).toBe("2001:db8::1");
    expect(trustedForwardedAddress("[2001:db8::1]", 1)).toBe("2001:db8::1");
  });

  it("falls back to the connection when the chain is shorter than the hops or holds no address", () => {
    expect(trustedForwardedAddress("203.0.113.9", 2)).toBeNull();
    expect(trustedForwardedAddress(null, 1)).toBeNull();
    expect(trustedForwardedAddress("<script>alert(1)</script>", 1)).toBeNull();
    expect(trustedForwardedAddress("unknown", 1)).toBeNull();
  });
});

describe("rewriteClientAddress and clientAddressOf", () => {
  it("with no trusted hops, removes every address claim so Next.js fills in the connection's address", () => {
    const headers = new Headers({
      "x-forwarded-for": "198.51.100.77",
      "x-real-ip": "198.51.100.78",
      forwarded: "for=198.51.100.79",
    });
    rewriteClientAddress(headers, 0);
    expect(headers.has("x-forwarded-for")).toBe(false);
    expect(headers.has("x-real-ip")).toBe(false);
    expect(headers.has("forwarded")).toBe(false);
    expect(clientAddressOf(headers)).toBeNull();
    // What Next.js then sets from the socket is what the app reads.
    headers.set("x-forwarded-for", "127.0.0.2");
    expect(clientAddressOf(headers)).toBe("127.0.0.2");
  });

  it("with trusted hops, leaves exactly the vouched-for address", () => {
    const headers = new Headers({ "x-forwarded-for": "6.6.6.6, 203.0.113.9" });
    rewriteClientAddress(headers, 1);
    expect(headers.get("x-forwarded-for")).toBe("203.0.113.9");
    expect(clientAddressOf(headers)).toBe("203.0.113.9");
  });

  it("reads no address from garbage", () => {
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "'; drop table staff; --" }))).toBeNull();
  });
});
