import { describe, expect, it } from "vitest";
import { strictTransportSecurity } from "./strict-transport-security";

describe("strictTransportSecurity", () => {
  it("asks for https for a year, subdomains included, when the public URL is https", () => {
    expect(strictTransportSecurity("https://linkdesk.example.com")).toBe("max-age=31536000; includeSubDomains");
  });

  it("says nothing over http or without a public URL", () => {
    expect(strictTransportSecurity("http://127.0.0.1:3000")).toBeNull();
    expect(strictTransportSecurity(undefined)).toBeNull();
    expect(strictTransportSecurity("not a url")).toBeNull();
  });
});
