import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_AVATAR_INSTITUTION_ID, HOSTILE_NAME_INSTITUTION_ID, INSTITUTIONS } from "./catalog";
import { absoluteLogoUrls, logoSvg, monogramOf } from "./logos";
import { startSandbox, type TestSandbox } from "./test-support";
import { linkShape, transactionsPageShape } from "./wire-shapes";

// The sandbox serves its own logos, so the dashboard shows images with nothing but this machine reachable.

describe("the sandbox's logos", () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startSandbox();
  });
  afterAll(() => t.close());

  it("names every institution's and merchant's logo by an absolute address on the sandbox itself, and serves it as SVG", async () => {
    const fixtures = (await t.raw("GET", "/_sandbox/fixtures")).json as Record<string, string[]>;
    const link = linkShape.parse((await t.api("GET", `/links/${fixtures.plain![0]}`)).json);
    expect(link.institution_avatar).toMatch(new RegExp(`^${t.base}/_sandbox/logos/institutions/[a-z0-9-]+\\.svg$`));
    const logo = await fetch(link.institution_avatar!);
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/svg+xml");
    expect(await logo.text()).toMatch(/^<svg [^>]*>.*<\/svg>$/s);

    const page = transactionsPageShape.parse(
      (await t.api("GET", `/links/${fixtures.plain![0]}/transactions?size=50`)).json,
    );
    const merchantLogos = page.transactions.flatMap((txn) =>
      txn.enrichment?.merchant?.logo ? [txn.enrichment.merchant.logo] : [],
    );
    expect(merchantLogos.length).toBeGreaterThan(0);
    for (const url of new Set(merchantLogos)) {
      expect(url).toMatch(new RegExp(`^${t.base}/_sandbox/logos/merchants/`));
      expect((await fetch(url)).status, url).toBe(200);
    }
  });

  it("keeps the hostile avatar as it is (the dashboard must refuse it), and draws no institution name into a logo", async () => {
    const fixtures = (await t.raw("GET", "/_sandbox/fixtures")).json as Record<string, string[]>;
    const hostile = linkShape.parse((await t.api("GET", `/links/${fixtures.hostile_avatar![0]}`)).json);
    expect(hostile.institution_id).toBe(HOSTILE_AVATAR_INSTITUTION_ID);
    expect(hostile.institution_avatar).toMatch(/^javascript:/);
    const scriptSavings = INSTITUTIONS.find((i) => i.institution_id === HOSTILE_NAME_INSTITUTION_ID)!;
    const svg = await (await t.raw("GET", scriptSavings.avatar)).text;
    expect(svg).not.toContain("script");
  });

  it("answers 404 for a logo it does not have", async () => {
    for (const path of [
      "/_sandbox/logos/institutions/nope.svg",
      "/_sandbox/logos/other/chase.svg",
      "/_sandbox/logos/institutions/..%2Fchase.svg",
    ]) {
      expect((await t.raw("GET", path)).status, path).toBe(404);
    }
  });
});

describe("logo helpers", () => {
  it("refuses to draw anything but a short monogram and a hex colour", () => {
    expect(() => logoSvg({ monogram: "<a>", color: "#000000" })).toThrow(RangeError);
    expect(() => logoSvg({ monogram: "AB", color: "red;x" })).toThrow(RangeError);
    expect(logoSvg({ monogram: "AB", color: "#117aca" })).toContain(">AB</text>");
  });

  it("makes two-letter monograms from slugs", () => {
    expect(monogramOf("whole-foods")).toBe("WF");
    expect(monogramOf("amazon")).toBe("AM");
    expect(monogramOf("1800flowers")).toBe("18");
  });

  it("rewrites only string values that start with the logo path", () => {
    const json = JSON.stringify({
      a: "/_sandbox/logos/merchants/x.svg",
      b: "see /_sandbox/logos/merchants/x.svg",
      c: "/_sandbox/other",
    });
    expect(JSON.parse(absoluteLogoUrls(json, "http://127.0.0.1:4010"))).toEqual({
      a: "http://127.0.0.1:4010/_sandbox/logos/merchants/x.svg",
      b: "see /_sandbox/logos/merchants/x.svg",
      c: "/_sandbox/other",
    });
  });
});
