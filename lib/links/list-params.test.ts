import { describe, expect, it } from "vitest";
import { DEFAULT_LINK_SORT, linkListSearchParams, parseLinkListParams, resolveLinkSort } from "./list-params";
import type { LinkListParams } from "../schemas/links";

describe("parseLinkListParams", () => {
  it("reads every parameter of the URL contract", () => {
    const { params, dropped } = parseLinkListParams(
      new URLSearchParams(
        "state=error&error_code=auth_expired&institution=chase&provider=plaid&tag=vip&product_error=timeout&stale=7&q=lk_0&sort=provider&dir=desc&page=3",
      ),
    );
    expect(dropped).toEqual([]);
    expect(params).toEqual({
      state: "error",
      error_code: "auth_expired",
      institution: "chase",
      provider: "plaid",
      tag: "vip",
      product_error: "timeout",
      stale: 7,
      q: "lk_0",
      sort: "provider",
      dir: "desc",
      page: 3,
    });
  });

  it("drops each bad value with a reason, keeps the good ones, and ignores blanks and unknown parameters", () => {
    const { params, dropped } = parseLinkListParams({
      state: "sleeping<b>",
      error_code: ["auth_expired", "provider_error"],
      stale: "a week",
      page: "0",
      sort: "raw",
      dir: "sideways",
      tag: " vip ",
      q: "   ",
      provider: "",
      id: "mk_123",
    });
    expect(params).toEqual({ tag: "vip" });
    expect(dropped.map((d) => [d.param, d.value, d.reason])).toEqual([
      ["state", "sleeping<b>", "not a value the upstream sends (letters, digits, _ . : -)"],
      ["error_code", "auth_expired, provider_error", "given more than once"],
      ["stale", "a week", "not a whole number"],
      ["sort", "raw", "not one of the choices"],
      ["dir", "sideways", "not one of the choices"],
      ["page", "0", "too small"],
    ]);
  });

  it("keeps a state or error code the upstream added since, so its links can be listed and exported", () => {
    expect(parseLinkListParams({ state: "relinking", error_code: "consent_revoked" })).toEqual({
      params: { state: "relinking", error_code: "consent_revoked" },
      dropped: [],
    });
  });

  it("writes a view back in one canonical order, without page 1, and round-trips", () => {
    const params: LinkListParams = { q: "lk", state: "error", stale: 30, page: 1, sort: "state" };
    const search = linkListSearchParams(params);
    expect(search.toString()).toBe("state=error&stale=30&q=lk&sort=state");
    expect(parseLinkListParams(search).params).toEqual({ q: "lk", state: "error", stale: 30, sort: "state" });
    expect(linkListSearchParams(params, { page: 4, state: undefined }).toString()).toBe(
      "stale=30&q=lk&sort=state&page=4",
    );
  });

  it("defaults to newest first, and each sort to its own direction", () => {
    expect(resolveLinkSort({})).toEqual({ sort: DEFAULT_LINK_SORT, dir: "desc" });
    expect(resolveLinkSort({ sort: "institution_name" })).toEqual({ sort: "institution_name", dir: "asc" });
    expect(resolveLinkSort({ sort: "last_refreshed_at", dir: "asc" })).toEqual({
      sort: "last_refreshed_at",
      dir: "asc",
    });
  });
});
